"""A synchronous connector's thread writes its call's reply to the worker itself (issue 12).

The host hands a new call of a synchronous connector to a connector thread with a sink; the
thread makes the reply and the call's outcome and writes the reply, and the loop neither waits
nor wakes for it. These pin what that must keep: the outcome is kept before the reply goes, and
committed with the next call's mark, before any other request is answered, within the bound
when nothing comes, and before the pass ends; one writer at a time on the worker's pipe (a
worker that does not wait for its reply gets its replies whole and in order); a stopped pass
is neither crashed nor hung by a thread that answers late. Each runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.catalog import Catalog
from codemode_kernel.executor.base import LaterHost
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.journal import JournalStore
from codemode_kernel.passes import PassHandler, PassState
from codemode_kernel.runtime_journal import RuntimeJournal, open_journal
from tests.conftest import StoreSql
from tests.executor.isolated_support import tampered_executors, wait_gone

pytestmark = pytest.mark.anyio

EXECUTION = "e1"
LONG = 3600.0  # an outcome_bound no spec outlives: the timer never commits
DEADLINE = 30.0
Reply = dict[str, Any]


class Sink:
    """A ReplySink that keeps what it is sent (from any thread)."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.threads: list[str] = []
        self.lock = threading.Lock()

    def send(self, reply: Reply) -> None:
        with self.lock:
            self.replies.append(reply)
            self.threads.append(threading.current_thread().name)

    async def until(self, count: int) -> list[Reply]:
        loop = asyncio.get_running_loop()
        end = loop.time() + DEADLINE
        while len(self.replies) < count:
            assert loop.time() < end, f"only {self.replies} came"
            await asyncio.sleep(0.001)
        return self.replies


class Probe:
    """Synchronous connector methods that look at the store from outside whenever they are called."""

    def __init__(self, store_sql: StoreSql) -> None:
        self.seen: list[list[tuple[Any, ...]]] = []
        self.calls = {"write": 0, "fail": 0, "slow": 0, "odd": 0, "later": 0, "wide": 0}
        self.release = threading.Event()
        self._sql = store_sql

    def entries(self) -> list[tuple[Any, ...]]:
        return self._sql("SELECT seq, state, result, error FROM codemode_entries ORDER BY seq")

    def connector(self) -> ToolSetConnector:
        def write(n: int) -> int:
            """Record a number."""
            self.calls["write"] += 1
            self.seen.append(self.entries())
            return n * 10

        def fail(kind: str) -> None:
            """Raise."""
            self.calls["fail"] += 1
            if kind == "stop":
                raise StopIteration("inside")
            raise KeyError(kind)

        def slow(n: int) -> int:
            """Wait until the test lets go."""
            self.calls["slow"] += 1
            self.release.wait(DEADLINE)
            return n

        def odd(kind: str) -> Any:
            """A value the thread cannot reply with itself."""
            self.calls["odd"] += 1
            if kind == "set":
                return {1, 2}  # not data: the pass fails with CodecError
            return "x" * 20_000  # longer than a pipe writes at once: the loop writes it

        def later(n: int) -> Any:
            """A sync wrapper around async code: the loop awaits what it returns."""
            self.calls["later"] += 1

            async def value() -> int:
                await asyncio.sleep(0)
                return n + 1

            return value()

        def wide(n: int) -> str:
            """A reply just short of what one pipe write sends whole."""
            self.calls["wide"] += 1
            return f"{n:04d}" + "x" * 4000

        return ToolSetConnector([write, fail, slow, odd, later, wide], name="probe")


@pytest.fixture
def probe(store_sql: StoreSql) -> Probe:
    made = Probe(store_sql)
    yield made
    made.release.set()


@pytest.fixture
def store(db_url: str) -> Iterator[JournalStore]:
    made = JournalStore(db_url)
    yield made
    made.dispose()


@pytest.fixture
def journal(store: JournalStore) -> Iterator[RuntimeJournal]:
    with open_journal(store, "rt") as j:
        j.insert_execution(EXECUTION, "...", ["probe"], {}, {}, passes=1)
        yield j


def handler(journal: RuntimeJournal, probe: Probe, bound: float, execution: str = EXECUTION) -> PassHandler:
    catalog = Catalog.resolve_sync({"probe": probe.connector()})
    assert catalog is not None
    return PassHandler(journal=journal, catalog=catalog, state=PassState(execution, 1, {}), search=lambda q: [],
                       describe=str, snippet=lambda n, i: {}, outcome_bound=bound)


def call(method: str, **args: Any) -> dict[str, Any]:
    return {"op": "call", "connector": "probe", "method": method, "args": args, "replayed": 0}


async def until_stored(probe: Probe, expected: list[tuple[Any, ...]]) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while (found := probe.entries()) != expected:
        assert loop.time() < end, f"the store still shows {found}"
        await asyncio.sleep(0.001)


def test_the_pass_handler_is_a_host_that_may_answer_later() -> None:
    """The isolated executor hands a sink only to a host it recognises as one (base.LaterHost)."""
    assert issubclass(PassHandler, LaterHost)


# -- the handler with a sink -------------------------------------------------------------


async def test_the_thread_replies_and_the_next_calls_commit_takes_its_outcome(
        journal: RuntimeJournal, probe: Probe) -> None:
    """A call answered on a connector's thread is stored with the next call's mark, before that call runs."""
    host, sink = handler(journal, probe, LONG), Sink()
    for n in (1, 2, 3):
        assert await host.answer_later(call("write", n=n), sink) is None
        await sink.until(n)
    assert sink.replies == [{"value": 10}, {"value": 20}, {"value": 30}]
    assert all(name.startswith("codemode-connector") for name in sink.threads)  # not the loop's thread
    assert probe.seen == [
        [(0, "executing", None, None)],
        [(0, "applied", "10", None), (1, "executing", None, None)],
        [(0, "applied", "10", None), (1, "applied", "20", None), (2, "executing", None, None)],
    ]
    assert probe.entries()[2] == (2, "executing", None, None)  # kept for a commit that has not come
    host.flush()  # what the runtime does before it records the pass's end
    assert probe.entries()[2] == (2, "applied", "30", None)
    assert probe.calls["write"] == 3


async def test_an_outcome_is_committed_before_another_request_is_answered(
        journal: RuntimeJournal, probe: Probe) -> None:
    """A step after a thread-answered call finds that call's outcome stored before it is answered."""
    host, sink = handler(journal, probe, LONG), Sink()
    await host.answer_later(call("write", n=4), sink)
    await sink.until(1)
    assert await host({"op": "step", "name": "s", "replayed": 0}) == {"run": True}
    assert probe.entries() == [(0, "applied", "40", None)]


@pytest.mark.parametrize("method", ["write", "slow"], ids=["quick", "slower-than-the-bound"])
async def test_an_outcome_no_request_takes_is_committed_within_the_bound(
        journal: RuntimeJournal, probe: Probe, method: str) -> None:
    """It is an error if a thread-answered outcome waits for a request that does not come: the timer
    commits it, and for a call that outlasted the bound, its thread's report does."""
    host, sink = handler(journal, probe, 0.001), Sink()
    await host.answer_later(call(method, n=5), sink)
    if method == "slow":
        await asyncio.sleep(0.05)  # the timer is long past: the call still runs
        assert probe.entries() == [(0, "executing", None, None)]
        probe.release.set()
    await sink.until(1)
    await until_stored(probe, [(0, "applied", "50" if method == "write" else "5", None)])


@pytest.mark.parametrize(("kind", "raised"), [("key", {"type": "KeyError", "message": "probe.fail: 'key'"}),
                                              ("stop", {"type": "RuntimeError",
                                                        "message": "probe.fail: the connector raised StopIteration: "
                                                                   "inside"})],
                         ids=["KeyError", "StopIteration"])
async def test_an_exception_is_replied_and_stored_as_on_the_loop(
        journal: RuntimeJournal, probe: Probe, kind: str, raised: dict[str, str]) -> None:
    """The thread answers a connector's exception as the loop does (StopIteration included)."""
    host, sink = handler(journal, probe, LONG), Sink()
    await host.answer_later(call("fail", kind=kind), sink)
    assert await sink.until(1) == [{"raise": raised}]
    host.flush()
    assert probe.entries() == [(0, "error", None, f"{raised['type']}: {raised['message']}")]
    assert probe.calls["fail"] == 1


async def test_what_the_thread_cannot_answer_the_loop_does(journal: RuntimeJournal, probe: Probe) -> None:
    """An awaitable result is awaited on the loop, and a value that is not data fails the pass, the call
    stored as applied (it ran) with no result (review 13); each connector runs once."""
    host, sink = handler(journal, probe, LONG), Sink()
    await host.answer_later(call("later", n=1), sink)
    assert await sink.until(1) == [{"value": 2}]
    await host.answer_later(call("odd", kind="set"), sink)
    replies = await sink.until(2)
    assert "CodecError" in replies[1]["abort"]
    host.flush()
    assert [row[:3] for row in probe.entries()] == [(0, "applied", "2"), (1, "applied", None)]
    assert probe.calls["later"] == probe.calls["odd"] == 1


# -- through the isolated executor ---------------------------------------------------------


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    made = SubprocessExecutor()
    yield made
    await made.aclose()


NAMES = {"probe": ["fail", "later", "odd", "slow", "wide", "write"]}


async def test_a_loop_of_sync_calls_runs_each_once_and_stores_each_before_the_next(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe) -> None:
    """Through a real worker: every call runs once, sees the call before it stored, and the last is stored
    once the runtime flushes at the pass's end."""
    host = handler(journal, probe, LONG)
    out = await executor.execute("[probe.write(n=i) for i in range(200)]", NAMES, host=host)
    assert out.error is None, out.error
    assert out.result == [i * 10 for i in range(200)]
    assert probe.calls["write"] == 200
    for i, seen in enumerate(probe.seen):
        assert seen[:i] == [(k, "applied", str(k * 10), None) for k in range(i)]
        assert seen[i] == (i, "executing", None, None)
    host.flush()
    assert probe.entries() == [(k, "applied", str(k * 10), None) for k in range(200)]


async def test_replies_too_long_for_one_write_and_exceptions_reach_the_code(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe) -> None:
    """A reply longer than PIPE_BUF is written by the loop, an exception arrives as the code's exception,
    and an awaitable is awaited: the code sees all of them as with any connector."""
    code = ("caught = None\n"
            "try:\n    probe.fail(kind='k')\nexcept Exception as exc:\n    caught = str(exc)\n"
            "[len(probe.odd(kind='long')), caught, probe.later(n=4), probe.write(n=1)]")
    host = handler(journal, probe, LONG)
    out = await executor.execute(code, NAMES, host=host)
    assert out.error is None, out.error
    assert out.result == [20_000, "KeyError: probe.fail: 'k'", 5, 10]  # the call's path first (review 14x M10)
    host.flush()
    assert [row[1] for row in probe.entries()] == ["error", "applied", "applied", "applied"]
    assert probe.calls == {"write": 1, "fail": 1, "slow": 0, "odd": 1, "later": 1, "wide": 0}


async def test_an_interrupt_while_the_thread_answers_neither_crashes_nor_hangs(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe) -> None:
    """A pass stopped while a connector's thread runs its call ends Interrupted at once; the thread's late
    reply goes nowhere, its outcome is stored once (its thread reports it: the bound passed while it ran),
    and the executor serves the next pass."""
    host = handler(journal, probe, 0.001)
    running = asyncio.ensure_future(executor.execute("probe.slow(n=7)", NAMES, host=host))
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while probe.calls["slow"] == 0:
        assert loop.time() < end
        await asyncio.sleep(0.005)
    assert executor.interrupt()
    out = await asyncio.wait_for(running, DEADLINE)
    assert out.error is not None and out.error.type == "Interrupted"
    assert probe.entries() == [(0, "executing", None, None)]
    probe.release.set()  # the thread answers now, to a pass that is over
    await until_stored(probe, [(0, "applied", "7", None)])
    journal.insert_execution("e2", "...", ["probe"], {}, {}, passes=1)
    next_pass = handler(journal, probe, LONG, "e2")
    again = await executor.execute("probe.write(n=2)", NAMES, host=next_pass)
    assert again.error is None and next_pass.state.failure is None
    assert again.result == 20
    assert probe.calls["slow"] == 1


async def test_a_reply_made_after_the_pass_is_never_written_to_a_reused_descriptor(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe) -> None:
    """It is an error if a connector's thread that answers after its pass ended writes to the worker's old
    pipe: its descriptor number, closed with the worker, may belong to anything of the host's by then."""
    host = handler(journal, probe, 0.001)
    running = asyncio.ensure_future(executor.execute("probe.slow(n=9)", NAMES, host=host))
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while probe.calls["slow"] == 0:
        assert loop.time() < end
        await asyncio.sleep(0.005)
    isolation = executor.isolation
    assert isolation is not None
    assert executor.interrupt()
    assert (await asyncio.wait_for(running, DEADLINE)).error is not None
    assert await loop.run_in_executor(None, wait_gone, int(isolation["pid"]))  # reaped: its pipes are closed
    ours = [os.pipe() for _ in range(16)]  # the lowest free numbers: the worker's old ones among them
    try:
        probe.release.set()
        await until_stored(probe, [(0, "applied", "9", None)])
        await asyncio.sleep(0.1)  # the reply is made right after the outcome is kept
        for r, _w in ours:
            os.set_blocking(r, False)
            with pytest.raises(BlockingIOError):
                os.read(r, 1 << 16)
    finally:
        for pair in ours:
            for fd in pair:
                os.close(fd)


async def test_a_kill_racing_the_threads_write_decides_the_pass_once(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe, caplog: pytest.LogCaptureFixture) -> None:
    """The connector's own thread interrupts the pass just before it writes the reply, twenty times: each
    pass ends Interrupted, never hangs or crashes the host, and each call is run and stored once."""
    def stop_then_reply(n: int) -> int:
        """Interrupt the running pass, then return (the reply's write races the kill)."""
        executor.interrupt()
        return n

    catalog = Catalog.resolve_sync({"probe": ToolSetConnector([stop_then_reply], name="probe")})
    assert catalog is not None
    for i in range(20):
        execution = f"race{i}"
        journal.insert_execution(execution, "...", ["probe"], {}, {}, passes=1)
        host = PassHandler(journal=journal, catalog=catalog, state=PassState(execution, 1, {}), search=lambda q: [],
                           describe=str, snippet=lambda n, i: {}, outcome_bound=0.001)
        out = await asyncio.wait_for(executor.execute(
            f"probe.stop_then_reply(n={i})\nprobe.stop_then_reply(n=-1)", {"probe": ["stop_then_reply"]},
            host=host), DEADLINE)
        assert out.error is not None and out.error.type == "Interrupted", out.error
        host.flush()  # what the runtime does; a thread still answering reports its outcome itself
        loop = asyncio.get_running_loop()
        end = loop.time() + DEADLINE
        while (rows := [(e.seq, e.state, e.result) for e in journal.entries(execution)]) != [(0, "applied", str(i))]:
            assert rows == [(0, "executing", None)] and loop.time() < end, rows
            await asyncio.sleep(0.001)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


# -- a worker that does not wait for its reply -------------------------------------------------


@pytest.fixture
async def tampered(tmp_path: Path) -> AsyncIterator[Callable[[str], SubprocessExecutor]]:
    async with tampered_executors(tmp_path, Limits(timeout=DEADLINE)) as make:
        yield make


async def test_a_request_sent_before_the_reply_waits_for_the_thread_and_its_outcome(
        tampered: Callable[[str], SubprocessExecutor], journal: RuntimeJournal, probe: Probe) -> None:
    """A worker that sends its next call while the first still runs on a connector's thread gets both
    replies whole and in order, and the second call runs only once the first's outcome is stored."""
    ex = tampered('''
        send({"op": "call", "connector": "probe", "method": "slow", "args": {"n": 3}})
        send({"op": "call", "connector": "probe", "method": "write", "args": {"n": 4}})
        first, second = json.loads(recv()), json.loads(recv())
        send({"op": "done", "result": [first, second], "variables": {}})
    ''')
    host = handler(journal, probe, LONG)
    running = asyncio.ensure_future(ex.execute("...", NAMES, host=host))
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while probe.calls["slow"] == 0:
        assert loop.time() < end
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)  # the second request is in: it is not answered while the first runs
    assert probe.calls["write"] == 0
    probe.release.set()
    out = await asyncio.wait_for(running, DEADLINE)
    assert out.error is None, out.error
    assert out.result == [{"value": 3}, {"value": 40}]
    assert probe.seen == [[(0, "applied", "3", None), (1, "executing", None, None)]]
    assert json.dumps(out.result)  # plain data, as the worker parsed it


async def test_replies_to_a_worker_that_does_not_read_them_wait_for_room_and_stay_whole(
        tampered: Callable[[str], SubprocessExecutor], journal: RuntimeJournal, probe: Probe) -> None:
    """A worker that sends forty calls before it reads a reply fills its pipe (4 KiB replies): a thread that
    finds no room hands its reply to the loop, which writes it once there is; every reply arrives whole and
    in order, and each call runs once."""
    ex = tampered('''
        for i in range(40):
            send({"op": "call", "connector": "probe", "method": "wide", "args": {"n": i}})
        time.sleep(0.5)  # the host answers meanwhile, until the pipe is full
        got = [json.loads(recv())["value"] for _ in range(40)]
        send({"op": "done", "result": [[v[:4], len(v)] for v in got], "variables": {}})
    ''')
    host = handler(journal, probe, LONG)
    out = await asyncio.wait_for(ex.execute("...", NAMES, host=host), DEADLINE)
    assert out.error is None, out.error
    assert out.result == [[f"{i:04d}", 4004] for i in range(40)]
    assert probe.calls["wide"] == 40
    host.flush()
    assert [row[:2] for row in probe.entries()] == [(i, "applied") for i in range(40)]


async def test_a_call_while_a_step_runs_is_a_protocol_error(journal: RuntimeJournal, probe: Probe) -> None:
    """The sandbox refuses a connector call inside a step's function (review 12); a worker that sends one
    anyway (tampered) ends the pass, and the connector does not run."""
    host = handler(journal, probe, LONG)
    assert await host({"op": "step", "name": "s", "replayed": 0}) == {"run": True}
    reply = await host(call("write", n=1))
    assert "ProtocolError" in str(reply) and "codemode.step('s')" in str(reply), reply
    assert probe.calls["write"] == 0
