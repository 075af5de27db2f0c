"""Closing a runtime does not wait for a connector hung in its call (issue 12, review "noticed").

Before, ``aclose()`` took 0.01 s with a sync connector hung (its thread holds nothing of the pass)
but 5 s with an async one: the isolated executor waited that long for the pass's conversation,
which was awaiting the connector. Now the hung coroutine is cancelled (async code is
cancellable) after a short grace, and what did complete is stored, before the close or during it. The loop's task
that awaits an awaitable a sync connector returned (``PassHandler._finish``) no longer stays
pending after the close either. Both executors, SQLite and PostgreSQL.

The bound below is generous on purpose: it proves "does not wait for the hung call" (30 s), not
a speed.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.executor import inprocess, isolated

pytestmark = pytest.mark.anyio
HANG = 30.0


class Counts:
    def __init__(self) -> None:
        self.runs = {"quick": 0, "hang": 0, "cancelled": 0, "later": 0}
        self.entered = asyncio.Event()
        self.go = asyncio.Event()

    def connector(self) -> ToolSetConnector:
        def quick(n: int) -> int:
            """Answer at once."""
            self.runs["quick"] += 1
            return n * 10

        async def hang_async(n: int) -> int:
            """Wait on a host that never answers."""
            self.runs["hang"] += 1
            self.entered.set()
            try:
                await asyncio.sleep(HANG)
            except asyncio.CancelledError:
                self.runs["cancelled"] += 1
                raise
            return n

        def later(n: int) -> Any:
            """A sync wrapper around async code that never finishes."""
            self.runs["later"] += 1

            async def never() -> int:
                self.entered.set()
                await asyncio.Event().wait()
                return n

            return never()

        async def answer_soon(n: int) -> int:
            """Answer once the spec lets go."""
            self.entered.set()
            await self.go.wait()
            return n + 1

        return ToolSetConnector([quick, hang_async, later, answer_soon], name="p")


def _ours() -> list[asyncio.Task[Any]]:
    """Tasks of the runtime or an executor still pending (the test's own task excluded)."""
    me = asyncio.current_task()
    found = []
    for task in asyncio.all_tasks():
        if task is me or task.done():
            continue
        name = getattr(task.get_coro(), "__qualname__", "")
        if any(part in name for part in ("PassHandler", "_Pass", "_ThreadChannel", "converse")):
            found.append(task)
    return found


async def test_aclose_cancels_an_async_connector_hung_in_its_call(make_runtime: Any, store_sql: Any) -> None:
    counts = Counts()
    rt = make_runtime([counts.connector()])
    running = asyncio.ensure_future(rt.execute("a = p.quick(n=4)\nb = p.hang_async(n=1)\n[a, b]"))
    await asyncio.wait_for(counts.entered.wait(), 30)
    started = time.monotonic()
    await asyncio.wait_for(rt.aclose(), HANG)
    assert time.monotonic() - started < 2.0  # against a call that would hang 30 s
    out = await asyncio.wait_for(running, 5)
    assert out["status"] == "error" and out["error_type"] == "Interrupted", out
    assert counts.runs == {"quick": 1, "hang": 1, "cancelled": 1, "later": 0}
    rows = store_sql("SELECT seq, state, result FROM codemode_entries WHERE execution_id = :e ORDER BY seq",
                     e=out["execution_id"])
    # What completed is kept; the cancelled call's outcome is unknown, so it stays executing.
    assert rows == [(0, "applied", "40"), (1, "executing", None)]
    assert _ours() == []


async def test_aclose_leaves_no_task_awaiting_a_sync_connectors_never_finishing_awaitable(
        make_runtime: Any, store_sql: Any) -> None:
    counts = Counts()
    rt = make_runtime([counts.connector()])
    running = asyncio.ensure_future(rt.execute("p.quick(n=2)\np.later(n=1)"))
    await asyncio.wait_for(counts.entered.wait(), 30)
    assert rt.interrupt()
    out = await asyncio.wait_for(running, 30)
    assert out["status"] == "error" and out["error_type"] == "Interrupted", out
    started = time.monotonic()
    await asyncio.wait_for(rt.aclose(), HANG)
    assert time.monotonic() - started < 2.0
    assert _ours() == []
    assert counts.runs["later"] == 1 and counts.runs["quick"] == 1
    rows = store_sql("SELECT seq, state FROM codemode_entries WHERE execution_id = :e ORDER BY seq",
                     e=out["execution_id"])
    assert rows == [(0, "applied"), (1, "executing")]


async def test_an_outcome_that_comes_while_the_runtime_closes_is_stored(
        make_runtime: Any, store_sql: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A long grace, so that the connector surely answers inside it (aclose does not wait it out).
    monkeypatch.setattr(isolated, "CLOSE_GRACE", HANG)
    monkeypatch.setattr(inprocess, "CLOSE_GRACE", HANG)
    counts = Counts()
    rt = make_runtime([counts.connector()])
    running = asyncio.ensure_future(rt.execute("p.answer_soon(n=1)"))
    await asyncio.wait_for(counts.entered.wait(), 30)
    closing = asyncio.ensure_future(rt.aclose())
    out = await asyncio.wait_for(running, 30)  # the pass is over, its end recorded
    assert out["status"] == "error" and out["error_type"] == "Interrupted", out
    counts.go.set()  # the connector answers now, while the executor closes
    await asyncio.wait_for(closing, HANG)
    rows = store_sql("SELECT seq, state, result FROM codemode_entries WHERE execution_id = :e ORDER BY seq",
                     e=out["execution_id"])
    assert rows == [(0, "applied", "2")]
    assert _ours() == []
