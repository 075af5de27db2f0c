"""The sandbox's ``type`` builds no classes, through any door (review 12).

language._safe_type gives ``type(x)`` only: "the three-argument form could build classes with
dunders" (a class dict may hold ``__getattr__``, ``__reduce__``, ``__del__``, ... which a ``class``
statement in cell code cannot define: RestrictedPython refuses names starting with '_'). But the
one-argument form returns the metaclass of a class: ``type(type(1))`` is the real ``type``,
``type(collections.abc.Mapping)`` is ``ABCMeta``, ``type(re.RegexFlag)`` is ``EnumType``; each
builds a class from a dict, dunders included.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

DOORS = {
    "type of a type": "type(type(1))",
    "type of an abc": "type(collections.abc.Mapping)",
    "type of a class from a module": "type(json.JSONDecoder)",
}

CODE = "T = {door}\nX = T('X', (), {{'__getattr__': lambda s, n: 'made ' + n}})\nX().anything"


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


@pytest.mark.parametrize("door", DOORS.values(), ids=DOORS.keys())
async def test_no_class_with_dunders_is_built(executor: Any, door: str) -> None:
    """It is an error if the cell builds a class whose dict defines __getattr__."""
    out = await executor.execute(CODE.format(door=door), {}, host=RecordingHost())
    assert out.result != "made anything"
    assert out.error is not None


# e9baa74 closed the metaclass door; an enum's functional API is another: a memberless Enum class is
# reachable as a base of an allow-listed enum (re.RegexFlag.mro(), uuid.SafeUUID.mro()), and
# Enum('X', {...}) builds a class from a dict, dunders included.
# a490d5a refused a class's mro(); uuid imports enum.Enum itself, so the memberless Enum is a public
# name of an allow-listed module (uuid.Enum).
ENUM_DOORS = [
    pytest.param("re.RegexFlag.mro()[5]", id="Enum from re.RegexFlag"),
    pytest.param("uuid.SafeUUID.mro()[1]", id="Enum from uuid.SafeUUID"),
    pytest.param("uuid.Enum", id="uuid.Enum"),
]

ENUM_CODE = ("E = {door}\nX = E('X', {{'a': 1, '__getattr__': lambda s, n: 'made ' + n}})\nX.a.anything")


@pytest.mark.parametrize("door", ENUM_DOORS)
async def test_no_enum_with_dunders_is_built(executor: Any, door: str) -> None:
    """It is an error if the cell builds an enum class whose dict defines __getattr__."""
    out = await executor.execute(ENUM_CODE.format(door=door), {}, host=RecordingHost())
    assert out.result != "made anything"
    assert out.error is not None
