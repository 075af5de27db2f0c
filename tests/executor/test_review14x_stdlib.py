"""Review 14x: documented modules whose everyday functions fail inside a cell.

README lists ``collections``, ``datetime`` and ``time`` among the pre-imported modules. Three
everyday calls fail, with messages about modules the program never imported:

- ``datetime.datetime.strptime("2024-01-05", "%Y-%m-%d")`` and ``time.strptime(...)`` ->
  ``ImportError: module '_strptime' is not available in Code Mode. Available modules: ...``
  (both executors): parsing a date an API returned is glue code's bread and butter;
- ``collections.Counter("hello").most_common(2)`` -> ``ModuleNotFoundError: No module named
  'heapq'`` (the isolated executor, the default);
- ``"{:,}".format(1234567)`` -> ``NotImplementedError: Using the format*() methods of `str` is
  not safe``: the f-string that does the same (``f"{n:,}"``) works, and the message does not say so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, SubprocessExecutor, ToolSetConnector

pytestmark = pytest.mark.anyio


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.fixture(params=["isolated", "inprocess"])
async def rt(request: pytest.FixtureRequest) -> AsyncIterator[CodemodeRuntime]:
    executor: Any = SubprocessExecutor() if request.param == "isolated" else InProcessExecutor()
    async with CodemodeRuntime([ToolSetConnector([add], name="calc")], store="sqlite://",
                               executor=executor) as runtime:
        yield runtime


@pytest.mark.parametrize("code, expected", [
    ('datetime.datetime.strptime("2024-01-05", "%Y-%m-%d").isoformat()', "2024-01-05T00:00:00"),
    ('time.strptime("2024-01-05", "%Y-%m-%d").tm_yday', 5),
])
async def test_parsing_a_date_works(rt: CodemodeRuntime, code: str, expected: Any) -> None:
    out = await rt.execute(code)
    assert out["status"] == "completed", out
    assert out["result"] == expected


@pytest.mark.parametrize("kind", [
    "isolated",
    "inprocess",  # the control: holds today
])
async def test_counter_most_common_works(kind: str) -> None:
    executor: Any = SubprocessExecutor() if kind == "isolated" else InProcessExecutor()
    async with CodemodeRuntime([ToolSetConnector([add], name="calc")], store="sqlite://",
                               executor=executor) as runtime:
        out = await runtime.execute('collections.Counter("hello").most_common(2)')
    assert out["status"] == "completed", out
    assert out["result"] == [("l", 2), ("h", 1)]


async def test_str_format_refusal_points_at_the_f_string(rt: CodemodeRuntime) -> None:
    out = await rt.execute('"{:,}".format(1234567)')
    if out["status"] == "completed":
        assert out["result"] == "1,234,567"
        return
    assert 'f"' in out["error"] or "f-string" in out["error"], out["error"]
