"""A new execution's start is committed when the pass first needs it (issue 12): a pass that asks
the host nothing and prints nothing records its start and its end in one transaction, and a pass
that runs on commits its start by itself shortly after it began (runtime.PassStart)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, ToolSetConnector, runtime
from codemode_kernel.errors import StoreError
from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.journal import JournalStore
from tests.conftest import RuntimeFactory, StoreSql

pytestmark = pytest.mark.anyio


class EndFails(JournalStore):
    """A store that can record a start but not a pass's end (the disk fills up in between)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.ends = 0

    def _full(self) -> StoreError:
        self.ends += 1
        return StoreError(self.where, "could not be written (the disk is full)", "Free some space.")

    def start_execution(self, *args: Any, **kwargs: Any) -> int:
        if kwargs.get("ended") is not None:  # a start written with its pass's end
            raise self._full()
        return super().start_execution(*args, **kwargs)

    def transition(self, *args: Any, **kwargs: Any) -> bool:
        raise self._full()


def _noop() -> ToolSetConnector:
    def ping() -> str:
        """Answer pong."""
        return "pong"

    return ToolSetConnector([ping], name="net")


async def test_a_quiet_pass_whose_end_cannot_be_recorded_leaves_no_record(
        make_runtime: RuntimeFactory, db_url: str, store_sql: StoreSql, monkeypatch: pytest.MonkeyPatch) -> None:
    """Start and end are one transaction: when it fails, no execution is left ``running`` (as one
    whose start was committed on its own would be) and the caller hears the store's error."""
    monkeypatch.setattr(runtime, "BEGIN_AFTER", 3600.0)  # however slowly the first worker starts
    store = EndFails(db_url)
    rt = make_runtime([_noop()], store=store)
    out = await rt.execute("40 + 2")
    assert out["status"] == "error" and out["error_type"] == "StoreError", out
    assert "disk is full" in out["error"]
    assert store.ends == 1
    assert store_sql("SELECT id, status FROM codemode_executions") == []
    follow = await rt.execute("net.ping()\n1")  # a request commits the start on its own first
    assert follow["error_type"] == "HostError" and "disk is full" in follow["error"], follow
    assert store_sql("SELECT status, passes FROM codemode_executions") == [("running", 1)]


async def test_a_quiet_pass_records_its_start_and_end_together(
        make_runtime: RuntimeFactory, store_sql: StoreSql) -> None:
    rt = make_runtime([_noop()])
    out = await rt.execute("6 * 7")
    assert out["status"] == "completed" and out["result"] == 42, out
    assert store_sql("SELECT status, passes, result, logs FROM codemode_executions WHERE id = :id",
                     id=out["execution_id"]) == [("completed", 1, "42", "[]")]
    called = await rt.execute("net.ping()")  # a request commits the start before it is answered
    assert called["result"] == "pong"
    assert store_sql("SELECT status, passes FROM codemode_executions WHERE id = :id",
                     id=called["execution_id"]) == [("completed", 1)]


async def test_a_pass_that_runs_on_is_recorded_running_while_it_runs(db_url: str, store_sql: StoreSql) -> None:
    """A computation that asks nothing shows as ``running`` in the journal while it runs (not only
    at its end), read over a connection of its own."""
    rt = CodemodeRuntime([_noop()], store=db_url, executor=SubprocessExecutor())
    try:
        task = asyncio.create_task(rt.execute("while True:\n    pass"))
        seen: list[tuple[Any, ...]] = []
        for _ in range(3000):  # up to ~30 s: the pass never ends by itself
            seen = store_sql("SELECT status, passes FROM codemode_executions")
            if seen:
                break
            await asyncio.sleep(0.01)
        assert seen == [("running", 1)]
        assert not task.done()
        assert rt.interrupt() is True
        out = await asyncio.wait_for(task, timeout=30)
        assert out["status"] == "error" and out["error_type"] == "Interrupted", out
        assert store_sql("SELECT status FROM codemode_executions") == [("error",)]
    finally:
        await rt.aclose()


async def test_a_quiet_pass_is_recorded_as_a_pass_recorded_in_two_steps(
        make_runtime: RuntimeFactory, store_sql: StoreSql, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inserted as it ended, a pass's record holds what a start and a status change would have left."""
    rt = make_runtime([_noop()])
    code = "print('one')\nprint('two')\nx = 1 / 0"
    records = []
    for begin_after in (3600.0, 0.0):  # with its end / on its own, as soon as the loop turns
        monkeypatch.setattr(runtime, "BEGIN_AFTER", begin_after)
        out = await rt.execute(code)
        assert out["error_type"] == "ZeroDivisionError" and out["logs"] == ["one", "two"], out
        records.append(store_sql(
            "SELECT code, status, result, result_note, error, error_type, logs, connectors, inputs, options, passes "
            "FROM codemode_executions WHERE id = :id", id=out["execution_id"]))
    assert records[0] == records[1] and len(records[0]) == 1
    assert records[0][0][1] == "error" and records[0][0][6] == '["one", "two"]'
