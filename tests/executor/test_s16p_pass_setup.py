"""The isolated executor's setup of a pass, made shorter (issue 12, s16p): same outcomes.

The method names of a pass (as sets, sorted, and the run line's JSON of them) are kept from the last
pass while they are the same names: a caller that changes its lists, or gives others, gets a pass
with exactly the names it gave, and the run line carries them whole.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.anyio


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    ex = SubprocessExecutor()
    yield ex
    await ex.aclose()


async def test_a_run_line_longer_than_a_pipe_holds_arrives_whole(executor: SubprocessExecutor) -> None:
    """It is an error if a pass whose run line is longer than one pipe write takes (an input of
    300,000 characters, a pipe holds 65,536 bytes) does not get all of it."""
    text = "".join(chr(ord("a") + i % 26) for i in range(300_000))
    out = await executor.execute("[len(big), big[-3:], big[:2]]", {}, host=RecordingHost(), inputs={"big": text})
    assert out.error is None, out.error
    assert out.result == [300_000, text[-3:], "ab"]


async def test_changed_lists_give_the_names_they_hold_now(executor: SubprocessExecutor) -> None:
    """It is an error if a pass is given the method names of an earlier pass after the caller changed
    the list it passes (or passes another mapping): a name taken out is refused in the worker and a
    name put in reaches the host."""
    methods = ["get", "put"]
    spaces = {"shop": methods}
    host = RecordingHost()
    first = await executor.execute("shop.get()", spaces, host=host)
    assert first.error is None, first.error
    methods.remove("get")
    methods.append("count")
    refused = await executor.execute("shop.get()", spaces, host=host)
    assert refused.error is not None and refused.error.type == "AttributeError", refused
    counted = await executor.execute("shop.count()", spaces, host=host)
    assert counted.error is None, counted.error
    other = await executor.execute("stock.level()", {"stock": ("level",)}, host=host)
    assert other.error is None, other.error
    gone = await executor.execute("shop.count()", {"stock": ("level",)}, host=host)
    assert gone.error is not None and gone.error.type == "NameError", gone
    assert host.calls == [("shop", "get"), ("shop", "count"), ("stock", "level")]
