"""Review of the thread-written replies (issue 12), through the whole runtime: races and durability.

Since f706bf3 a call to a synchronous connector is answered by the connector's own thread, and
its outcome is adopted by the loop and committed with the next call's mark, by a timer, or by
``flush()``. These specs attack that from the outside, over a real store (SQLite file and
PostgreSQL) and, where the thread path is what is attacked, real worker processes:

- every outcome is committed before the next request is answered, before the pass's end is
  recorded and before ``execute()`` returns (looked at from a connection of the spec's own);
- replies never cross between two executions running at once;
- a connector that never returns holds neither another execution, nor the next pass, nor
  ``aclose()``; a user's interrupt ends the pass at once;
- every call runs exactly once across pause, approval and replay (counters);
- a host killed while a thread-answered call is in flight leaves that call ``executing``,
  never ``applied`` without its result.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, Connector, ExecutionContext, Tool, ToolSetConnector, passes, tool
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.journal import JournalStore
from tests.conftest import RuntimeFactory, StoreSql, make_executor

pytestmark = pytest.mark.anyio

DEADLINE = 30.0  # seconds a spec waits for something that must come (a liveness bound, not a speed figure)
FINAL = ("applied", "error")


class Counting(Connector):
    """Synchronous methods that count their runs and look at the store from outside when called."""

    name = "p"

    def __init__(self, store_sql: StoreSql) -> None:
        self.runs: Counter[tuple[str, Any]] = Counter()
        self.seen: list[tuple[int, list[tuple[Any, ...]]]] = []  # (seq, committed entries) at each write
        self.release = threading.Event()
        self.entered = threading.Event()
        self._sql = store_sql

    def entries(self, execution_id: str) -> list[tuple[Any, ...]]:
        return self._sql("SELECT seq, state, result FROM codemode_entries WHERE execution_id = :e ORDER BY seq",
                         e=execution_id)

    def write(self, n: int, ctx: ExecutionContext) -> int:
        """Record a number."""
        self.runs["write", n] += 1
        self.seen.append((ctx.seq, self.entries(ctx.execution_id)))
        return n * 10

    def tag(self, i: int, ctx: ExecutionContext) -> str:
        """Say which execution and call this is."""
        self.runs["tag", ctx.execution_id, i] += 1
        if i % 7 == 0:
            threading.Event().wait(0.002)  # a slower call now and then: the threads' answers interleave
        return f"{ctx.execution_id}:{ctx.seq}:{i}"

    def gate(self, n: int) -> int:
        """An action a person approves."""
        self.runs["gate", n] += 1
        return n + 100

    def hang(self, n: int) -> int:
        """Block until the spec lets go (a connector that never returns while the spec looks)."""
        self.runs["hang", n] += 1
        self.entered.set()
        self.release.wait(DEADLINE * 2)
        return n

    def tools(self) -> dict[str, Tool]:
        return {"write": tool(self.write), "tag": tool(self.tag), "gate": tool(self.gate, requires_approval=True),
                "hang": tool(self.hang)}


@pytest.fixture
def counting(store_sql: StoreSql) -> Iterator[Counting]:
    made = Counting(store_sql)
    yield made
    made.release.set()


def final(rows: list[tuple[Any, ...]]) -> bool:
    return all(state in FINAL for _seq, state, _result in rows)


# -- durability: committed before the next request, the pass's end, and execute()'s return ------


class Watching(JournalStore):
    """A store that looks at the committed entries (from outside) whenever the runtime writes."""

    def __init__(self, url: str, store_sql: StoreSql) -> None:
        super().__init__(url)
        self.sql = store_sql
        self.at: list[tuple[str, Any, list[tuple[Any, ...]]]] = []

    def _look(self, what: str, subject: Any, execution_id: str) -> None:
        self.at.append((what, subject, self.sql(
            "SELECT seq, state, result FROM codemode_entries WHERE execution_id = :e ORDER BY seq", e=execution_id)))

    def insert_entry(self, conn: Any, runtime: str, execution_id: str, seq: int, *args: Any, **kwargs: Any) -> bool:
        finish = kwargs.get("finish")
        self._look("insert", (seq, None if finish is None else finish.seq), execution_id)
        return super().insert_entry(conn, runtime, execution_id, seq, *args, **kwargs)

    def transition(self, conn: Any, runtime: str, execution_id: str, expected: Any, status: str,
                   **fields: Any) -> bool:
        self._look("transition", status, execution_id)
        return super().transition(conn, runtime, execution_id, expected, status, **fields)


DURABLE = """
a = p.write(n=1)
s = codemode.step('s', lambda: a + 1)
b = p.write(n=2)
found = codemode.search('write')
c = p.write(n=3)
print(a, s, b, c)
d = [p.write(n=k) for k in (4, 5, 6)]
[a, s, b, c, d]
"""


@pytest.mark.parametrize("timer", ["timer", "no-timer"])
async def test_each_outcome_is_committed_before_the_next_request_the_end_and_the_return(
        make_runtime: RuntimeFactory, db_url: str, store_sql: StoreSql, counting: Counting,
        monkeypatch: pytest.MonkeyPatch, timer: str) -> None:
    """It is an error if a thread-answered call's outcome is not yet committed when a step is recorded, when the
    next call is marked (unless it rides in that very commit), when the pass's end is recorded, or when execute()
    returns. "no-timer": the outcome timer never fires (as tests/reliability/host.py sets it), so the next
    request and the pass's end alone must take every outcome."""
    if timer == "no-timer":
        monkeypatch.setattr(passes, "OUTCOME_BOUND", 3600.0)  # read when the runtime makes each pass's handler
    store = Watching(db_url, store_sql)
    rt = make_runtime([counting], store=store)
    out = await rt.execute(DURABLE)
    assert out["status"] == "completed", out
    assert out["result"] == [10, 11, 20, 30, [40, 50, 60]]
    rows = counting.entries(out["execution_id"])
    assert rows == [(0, "applied", "10"), (1, "applied", "11"), (2, "applied", "20"), (3, "applied", "30"),
                    (4, "applied", "40"), (5, "applied", "50"), (6, "applied", "60")]
    for what, subject, seen in store.at:
        if what == "insert":
            seq, carried = subject
            earlier = [r for r in seen if r[0] < seq and r[0] != carried]
            assert final(earlier), (what, subject, seen)
        else:
            assert subject == "completed" and final(seen) and len(seen) == 7, (what, subject, seen)
    assert [what for what, _s, _seen in store.at].count("transition") == 1
    for seq, seen in counting.seen:  # each call ran with every earlier call's outcome committed
        assert final([r for r in seen if r[0] < seq]) and (seq, "executing", None) in seen
    assert counting.runs == Counter({("write", k): 1 for k in range(1, 7)})


# -- two executions at once ---------------------------------------------------------------


async def test_replies_never_cross_between_two_executions_running_at_once(
        make_runtime: RuntimeFactory, counting: Counting) -> None:
    """Two executions that each make sixty sync calls at the same time each get only their own replies, in order,
    and each call runs once and is stored under its own execution."""
    rt = make_runtime([counting])
    code = "[p.tag(i=i) for i in range(60)]"
    first, second = await asyncio.wait_for(asyncio.gather(rt.execute(code), rt.execute(code)), DEADLINE * 2)
    for out in (first, second):
        assert out["status"] == "completed", out
        eid = out["execution_id"]
        assert out["result"] == [f"{eid}:{i}:{i}" for i in range(60)]
        rows = counting.entries(eid)
        assert rows == [(i, "applied", json.dumps(f"{eid}:{i}:{i}")) for i in range(60)]
        assert all(counting.runs["tag", eid, i] == 1 for i in range(60))
    assert first["execution_id"] != second["execution_id"]
    assert sum(counting.runs.values()) == 120


# -- a connector that never returns -------------------------------------------------------


@pytest.fixture
async def isolated_runtime(db_url: str, counting: Counting) -> Any:
    rt = CodemodeRuntime([counting], store=db_url, executor=SubprocessExecutor())
    yield rt
    counting.release.set()
    await rt.aclose()


async def until(predicate: Any) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while not predicate():
        assert loop.time() < end, "it never came"
        await asyncio.sleep(0.005)


async def test_a_hung_connector_holds_neither_another_execution_nor_the_next_pass_and_interrupt_ends_it(
        isolated_runtime: CodemodeRuntime, counting: Counting) -> None:
    """While one execution waits on a connector that does not return, another runs its sync calls to completion;
    Interrupt ends the hung pass as Interrupted with its call left executing (its outcome is unknown); the next
    pass runs; and the late answer, when it comes, is stored once, never as a result it did not return."""
    rt = isolated_runtime
    hung = asyncio.ensure_future(rt.execute("p.hang(n=1)\np.write(n=99)"))
    await until(counting.entered.is_set)
    other = await asyncio.wait_for(rt.execute("[p.write(n=i) for i in range(20)]"), DEADLINE)
    assert other["status"] == "completed", other
    assert other["result"] == [i * 10 for i in range(20)]
    assert not hung.done()
    assert rt.executor.interrupt()
    out = await asyncio.wait_for(hung, DEADLINE)
    assert out["status"] == "error" and out["error_type"] == "Interrupted", out
    assert counting.entries(out["execution_id"]) == [(0, "executing", None)]
    after = await asyncio.wait_for(rt.execute("p.write(n=5)"), DEADLINE)
    assert after["status"] == "completed" and after["result"] == 50, after
    counting.release.set()
    await asyncio.sleep(0.2)  # the thread answers a pass that is over
    assert counting.entries(out["execution_id"]) in ([(0, "executing", None)], [(0, "applied", "1")])
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "error"
    assert counting.runs[("hang", 1)] == 1 and counting.runs[("write", 99)] == 0


async def test_closing_the_runtime_while_a_connector_hangs_returns_and_the_late_answer_writes_nothing_applied(
        db_url: str, store_sql: StoreSql, counting: Counting) -> None:
    """Closing the runtime (the host going away) while a sync connector is inside its call returns within the
    executor's bound; the execution is left with that call executing, and the answer that comes after the close
    stores nothing: no entry is ever applied without its result."""
    rt = CodemodeRuntime([counting], store=db_url, executor=SubprocessExecutor())
    try:
        hung = asyncio.ensure_future(rt.execute("p.write(n=1)\np.hang(n=2)"))
        await until(counting.entered.is_set)
        await asyncio.wait_for(rt.aclose(), DEADLINE)
        out = await asyncio.wait_for(hung, DEADLINE)
        assert out["status"] == "error", out
        rows = counting.entries(out["execution_id"])
        assert rows == [(0, "applied", "10"), (1, "executing", None)]
        counting.release.set()
        await asyncio.sleep(0.2)
        assert counting.entries(out["execution_id"]) == rows
        assert counting.runs == Counter({("write", 1): 1, ("hang", 2): 1})
    finally:
        counting.release.set()
        await rt.aclose()


# -- exactly once across pause, approval and replay -----------------------------------------


async def test_every_call_runs_once_across_pause_approval_and_replay(
        make_runtime: RuntimeFactory, counting: Counting) -> None:
    """Sync calls before and after an approval run once each: the first pass pauses, the approved pass replays
    the earlier calls from the journal, runs the approved one once and the rest once; every outcome is stored."""
    rt = make_runtime([counting])
    code = "a = [p.write(n=i) for i in range(5)]\ng = p.gate(n=7)\nb = [p.write(n=i) for i in range(5, 10)]\n[a, g, b]"
    paused = await rt.execute(code)
    assert paused["status"] == "paused", paused
    eid = paused["execution_id"]
    assert counting.entries(eid)[:5] == [(i, "applied", str(i * 10)) for i in range(5)]
    done = await rt.approve(eid)
    assert done["status"] == "completed", done
    assert done["result"] == [[i * 10 for i in range(5)], 107, [i * 10 for i in range(5, 10)]]
    assert counting.runs == Counter({**{("write", i): 1 for i in range(10)}, ("gate", 7): 1})
    rows = counting.entries(eid)
    assert [r[1] for r in rows] == ["applied"] * 11
    assert rows[5] == (5, "applied", "107")
    again = await rt.approve(eid)  # a stale approval runs nothing
    assert again["status"] == "error"
    assert sum(counting.runs.values()) == 11


# -- a host that dies while a thread-answered call is in flight --------------------------------


HOST = r'''
import asyncio, os, signal, sys, threading
from codemode_kernel import CodemodeRuntime, Connector, tool
from codemode_kernel.executor.isolated import SubprocessExecutor

DELAY = float(sys.argv[2])

class P(Connector):
    name = "p"
    def write(self, n: int) -> int:
        """Record a number."""
        return n * 10
    def die_soon(self, n: int) -> int:
        """Kill this host a little after returning (while the sandbox computes on)."""
        threading.Timer(DELAY, os.kill, (os.getpid(), signal.SIGKILL)).start()
        return n
    def die_now(self, n: int) -> int:
        """Kill this host inside the call."""
        os.kill(os.getpid(), signal.SIGKILL)
    def tools(self):
        return {"write": tool(self.write), "die_soon": tool(self.die_soon), "die_now": tool(self.die_now)}

async def main():
    rt = CodemodeRuntime([P()], store=sys.argv[1], executor=SubprocessExecutor())
    print(await rt.execute(sys.argv[3]), flush=True)
    await rt.aclose()

asyncio.run(main())
'''


@pytest.mark.parametrize("delay", [0.0, 0.0005, 0.002, 0.02])
async def test_a_host_killed_around_a_thread_answered_call_never_leaves_it_applied_without_its_result(
        tmp_path: Path, db_url: str, store_sql: StoreSql, delay: float) -> None:
    """A host process SIGKILLed just after a sync connector's thread answered (the outcome may wait for a commit),
    or inside the next call: the execution stays running; each entry is executing with no result or applied with
    the result the connector returned, and the call made before the killing one is applied (its outcome rode in
    that call's mark)."""
    script = tmp_path / "host.py"
    script.write_text(HOST)
    code = textwrap.dedent("""
        a = p.write(n=1)
        b = p.die_soon(n=2)
        x = 0
        for i in range(3000000):
            x += i
        p.die_now(n=3)
    """)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = await asyncio.to_thread(subprocess.run, [sys.executable, str(script), db_url, str(delay), code],
                                   capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == -9, (done.stdout, done.stderr[-2000:])
    executions = store_sql("SELECT id, status FROM codemode_executions")
    assert len(executions) == 1 and executions[0][1] == "running", executions
    rows = store_sql("SELECT seq, state, result FROM codemode_entries ORDER BY seq")
    assert rows[0] == (0, "applied", "10"), rows
    assert rows[1] in ((1, "executing", None), (1, "applied", "2")), rows
    assert rows[2:] in ([], [(2, "executing", None)]), rows
    for _seq, state, result in rows:
        assert (state, result is None) in (("executing", True), ("applied", False)), rows


# -- a late answer, the next pass's worker, and connectors that do odd things ------------------


async def test_a_call_answered_after_its_pass_timed_out_never_reaches_the_next_pass_s_worker(
        db_url: str, counting: Counting) -> None:
    """A pass stopped by its wall-clock limit while a sync connector runs: the connector answers while the next
    pass (a fresh worker, whose pipes may take the old numbers) makes 150 calls; that pass gets exactly its own
    replies, and the late call ran once."""
    executor = SubprocessExecutor(Limits(timeout=3.0))
    rt = CodemodeRuntime([counting], store=db_url, executor=executor)
    try:
        out = await asyncio.wait_for(rt.execute("p.hang(n=424242)"), DEADLINE)
        assert out["status"] == "error" and out["error_type"] == "Timeout", out
        # The next pass gets a limit it cannot reach: its 150 calls took over 3 s at load 8 (it
        # then timed out, 1 run in 12). The executor reads its limits as each pass starts.
        executor.limits = dataclasses.replace(executor.limits, timeout=DEADLINE * 2)
        following = asyncio.ensure_future(rt.execute("[p.tag(i=i) for i in range(150)]"))
        await until(lambda: any(key[0] == "tag" and key[2] == 5 for key in counting.runs))
        counting.release.set()  # the late answer is made while the next pass runs
        done = await asyncio.wait_for(following, DEADLINE)
        assert done["status"] == "completed", done
        eid = done["execution_id"]
        assert done["result"] == [f"{eid}:{i}:{i}" for i in range(150)]
        assert counting.runs[("hang", 424242)] == 1
    finally:
        counting.release.set()
        await rt.aclose()


class Reentrant(Connector):
    """A sync connector whose method runs a nested execution on the same runtime, on the host's loop."""

    name = "r"

    def __init__(self) -> None:
        self.runtime: CodemodeRuntime | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.runs = Counter[str]()

    def nested(self, n: int) -> Any:
        """Run an execution inside this call and return its output."""
        self.runs["nested"] += 1
        assert self.runtime is not None and self.loop is not None
        code = f"[r.plain(n={n}), r.plain(n={n + 1})]"
        return asyncio.run_coroutine_threadsafe(self.runtime.execute(code), self.loop).result(DEADLINE)

    def plain(self, n: int) -> int:
        """A number."""
        self.runs["plain", n] += 1
        return n

    def tools(self) -> dict[str, Tool]:
        return {"nested": tool(self.nested), "plain": tool(self.plain)}


async def test_a_connector_that_reenters_the_runtime_from_its_thread_gets_its_own_execution(
        make_runtime: RuntimeFactory, store_sql: StoreSql) -> None:
    """A sync connector that runs a whole execution on the same runtime while its own call is open: the nested
    execution completes with its own replies, the outer one gets the nested output as its call's result, and each
    call runs once and is stored under its own execution."""
    connector = Reentrant()
    rt = make_runtime([connector])
    connector.runtime, connector.loop = rt, asyncio.get_running_loop()
    out = await asyncio.wait_for(rt.execute("a = r.nested(n=1)\nb = r.plain(n=9)\n[a, b]"), DEADLINE)
    assert out["status"] == "completed", out
    inner, b = out["result"]
    assert b == 9
    assert inner["status"] == "completed" and inner["result"] == [1, 2]
    assert inner["execution_id"] != out["execution_id"]
    outer_rows = store_sql("SELECT seq, state FROM codemode_entries WHERE execution_id = :e ORDER BY seq",
                           e=out["execution_id"])
    inner_rows = store_sql("SELECT seq, state, result FROM codemode_entries WHERE execution_id = :e ORDER BY seq",
                           e=inner["execution_id"])
    assert outer_rows == [(0, "applied"), (1, "applied")]
    assert inner_rows == [(0, "applied", "1"), (1, "applied", "2")]
    assert connector.runs == Counter({"nested": 1, ("plain", 1): 1, ("plain", 2): 1, ("plain", 9): 1})


async def test_an_awaitable_that_never_finishes_is_ended_by_interrupt_and_holds_nothing_else(
        db_url: str, counting: Counting) -> None:
    """A sync connector that returns an awaitable which never completes (awaited on the loop): Interrupt ends the
    pass as Interrupted with the call executing, the next pass runs, and closing the runtime returns."""
    forever = asyncio.Event()
    started = threading.Event()

    def stuck(n: int) -> Any:
        """A sync wrapper around async code that never finishes."""
        started.set()

        async def wait() -> int:
            await forever.wait()
            return n

        return wait()

    rt = CodemodeRuntime([counting, ToolSetConnector([stuck], name="q")], store=db_url, executor=SubprocessExecutor())
    try:
        running = asyncio.ensure_future(rt.execute("q.stuck(n=1)"))
        await until(started.is_set)
        await asyncio.sleep(0.05)
        assert rt.executor.interrupt()
        out = await asyncio.wait_for(running, DEADLINE)
        assert out["status"] == "error" and out["error_type"] == "Interrupted", out
        assert counting.entries(out["execution_id"]) == [(0, "executing", None)]
        after = await asyncio.wait_for(rt.execute("p.write(n=4)"), DEADLINE)
        assert after["status"] == "completed" and after["result"] == 40, after
    finally:
        await asyncio.wait_for(rt.aclose(), DEADLINE)
        forever.set()


async def test_execute_cancelled_as_the_thread_answers_still_stores_the_call_once(
        db_url: str, store_sql: StoreSql, executor_kind: str) -> None:
    """The connector's own thread cancels the caller's execute() just before it returns, twenty times: each
    execute() raises CancelledError, and each call ran once and is stored applied with its result (the end of the
    pass waits for the reply owed, the cancelled runtime flushes the outcome it left, and an outcome that comes
    later still is committed when it comes).

    An outcome that comes after execute() has returned is committed through a session of its own
    (PassHandler.release): before, it went to the pass's journal connection, which the runtime had given back
    (closed on PostgreSQL: the outcome was lost in 2 of 6 runs under load; issue 12 review)."""
    loop = asyncio.get_running_loop()
    current: dict[str, asyncio.Future[Any]] = {}
    runs: Counter[int] = Counter()

    def write(n: int) -> int:
        """Cancel the caller, then answer."""
        runs[n] += 1
        loop.call_soon_threadsafe(current["task"].cancel)
        return n * 10

    rt = CodemodeRuntime([ToolSetConnector([write], name="p")], store=db_url, executor=make_executor(executor_kind))
    try:
        for i in range(20):
            task = current["task"] = asyncio.ensure_future(
                rt.execute(f"p.write(n={i})\nx = 0\nfor k in range(100000):\n    x += k"))
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(task), DEADLINE)
        await until(lambda: [r[0] for r in store_sql("SELECT state FROM codemode_entries")] == ["applied"] * 20)
    finally:
        await rt.aclose()
    rows = store_sql("SELECT n.state, n.result FROM codemode_entries n")
    assert sorted(rows, key=lambda r: int(r[1])) == [("applied", str(i * 10)) for i in range(20)]
    assert runs == Counter({i: 1 for i in range(20)})


@pytest.mark.parametrize(("ending", "status"), [("1 / 0", "error"), ("p.gate(n=1)", "paused"),
                                                ("codemode.step('s', lambda: len(b))", "completed")])
async def test_the_last_thread_answered_outcome_is_committed_before_any_end_of_the_pass(
        make_runtime: RuntimeFactory, db_url: str, store_sql: StoreSql, counting: Counting,
        monkeypatch: pytest.MonkeyPatch, ending: str, status: str) -> None:
    """Sync calls back to back and then the pass fails, pauses or completes: when its end is recorded every call
    before it is applied (the outcome timer off, so nothing but the end's own flush can have stored the last)."""
    monkeypatch.setattr(passes, "OUTCOME_BOUND", 3600.0)
    store = Watching(db_url, store_sql)
    rt = make_runtime([counting], store=store)
    out = await rt.execute(f"b = [p.write(n=k) for k in range(3)]\n{ending}")
    assert out["status"] == status, out
    ends = [seen for what, _subject, seen in store.at if what == "transition"]
    assert len(ends) == 1, store.at
    assert [r[:2] for r in ends[0]][:3] == [(0, "applied"), (1, "applied"), (2, "applied")], ends
    assert counting.runs == Counter({("write", k): 1 for k in range(3)})
