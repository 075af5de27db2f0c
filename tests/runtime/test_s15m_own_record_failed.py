"""A pass whose own start could not be written says so, and calls nothing (session 13's closing note).

The start of an execution is committed while the sandbox starts (``PassStart``). A commit that
failed with a StoreError stopped the pass; one that raised anything else escaped as a loop
callback's error: the pass ran on as if its start were recorded, a connector call ran with no
execution to journal it, and the caller heard "execution ... was ended as 'deleted' by another
host while this pass ran" - nobody else had done anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.journal import JournalStore
from tests.conftest import make_executor

pytestmark = pytest.mark.anyio


class FailingStart(JournalStore):
    """A journal whose next start of an execution raises what a driver or a store subclass might."""

    def __init__(self, url: str, failure: Exception) -> None:
        super().__init__(url)
        self.failure: Exception | None = failure

    def start_execution(self, *args: Any, **kwargs: Any) -> int:
        failure, self.failure = self.failure, None
        if failure is not None:
            raise failure
        return super().start_execution(*args, **kwargs)


@pytest.fixture
def counted() -> Iterator[tuple[ToolSetConnector, list[int]]]:
    ran: list[int] = []

    def add(x: int) -> int:
        """Add one row."""
        ran.append(x)
        return x

    yield ToolSetConnector([add], name="rows", target="rows of this test"), ran


async def test_a_start_that_raised_stops_the_pass_and_says_why(
        executor_kind: str, counted: tuple[ToolSetConnector, list[int]]) -> None:
    """It is an error if the pass calls a connector, or blames another host, when its own start was not written."""
    connector, ran = counted
    store = FailingStart("sqlite://", ValueError("the journal's disk said no"))
    async with CodemodeRuntime([connector], store=store, executor=make_executor(executor_kind)) as rt:
        out = await rt.execute("rows.add(x=1)\n'done'")
        assert out["status"] == "error", out
        assert "the journal's disk said no" in out["error"] and "ValueError" in out["error"], out
        assert "another host" not in out["error"]
        assert ran == []  # nothing ran that no journal records
        assert await rt.executions() == []
        again = await rt.execute("rows.add(x=2)\n'done'")  # the journal works again
        assert again["status"] == "completed" and again["result"] == "done", again
        assert ran == [2]
