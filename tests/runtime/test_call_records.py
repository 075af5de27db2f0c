"""When a call's record reaches the store (issue 12: the outcome is committed after the reply).

A call's outcome is written to the store right after its reply goes to the sandbox, so the
commit overlaps the sandbox's next steps. These specs pin what that must not change: the
outcome is in the store before anything more of the pass reaches a connector, and a store
that cannot record it ends the pass.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import StoreError
from codemode_kernel.journal import JournalStore
from tests.conftest import RuntimeFactory, StoreSql

pytestmark = pytest.mark.anyio


async def test_a_calls_outcome_is_stored_before_the_next_call_reaches_a_connector(
        make_runtime: RuntimeFactory, store_sql: StoreSql) -> None:
    """Each call finds every earlier call of its pass recorded as applied, with its result."""
    seen: list[list[tuple[Any, ...]]] = []

    def write(n: int) -> int:
        """Record a number."""
        seen.append(store_sql("SELECT seq, state, result FROM codemode_entries ORDER BY seq"))
        return n * 10

    rt = make_runtime([ToolSetConnector([write], name="probe")])
    out = await rt.execute("x = 1\nfor n in range(3):\n    x = x + probe.write(n=n)\nx")
    assert out["status"] == "completed", out
    assert out["result"] == 31
    assert seen == [
        [(0, "executing", None)],
        [(0, "applied", "0"), (1, "executing", None)],
        [(0, "applied", "0"), (1, "applied", "10"), (2, "executing", None)],
    ]
    assert store_sql("SELECT seq, state, result FROM codemode_entries ORDER BY seq") == [
        (0, "applied", "0"), (1, "applied", "10"), (2, "applied", "20")]


class _ResultsNotStored(JournalStore):
    """A store that fails whenever a call's outcome is recorded (e.g. the disk filled up)."""

    def finish_entry(self, *args: Any, **kwargs: Any) -> bool:
        raise StoreError(self.where, "could not be written (test)", "Free some space.")


async def test_a_store_that_cannot_record_an_outcome_ends_the_pass(make_runtime: RuntimeFactory, db_url: str) -> None:
    """It is an error if a pass goes on, or completes, after its host failed to record a call's outcome.

    The sandbox already has the value when the commit fails, so the next request is refused:
    no later call reaches a connector, and the execution ends as an error.
    """
    calls = {"first": 0, "second": 0}

    def first() -> str:
        """The first call."""
        calls["first"] += 1
        return "a"

    def second() -> str:
        """The second call."""
        calls["second"] += 1
        return "b"

    rt = make_runtime([ToolSetConnector([first, second], name="probe")], store=_ResultsNotStored(db_url))
    out = await rt.execute("v = probe.first()\ntry:\n    probe.second()\nexcept Exception:\n    pass\nv")
    assert out["status"] == "error", out
    assert out["error_type"] == "HostError"
    assert "could not record the outcome of call #0" in out["error"]
    assert calls == {"first": 1, "second": 0}
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "error"
    assert [e.state for e in state.log] == ["executing"]


async def test_a_new_executions_first_pass_is_recorded_with_it(make_runtime: RuntimeFactory) -> None:
    """A new execution is stored with its first pass begun, and an approval claims the next pass."""

    def write(n: int) -> int:
        """A write that needs approval."""
        return n

    rt = make_runtime([ToolSetConnector([write], name="store", requires_approval={"write"})])
    paused = await rt.execute("store.write(n=1)")
    state = await rt.execution(paused["execution_id"])
    assert state is not None and (state.status, state.passes) == ("paused", 1)
    done = await rt.approve(paused["execution_id"])
    assert done["status"] == "completed", done
    state = await rt.execution(paused["execution_id"])
    assert state is not None and (state.status, state.passes) == ("completed", 2)
    assert [e.pass_number for e in state.log] == [2]  # the approved call ran in the second pass
