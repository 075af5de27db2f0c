"""``collections.UserString`` does not hand a cell ``str.format``'s attribute walk (review 13).

RestrictedPython's ``safer_getattr`` refuses ``format`` and ``format_map`` on ``str`` and its
subclasses, because a format string walks attributes and items past every guard
(``'{0.__class__}'.format(x)``). ``collections.UserString`` is not a ``str`` subclass, and its
``format``/``format_map`` call ``self.data.format(...)`` in unguarded library code, so

    collections.UserString('{0.__init__.__globals__[_sys].modules[os].environ[TOKEN]}') \
        .format(collections.UserString(''))

renders any value reachable from any object: on the in-process executor the host's environment
(the credentials connectors read from it), its modules, its connectors' attributes; on the
isolated executor the worker's memory (``sys.modules`` and everything in it). The language layer
(DESIGN §4: no attribute names starting with '_') is gone for reading.

The right outcome: refused as ``str.format`` is (an error the cell sees), on both executors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

SECRET_ENV = "CODEMODE_REVIEW13_FORMAT_SECRET"
SECRET = "review13-format-secret-7d1e"


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Any]:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


WALKS = {
    "format": "collections.UserString('{0.__class__.__name__}').format(1)",
    "format_map": "collections.UserString('{a.__class__.__name__}').format_map({'a': 1})",
    "unbound format": "collections.UserString.format(collections.UserString('{0.__class__.__name__}'), 1)",
    "imported": "from collections import UserString\nUserString('{0.__class__.__name__}').format(1)",
}


@pytest.mark.parametrize("code", WALKS.values(), ids=WALKS.keys())
async def test_userstring_format_does_not_walk_attributes(executor: Any, code: str) -> None:
    """It is an error if a format string reads a '_' attribute (``__class__.__name__`` gives 'int')."""
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.result != "int", out
    assert out.error is not None, out


LEAK = ("collections.UserString('{0.__init__.__globals__[_sys].modules[os].environ[" + SECRET_ENV + "]}')"
        ".format(collections.UserString(''))")


async def test_userstring_format_does_not_read_the_hosts_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """It is an error if a cell on the in-process executor returns a credential from the host's environment."""
    monkeypatch.setenv(SECRET_ENV, SECRET)
    ex = InProcessExecutor()
    try:
        out = await ex.execute(LEAK, {}, host=RecordingHost())
    finally:
        await ex.aclose()
    assert SECRET not in repr(out), out
