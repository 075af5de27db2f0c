"""Containers from ``collections`` that a cell builds take item writes, as dicts and lists do (review 12).

DESIGN §4 offers ``collections`` for pure computation, and models count and group with it
(``counts = collections.Counter()``, ``groups = collections.defaultdict(list)``). The write
guard passes only ``dict``, ``list``, ``set`` and ``bytearray`` (and the cell's own classes)
unchanged, so ``counts[word] = counts[word] + 1`` on a ``Counter`` fails with RestrictedPython's
"object does not support item or slice assignment", which tells the model something false about
the type. These objects are the cell's own data (nothing from the host is one: values cross the
boundary as JSON), so writing to them reaches nothing the cell could not reach already.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

CASES: list[tuple[str, str, Any]] = [
    ("counting with a defaultdict", "d = collections.defaultdict(int)\nfor w in 'abca':\n    d[w] = d[w] + 1\n"
     "dict(d)", {"a": 2, "b": 1, "c": 1}),
    ("a Counter's item", "c = collections.Counter('ab')\nc['a'] = 5\ndict(c)", {"a": 5, "b": 1}),
    ("an OrderedDict's item and delete", "o = collections.OrderedDict(a=1, b=2)\no['c'] = 3\ndel o['a']\nlist(o)",
     ["b", "c"]),
    ("a deque's item", "q = collections.deque([1, 2])\nq[0] = 9\nlist(q)", [9, 2]),
]


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


@pytest.mark.parametrize(("code", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_a_collections_container_takes_item_writes(executor: Any, code: str, expected: Any) -> None:
    """It is an error if a write to a Counter, defaultdict, OrderedDict or deque the cell made is refused."""
    out = await executor.execute(code, {}, host=RecordingHost())
    assert out.error is None, out.error
    assert out.result == expected
