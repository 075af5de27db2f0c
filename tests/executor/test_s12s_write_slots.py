"""A subscript write calls the write guard only when its target is not the container that site last let
through (issue 12, s12s): ``d[k] = v`` in a loop checked ``type(d)`` on every write; now each write site
keeps the dict, list, set or bytearray it last let through unchanged, and an ``is`` test passes it on.
Anything else still goes through the guard, at every write; what a cell sees is unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.executor.language import compile_cell, guard_globals
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio


def run_counting(source: str) -> tuple[dict[str, Any], list[str]]:
    """Run ``source`` as a pass's code runs, counting the calls of the write guard (by type written to)."""
    g = guard_globals(None)
    guard = g["__codemode_write__"]
    calls: list[str] = []

    def counted(ob: Any, slot: str) -> Any:
        calls.append(type(ob).__name__)
        return guard(ob, slot)

    g["__codemode_write__"] = counted
    exec(compile_cell(source), g)
    return g, calls


def test_a_loop_writing_one_list_calls_the_guard_once() -> None:
    """It is an error if a write site calls the guard again for the container it let through last."""
    g, calls = run_counting("s = [True] * 100\nfor j in range(0, 100, 3):\n    s[j] = False\ncount = s.count(True)")
    assert g["count"] == 66
    assert calls == ["list"]


def test_two_sites_keep_one_container_each() -> None:
    """Alternating writes to two containers at two sites call the guard once per site."""
    g, calls = run_counting("a = {}\nb = [0] * 10\nfor i in range(10):\n    a[i] = i\n    b[i] = i\n"
                            "del a[0]\nresult = [len(a), b]")
    assert g["result"] == [9, list(range(10))]
    assert sorted(calls) == ["dict", "dict", "list"]  # the del is a site of its own


def test_a_site_calls_the_guard_for_every_other_object() -> None:
    """A write site whose target changes calls the guard for each new target, in functions too."""
    g, calls = run_counting("def fill(n):\n    r = [0] * n\n    for i in range(n):\n        r[i] = i\n    return r\n"
                            "out = [fill(3), fill(2)]")
    assert g["out"] == [[0, 1, 2], [0, 1]]
    assert calls == ["list", "list"]


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


REFUSED_AFTER_A_LIST = {
    "a tuple": "for t in ({}, (0,)):\n    t[0] = 1",
    "a module": "for m in ({}, json):\n    m['dumps'] = len",
    "a connector": "for c in ({}, shop):\n    c['get'] = len",
    "a string": "for s in ({0: 1}, 'abc'):\n    del s[0]",
    "a list's slot, then a tuple in a function": "def put(x):\n    x[0] = 1\nput([0])\nput((0,))",
}


@pytest.mark.parametrize("code", REFUSED_AFTER_A_LIST.values(), ids=REFUSED_AFTER_A_LIST.keys())
async def test_a_site_that_let_a_list_through_still_refuses_other_objects(executor: Any, code: str) -> None:
    """It is an error if a write site lets through an object it refuses because a container passed it before."""
    out = await executor.execute(code, {"shop": ["get"]}, host=RecordingHost())
    assert out.error is not None and out.error.type == "TypeError", out.error
    assert "support item" in out.error.message, out.error


async def test_the_slots_are_not_variables_of_the_pass(executor: Any) -> None:
    """The sites' slots never show among the pass's variables, and the values written are the pass's."""
    out = await executor.execute("d = {}\nd['k'] = [1]\nd['k'][0] = 2\nd", {}, host=RecordingHost(),
                                 capture_variables=True)
    assert out.error is None, out.error
    assert out.result == {"k": [2]}
    assert set(out.variables) == {"d"}


async def test_a_future_import_is_refused_as_before(executor: Any) -> None:
    """A cell that starts with ``from __future__ import ...`` and writes a subscript still compiles; the import
    is refused when it runs (the slots are bound after it: the compiler wants future imports first)."""
    out = await executor.execute("from __future__ import annotations\nd = {}\nd['a'] = 1\nd", {},
                                 host=RecordingHost())
    assert out.error is not None and out.error.type == "ImportError", out.error
