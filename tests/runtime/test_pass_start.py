"""A new execution's first pass is recorded while the sandbox starts (issue 12), and that
promises as much as recording it first: no request of the pass is answered and nothing is
shown or returned before the record is committed, and a record that cannot be committed
stops the pass with nothing executed and the caller told."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.connectors.base import ExecutionContext
from codemode_kernel.errors import StoreError
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.journal import JournalStore
from tests.conftest import RuntimeFactory, StoreSql

pytestmark = pytest.mark.anyio


class StartFails(JournalStore):
    """A store that cannot record a new execution (as when the disk is full or the file locked)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.attempts = 0

    def start_execution(self, *args: Any, **kwargs: Any) -> int:
        self.attempts += 1
        raise StoreError(self.where, "could not be written (the disk is full)", "Free some space.")


def _counter() -> tuple[ToolSetConnector, dict[str, int]]:
    calls = {"bump": 0}

    def bump() -> int:
        """Count one call."""
        calls["bump"] += 1
        return calls["bump"]

    return ToolSetConnector([bump], name="counter"), calls


async def test_a_pass_whose_start_cannot_be_recorded_executes_nothing_and_says_so(
        make_runtime: RuntimeFactory, db_url: str) -> None:
    conn, calls = _counter()
    store = StartFails(db_url)
    rt = make_runtime([conn], store=store)
    shown: list[str] = []
    out = await rt.execute("print('before the call')\ncounter.bump()\nprint('after')\n'done'",
                           on_output=shown.append)
    assert out["status"] == "error" and out["error_type"] == "StoreError", out
    assert "disk is full" in out["error"]
    assert calls == {"bump": 0}
    assert shown == []  # nothing of a pass that cannot be recorded reaches the caller
    assert store.attempts == 1
    assert await rt.executions() == []


async def test_a_pass_still_computing_is_stopped_when_its_start_cannot_be_recorded(db_url: str) -> None:
    """The failure does not wait for the pass to end by itself (here: never, within its 120 s limit)."""
    conn, calls = _counter()
    rt = CodemodeRuntime([conn], store=StartFails(db_url),
                         executor=SubprocessExecutor(limits=replace(Limits(), timeout=120)))
    try:
        out = await asyncio.wait_for(rt.execute("while True:\n    pass\ncounter.bump()"), timeout=30)
        assert out["status"] == "error" and out["error_type"] == "StoreError", out
        assert calls == {"bump": 0}
        assert rt.interrupt() is False  # no pass is left running
        follow = await rt.execute("1 + 1")  # the runtime works on (and the store still fails)
        assert follow["error_type"] == "StoreError"
    finally:
        await rt.aclose()


async def test_no_request_is_answered_before_the_start_is_recorded(
        make_runtime: RuntimeFactory, store_sql: StoreSql, monkeypatch: pytest.MonkeyPatch) -> None:
    """However late the overlapped commit would come, the first request commits it first: the
    connector finds its execution in the store (read over a connection of its own)."""
    seen: list[list[tuple[Any, ...]]] = []

    def look(ctx: ExecutionContext) -> str:
        """Read this execution's record from outside the runtime."""
        seen.append(store_sql("SELECT status, passes FROM codemode_executions WHERE id = :id",
                              id=ctx.execution_id))
        return "looked"

    def never(callback: Callable[[], None], soon: bool) -> None:
        """The overlapped commit never comes by itself."""

    monkeypatch.setattr(CodemodeRuntime, "_schedule_begin", staticmethod(never))
    rt = make_runtime([ToolSetConnector([look], name="store")])
    shown: list[str] = []
    out = await rt.execute("seen = store.look()\nprint('hi')\nseen", on_output=shown.append)
    assert out["status"] == "completed" and out["result"] == "looked", out
    assert seen == [[("running", 1)]]
    assert "".join(shown) == "hi\n"
    quiet = await rt.execute("40 + 2")  # no request at all: recorded before the result is returned
    assert quiet["result"] == 42
    assert store_sql("SELECT status FROM codemode_executions WHERE id = :id",
                     id=quiet["execution_id"]) == [("completed",)]


async def test_a_late_start_failure_stops_the_pass_at_its_first_request(
        make_runtime: RuntimeFactory, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the failing commit is first tried by a request (not overlapped), that request and
    every later one are refused and nothing runs."""
    conn, calls = _counter()
    monkeypatch.setattr(CodemodeRuntime, "_schedule_begin", staticmethod(lambda callback, soon: None))
    rt = make_runtime([conn], store=StartFails(db_url))
    shown: list[str] = []
    out = await rt.execute("print('hi')\ntry:\n    counter.bump()\nexcept BaseException:\n    pass\ncounter.bump()",
                           on_output=shown.append)
    assert out["status"] == "error" and out["error_type"] == "StoreError", out
    assert calls == {"bump": 0}
    assert shown == []
