"""A connector thread that holds the conversation (issue 12): while a pass makes sync calls, the
thread that ran one call reads the worker's next request itself, marks, runs and answers it, and
gives the conversation (and the pass's journal) back to the loop for anything else.

Real worker processes (the isolated executor), real stores (SQLite file and PostgreSQL). Each spec
asserts what a user sees or the store holds, with counters for exactly-once:

- a kept outcome is committed by the holding thread when no request follows within the bound;
- printed text during a run of sync calls reaches the output callback, on the loop, in order;
- an interrupt while the thread holds the conversation (in a connector, or reading) ends the pass
  at once, and the call in flight is stored when it returns; a timeout likewise;
- async calls between runs of sync calls take the conversation back and give it again;
- the pass's journal has one user at a time (never the loop while a thread holds it).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, Connector, Tool, passes, tool
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.journal import JournalStore
from tests.conftest import StoreSql
from tests.runtime.settled_entries import settled

pytestmark = pytest.mark.anyio

DEADLINE = 30.0  # seconds a spec waits for what must come (a liveness bound, not a speed figure)


class Calls(Connector):
    """Sync and async methods that count their runs (and where they ran)."""

    name = "p"

    def __init__(self) -> None:
        self.runs: Counter[tuple[str, int]] = Counter()
        self.threads: set[int] = set()
        self.entered = threading.Event()
        self.release = threading.Event()

    def write(self, n: int) -> int:
        """Record a number."""
        self.runs["write", n] += 1
        self.threads.add(threading.get_ident())
        return n * 10

    async def awrite(self, n: int) -> int:
        """Record a number, asynchronously."""
        self.runs["awrite", n] += 1
        return n * 100

    def slow_write(self, n: int) -> int:
        """Record a number, slowly (a pass's time limit most likely ends while a call of it runs)."""
        self.runs["slow_write", n] += 1
        time.sleep(0.02)
        return n * 10

    def hang(self, n: int) -> int:
        """Block until the spec lets go."""
        self.runs["hang", n] += 1
        self.entered.set()
        self.release.wait(DEADLINE * 2)
        return n + 1

    def tools(self) -> dict[str, Tool]:
        return {"write": tool(self.write), "awrite": tool(self.awrite), "slow_write": tool(self.slow_write),
                "hang": tool(self.hang)}


class Users(JournalStore):
    """A store that records which thread wrote each call's mark and outcome, and any overlap of two users."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.busy = threading.Lock()
        self.holder: int | None = None
        self.depth = 0
        self.overlaps = 0
        self.finished_on: dict[int, int] = {}  # seq -> thread that committed its outcome on its own
        self.uses: Counter[int] = Counter()    # thread -> journal writes of a call

    def _enter(self) -> None:
        me = threading.get_ident()
        if self.holder == me:  # a mark's commit finishes the call before it on the same connection
            self.depth += 1
            return
        if not self.busy.acquire(blocking=False):
            self.overlaps += 1
            self.busy.acquire()
        self.holder, self.depth = me, 1
        self.uses[me] += 1

    def _leave(self) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.holder = None
            self.busy.release()

    def insert_entry(self, *args: Any, **kwargs: Any) -> bool:
        self._enter()
        try:
            return super().insert_entry(*args, **kwargs)
        finally:
            self._leave()

    def finish_entry(self, conn: Any, runtime: str, execution_id: str, seq: int, *args: Any, **kwargs: Any) -> None:
        self._enter()
        try:
            self.finished_on[seq] = threading.get_ident()
            super().finish_entry(conn, runtime, execution_id, seq, *args, **kwargs)
        finally:
            self._leave()


@pytest.fixture
def calls() -> Iterator[Calls]:
    made = Calls()
    yield made
    made.release.set()


@pytest.fixture
async def runtime(db_url: str, calls: Calls) -> AsyncIterator[CodemodeRuntime]:
    rt = CodemodeRuntime([calls], store=Users(db_url), executor=SubprocessExecutor())
    yield rt
    calls.release.set()
    await rt.aclose()


def rows(store_sql: StoreSql, execution_id: str) -> list[tuple[Any, ...]]:
    return store_sql("SELECT seq, method, state, result FROM codemode_entries WHERE execution_id = :e ORDER BY seq",
                     e=execution_id)


async def test_a_kept_outcome_is_committed_by_the_holding_thread_when_no_request_follows(
        runtime: CodemodeRuntime, calls: Calls, store_sql: StoreSql) -> None:
    """Three sync calls, then the sandbox computes for a while: before the pass ends, the last call's
    outcome is committed, by the connector's thread that held the conversation (not by the loop)."""
    store = runtime.store
    assert isinstance(store, Users)
    code = "[p.write(n=k) for k in range(3)]\nimport time\ntime.sleep(1.5)\n'slept'"
    task = asyncio.ensure_future(runtime.execute(code))
    seen: list[tuple[Any, ...]] = []
    loop_thread = threading.get_ident()
    end = asyncio.get_running_loop().time() + DEADLINE
    while not task.done() and asyncio.get_running_loop().time() < end:
        found = store_sql("SELECT seq, state FROM codemode_entries ORDER BY seq")
        if found and found[-1] == (2, "applied"):
            seen = found
            break
        await asyncio.sleep(0.005)
    assert not task.done(), "the pass ended before its last outcome was seen committed"
    assert seen == [(0, "applied"), (1, "applied"), (2, "applied")]
    out = await asyncio.wait_for(task, DEADLINE)
    assert out["status"] == "completed" and out["result"] == "slept", out
    assert store.finished_on[2] != loop_thread and store.finished_on[2] in calls.threads
    assert calls.runs == Counter({("write", k): 1 for k in range(3)})
    assert store.overlaps == 0


async def test_output_during_a_run_of_sync_calls_reaches_the_callback_in_order(
        runtime: CodemodeRuntime, calls: Calls, store_sql: StoreSql) -> None:
    """A loop that prints and calls, 300 times: every line reaches the output callback once, in order, on
    the loop's thread, and the logs hold the same; each call ran once and is stored."""
    got: list[str] = []
    where: set[int] = set()

    def on_output(text: str) -> None:
        got.append(text)
        where.add(threading.get_ident())

    code = "for i in range(300):\n    print('line', i)\n    p.write(n=i)\nprint('end')\n'ok'"
    out = await runtime.execute(code, on_output=on_output)
    assert out["status"] == "completed", out
    expected = [f"line {i}" for i in range(300)] + ["end"]
    assert "".join(got).splitlines() == expected
    assert out["logs"] == expected
    assert where == {threading.get_ident()}
    assert calls.runs == Counter({("write", i): 1 for i in range(300)})
    assert rows(store_sql, out["execution_id"]) == [(i, "write", "applied", str(i * 10)) for i in range(300)]


async def test_interrupt_while_the_holding_thread_runs_a_connector_ends_the_pass_and_stores_the_call_later(
        runtime: CodemodeRuntime, calls: Calls, store_sql: StoreSql) -> None:
    """Fifty sync calls, then one that blocks on the thread that holds the conversation: an interrupt ends the
    pass as Interrupted while it blocks; when it returns, its outcome is stored; every call ran once; the next
    pass of the runtime runs its own sync calls."""
    task = asyncio.ensure_future(runtime.execute("[p.write(n=k) for k in range(50)]\np.hang(n=7)\n'never'"))
    assert await asyncio.to_thread(calls.entered.wait, DEADLINE)
    assert runtime.executor.interrupt()
    out = await asyncio.wait_for(task, DEADLINE)
    assert out["status"] == "error" and out["error_type"] == "Interrupted", out
    eid = out["execution_id"]
    assert rows(store_sql, eid)[:50] == [(k, "write", "applied", str(k * 10)) for k in range(50)]
    assert rows(store_sql, eid)[50][:3] == (50, "hang", "executing")
    nxt = await asyncio.wait_for(runtime.execute("[p.write(n=k) for k in range(100, 110)]"), DEADLINE)
    assert nxt["status"] == "completed" and nxt["result"] == [k * 10 for k in range(100, 110)], nxt
    calls.release.set()
    end = asyncio.get_running_loop().time() + DEADLINE
    while rows(store_sql, eid)[50][2] != "applied" and asyncio.get_running_loop().time() < end:
        await asyncio.sleep(0.01)
    assert rows(store_sql, eid)[50] == (50, "hang", "applied", "8")
    assert calls.runs == Counter({("hang", 7): 1} | {("write", k): 1 for k in [*range(50), *range(100, 110)]})
    store = runtime.store
    assert isinstance(store, Users) and store.overlaps == 0


@pytest.mark.parametrize("method", ["write", "slow_write"])
async def test_a_timeout_during_a_run_of_sync_calls_stops_it_and_every_call_that_ran_is_stored_once(
        db_url: str, calls: Calls, store_sql: StoreSql, method: str) -> None:
    """A pass that calls without end is stopped by its timeout while a thread holds the conversation: Timeout,
    and every call that ran is stored applied with its result, each exactly once. The call the thread was
    running when the time ran out (most likely with ``slow_write``) is stored when it returns, after the
    pass has ended (the interrupt spec below, likewise): the spec waits for that, bounded."""
    store = Users(db_url)
    rt = CodemodeRuntime([calls], store=store,
                         executor=SubprocessExecutor(replace(Limits(), timeout=1.0)))
    try:
        out = await asyncio.wait_for(rt.execute(f"k = 0\nwhile True:\n    p.{method}(n=k)\n    k += 1"), DEADLINE)
        assert out["status"] == "error" and out["error_type"] == "Timeout", out
        await settled(db_url, out["execution_id"], DEADLINE)
        found = rows(store_sql, out["execution_id"])
        assert len(found) > 10
        assert found == [(k, method, "applied", str(k * 10)) for k in range(len(found))]
        assert calls.runs == Counter({(method, k): 1 for k in range(len(found))})
        assert store.overlaps == 0
    finally:
        await rt.aclose()


async def test_async_calls_between_runs_of_sync_calls_take_the_conversation_back_and_give_it_again(
        runtime: CodemodeRuntime, calls: Calls, store_sql: StoreSql) -> None:
    """Runs of four sync calls with an async call between them, a step and a search among them: each answer
    right, each call once, stored in order; the journal had one user at a time, and both the loop and a
    connector thread wrote to it."""
    code = ("out = [p.awrite(n=i) if i % 5 == 0 else p.write(n=i) for i in range(100)]\n"
            "s = codemode.step('s', lambda: 1)\n"
            "found = codemode.search('write')\n"
            "out + [p.write(n=100 + s), p.awrite(n=200)]")
    out = await runtime.execute(code)
    assert out["status"] == "completed", out
    want = [i * 100 if i % 5 == 0 else i * 10 for i in range(100)]
    assert out["result"] == [*want, 1010, 20000]
    stored = rows(store_sql, out["execution_id"])
    assert [r[:3] for r in stored] == [(i, "awrite" if i % 5 == 0 else "write", "applied") for i in range(100)] + [
        (100, "s", "applied"), (101, "write", "applied"), (102, "awrite", "applied")]
    assert [r[3] for r in stored[:100]] == [str(v) for v in want]
    assert calls.runs == Counter({("awrite" if i % 5 == 0 else "write", i): 1 for i in range(100)}
                                 | {("write", 101): 1, ("awrite", 200): 1})
    store = runtime.store
    assert isinstance(store, Users)
    assert store.overlaps == 0
    assert threading.get_ident() in store.uses and set(store.uses) & calls.threads


async def test_the_outcome_bound_is_what_commits_a_kept_outcome_on_the_thread(
        runtime: CodemodeRuntime, calls: Calls, store_sql: StoreSql, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the bound set to an hour, the last call's outcome is not committed while the sandbox computes (the
    spec above cannot pass by accident); it is committed before the pass's end is recorded."""
    monkeypatch.setattr(passes, "OUTCOME_BOUND", 3600.0)
    task = asyncio.ensure_future(runtime.execute("x = p.write(n=1)\nimport time\ntime.sleep(2)\nx"))
    end = asyncio.get_running_loop().time() + DEADLINE
    while not store_sql("SELECT seq FROM codemode_entries") and asyncio.get_running_loop().time() < end:
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.1)  # the sandbox sleeps 2 s after its call: the bound would have passed 100 times
    assert not task.done()
    assert store_sql("SELECT seq, state FROM codemode_entries") == [(0, "executing")]
    out = await asyncio.wait_for(task, DEADLINE)
    assert out["status"] == "completed" and out["result"] == 10, out
    assert rows(store_sql, out["execution_id"]) == [(0, "write", "applied", "10")]
    assert calls.runs == Counter({("write", 1): 1})
