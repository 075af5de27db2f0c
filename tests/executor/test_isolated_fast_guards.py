"""The inlined guards (language._FastGuards) behave exactly like the guard calls they replace."""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio

CASES: list[tuple[str, str, Any]] = [
    ("augmented assignment is in place for lists", "a = [1]\nb = a\nb += [2]\na", [1, 2]),
    ("augmented assignment on numbers", "n = 2\nn **= 10\nn //= 3\nn %= 100\nn", 41),
    ("augmented assignment inside a function", "def f():\n    t = 0\n    for i in range(5):\n        t += i\n"
     "    return t\nf()", 10),
    ("subscript store on containers", "d = {}\nd['k'] = 1\nl = [0]\nl[0] = 2\n[d, l]", [{"k": 1}, [2]]),
    ("subscript delete", "d = {'a': 1, 'b': 2}\ndel d['a']\nd", {"b": 2}),
    ("instances of cell classes are writable", "class C:\n    def __init__(self):\n        self.v = {}\n"
     "c = C()\nc.v['x'] = 1\nc.v", {"x": 1}),
]

REFUSED: list[tuple[str, str]] = [
    ("subscript store on a module", "m = json\nm['dumps'] = len"),
    ("subscript store on a connector", "v = shop\nv['get'] = len"),
    ("subscript store on a tuple", "t = (1,)\nt[0] = 2"),
    ("attribute store on a module", "json.dumps = len"),
]


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> Any:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


@pytest.mark.parametrize(("code", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_allowed_operations_keep_their_meaning(executor: Any, code: str, expected: Any) -> None:
    """Each allowed operation gives what plain Python gives."""
    out = await executor.execute(code, {"shop": ["get"]}, host=RecordingHost())
    assert out.error is None, out.error
    assert out.result == expected


@pytest.mark.parametrize("code", [c[1] for c in REFUSED], ids=[c[0] for c in REFUSED])
async def test_writes_to_other_objects_are_still_refused(executor: Any, code: str) -> None:
    """A store through a name bound to anything but a plain container still reaches the refusing guard."""
    out = await executor.execute(code + "\n'written'", {"shop": ["get"]}, host=RecordingHost())
    assert out.error is not None
    assert out.result != "written"
