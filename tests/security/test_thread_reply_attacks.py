"""Review of the thread-written replies (issue 12): a hostile sandbox and odd connectors against them.

A call to a synchronous connector is answered by the connector's own thread, which writes the
reply line to the worker's pipe itself (``isolated._Replies``). These specs attack that path
with real worker processes (honest ones, and tampered ones that speak the pipe protocol as a
broken-out worker could) and the runtime's real pass handler over a real SQLite file:

- a worker that sends its next request, garbage, an oversized request or ``done`` while a reply
  is owed; one that never reads its replies (both pipes full);
- replies around the size one pipe write sends whole (``PIPE_BUF``), far above it, and above
  what may be stored; values that do not encode;
- a connector that answers after its pass was interrupted: its bytes reach no descriptor the
  host opened after the pass, even when its long reply was stuck in a full pipe.
"""

from __future__ import annotations

import asyncio
import os
import select
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.catalog import Catalog
from codemode_kernel.codec import MAX_VALUE_CHARS
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.worker import dumps_line
from codemode_kernel.journal import JournalStore
from codemode_kernel.passes import PassHandler, PassState
from codemode_kernel.runtime_journal import RuntimeJournal, open_journal
from tests.conftest import StoreSql
from tests.executor.isolated_support import tampered_executors, wait_gone

pytestmark = pytest.mark.anyio

EXECUTION = "e1"
LONG = 3600.0  # an outcome_bound no spec outlives: only the next call's mark or flush() commit
DEADLINE = 30.0  # seconds a spec waits for what must come (a liveness bound, not a speed figure)
NAMES = {"probe": ["big", "sized", "slow", "write"]}


class Probe:
    """Synchronous methods that count their runs."""

    def __init__(self, store_sql: StoreSql) -> None:
        self.calls = {"write": 0, "slow": 0, "sized": 0, "big": 0}
        self.release = threading.Event()
        self.entered = threading.Event()
        self._sql = store_sql

    def entries(self) -> list[tuple[Any, ...]]:
        return self._sql("SELECT seq, state, result, error FROM codemode_entries ORDER BY seq")

    def connector(self) -> ToolSetConnector:
        def write(n: int) -> int:
            """Record a number."""
            self.calls["write"] += 1
            return n * 10

        def slow(n: int) -> int:
            """Wait until the spec lets go."""
            self.calls["slow"] += 1
            self.entered.set()
            self.release.wait(DEADLINE)
            return n

        def sized(chars: int, fill: str = "x") -> str:
            """A string of ``chars`` characters."""
            self.calls["sized"] += 1
            return (fill * chars)[:chars]

        def big(chars: int) -> str:
            """A long string, after the spec lets go."""
            self.calls["big"] += 1
            self.entered.set()
            self.release.wait(DEADLINE)
            return "y" * chars

        return ToolSetConnector([write, slow, sized, big], name="probe", reexecute={"big"})


@pytest.fixture
def probe(store_sql: StoreSql) -> Iterator[Probe]:
    made = Probe(store_sql)
    yield made
    made.release.set()


@pytest.fixture
def journal(db_url: str) -> Iterator[RuntimeJournal]:
    store = JournalStore(db_url)
    try:
        with open_journal(store, "rt") as j:
            j.insert_execution(EXECUTION, "...", ["probe"], {}, {}, passes=1)
            yield j
    finally:
        store.dispose()


def handler(journal: RuntimeJournal, probe: Probe, bound: float = LONG) -> PassHandler:
    catalog = Catalog.resolve_sync({"probe": probe.connector()})
    assert catalog is not None
    return PassHandler(journal=journal, catalog=catalog, state=PassState(EXECUTION, 1, {}), search=lambda q: [],
                       describe=str, snippet=lambda n, i: {}, outcome_bound=bound)


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    made = SubprocessExecutor()
    yield made
    await made.aclose()


@pytest.fixture
async def tampered(tmp_path: Path) -> AsyncIterator[Callable[..., SubprocessExecutor]]:
    async with tampered_executors(tmp_path, Limits(timeout=DEADLINE)) as make:
        yield make


async def until(predicate: Callable[[], bool]) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while not predicate():
        assert loop.time() < end, "it never came"
        await asyncio.sleep(0.005)


# -- what a hostile worker sends while a reply is owed ---------------------------------------


async def test_done_sent_while_a_reply_is_owed_is_taken_only_after_the_call_is_answered(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, probe: Probe) -> None:
    """It is an error if a worker that reports ``done`` while a connector's thread still runs its call gets the
    pass ended before that call is answered: the pass waits, the call's outcome is there to store, and it ran
    once."""
    ex = tampered('''
        send({"op": "call", "connector": "probe", "method": "slow", "args": {"n": 3}})
        send({"op": "done", "result": "early", "variables": {}})
        time.sleep(60)
    ''')
    host = handler(journal, probe)
    running = asyncio.ensure_future(ex.execute("...", NAMES, host=host))
    await until(probe.entered.is_set)
    await asyncio.sleep(0.05)
    assert not running.done()  # the report is not taken while the reply is owed
    probe.release.set()
    out = await asyncio.wait_for(running, DEADLINE)
    assert out.error is None and out.result == "early", out
    host.flush()  # what the runtime does before it records the pass's end
    assert probe.entries() == [(0, "applied", "3", None)]
    assert probe.calls["slow"] == 1


@pytest.mark.parametrize(("follow", "error_type", "says"), [
    ("b'this is not json\\n'", "WorkerCrashed", "broke the protocol"),
    ('{"op": "call", "connector": "probe", "method": "secret", "args": {}}', "WorkerCrashed", "broke the protocol"),
    ("""b'{"op":"call","connector":"probe","method":"write","args":{"n":"' + b'z' * (8 << 20) + b'"}}\\n'""",
     "ValueTooLarge", "Store the data elsewhere"),
], ids=["garbage", "a-method-not-given", "an-oversized-request"])
async def test_a_bad_line_sent_while_a_reply_is_owed_stops_the_pass_and_nothing_else_runs(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, probe: Probe,
        follow: str, error_type: str, says: str) -> None:
    """A worker that follows a call with garbage, a call to a method the pass was not given, or a request over
    the size limit, without waiting for its reply, has its pass stopped with the matching error; the call being
    answered runs once, its outcome is stored, and no other connector runs."""
    ex = tampered(f'''
        send({{"op": "call", "connector": "probe", "method": "slow", "args": {{"n": 4}}}})
        send({follow})
        time.sleep(60)
    ''')
    host = handler(journal, probe, 0.001)
    running = asyncio.ensure_future(ex.execute("...", NAMES, host=host))
    await until(probe.entered.is_set)
    probe.release.set()
    out = await asyncio.wait_for(running, DEADLINE)
    assert out.error is not None and out.error.type == error_type, out
    assert says in out.error.message
    host.flush()
    await until(lambda: probe.entries() == [(0, "applied", "4", None)])
    assert probe.calls == {"write": 0, "slow": 1, "sized": 0, "big": 0}


async def test_a_worker_that_never_reads_its_replies_is_stopped_by_the_timeout(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, probe: Probe) -> None:
    """A worker that floods calls with long replies and reads none (both pipes fill) ends at its wall-clock limit
    as a Timeout, not a hang; no call runs twice, and each call that ran has its outcome stored."""
    ex = tampered('''
        i = 0
        while True:
            send({"op": "call", "connector": "probe", "method": "sized", "args": {"chars": 3000 + i % 5000}})
            i += 1
    ''', Limits(timeout=2.0))
    host = handler(journal, probe, 0.001)
    out = await asyncio.wait_for(ex.execute("...", NAMES, host=host), DEADLINE)
    assert out.error is not None and out.error.type == "Timeout", out
    host.flush()
    # A call handed off just before the kill runs on its thread a moment later: wait for runs to match marks
    # (a call run twice never would).
    await until(lambda: probe.calls["sized"] == len(probe.entries()))
    rows = probe.entries()
    assert len(rows) >= 1
    assert [r[0] for r in rows] == list(range(len(rows)))  # one entry per run, none run twice
    await until(lambda: all(r[1] == "applied" for r in probe.entries()))


# -- sizes and values ------------------------------------------------------------------------


def chars_for_line(line_bytes: int) -> int:
    """The length of an 'x' string whose value reply is a line of ``line_bytes`` bytes."""
    base = len(dumps_line({"value": ""}))
    return line_bytes - base


async def test_replies_at_and_around_one_pipe_write_and_far_above_it_arrive_whole(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe) -> None:
    """Replies of PIPE_BUF - 1, PIPE_BUF and PIPE_BUF + 1 bytes (the thread writes the first two, the loop the
    third), multi-byte text around that size, and one of 900,000 characters reach the code whole, in order."""
    sizes = [chars_for_line(select.PIPE_BUF + d) for d in (-1, 0, 1)]
    assert len(dumps_line({"value": "x" * sizes[1]})) == select.PIPE_BUF
    code = (f"out = [len(probe.sized(chars=c)) for c in {sizes!r}]\n"
            "wide = probe.sized(chars=1400, fill='\u00e9\u20ac\U0001f600')\n"
            "out.append(len(wide))\n"
            "out.append(wide[:3])\n"
            "out.append(len(probe.sized(chars=900000)))\n"
            "out.append(probe.write(n=1))\n"
            "out")
    host = handler(journal, probe)
    out = await executor.execute(code, NAMES, host=host)
    assert out.error is None, out.error
    assert out.result == [*sizes, 1400, "\u00e9\u20ac\U0001f600", 900_000, 10]
    host.flush()
    assert [r[1] for r in probe.entries()] == ["applied"] * 6
    assert probe.calls["sized"] == 5 and probe.calls["write"] == 1


async def test_a_result_too_large_to_store_fails_the_pass_and_is_recorded_as_applied_not_kept(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe) -> None:
    """A sync connector's result over the replay limit is not replied: the pass fails with ValueTooLarge that
    says the call ran and not to send it again; the entry is applied (a rollback reverts it) with a note
    that its result was not kept (review 14, H2), and nothing after it runs."""
    host = handler(journal, probe)
    out = await executor.execute(f"probe.sized(chars={MAX_VALUE_CHARS + 10})\nprobe.write(n=1)", NAMES, host=host)
    failure = host.state.failure  # the host decides how the pass ended (the runtime reports this)
    assert failure is not None and failure.type == "ValueTooLarge", (failure, out)
    assert "ran" in failure.message and "Do not send the call again" in failure.message
    host.flush()
    ((seq, state, result, note),) = probe.entries()
    assert (seq, state, result) == (0, "applied", None)
    assert note.startswith("ValueTooLarge: the result of probe.sized is ") and note.endswith(
        "The call ran; its result was not kept.")
    assert probe.calls["sized"] == 1 and probe.calls["write"] == 0


# -- a late answer and the pipes of later passes ----------------------------------------------


async def test_a_long_reply_stuck_in_a_full_pipe_reaches_no_descriptor_opened_after_an_interrupt(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, probe: Probe) -> None:
    """A worker that stops reading while the loop writes a connector's long reply (its pipe full), then is
    interrupted: once the worker is reaped its descriptor numbers are free, and pipes the host opens then get
    none of the rest of that reply, nor of a reply made after."""
    ex = tampered('''
        send({"op": "call", "connector": "probe", "method": "big", "args": {"chars": 4000000}})
        send({"op": "call", "connector": "probe", "method": "slow", "args": {"n": 1}})
        time.sleep(60)
    ''')
    host = handler(journal, probe, 0.001)
    running = asyncio.ensure_future(ex.execute("...", NAMES, host=host))
    await until(probe.entered.is_set)
    probe.release.set()  # the loop writes 4 MB into a pipe nobody reads
    await asyncio.sleep(0.2)
    pid = (ex.isolation or {}).get("pid")
    assert isinstance(pid, int)
    assert ex.interrupt()
    out = await asyncio.wait_for(running, DEADLINE)
    assert out.error is not None and out.error.type == "Interrupted", out
    assert await asyncio.get_running_loop().run_in_executor(None, wait_gone, pid)
    ours = [os.pipe() for _ in range(16)]  # the lowest free numbers: the worker's old ones among them
    try:
        await asyncio.sleep(0.3)
        for r, _w in ours:
            os.set_blocking(r, False)
            with pytest.raises(BlockingIOError):
                os.read(r, 1 << 16)
    finally:
        for pair in ours:
            for fd in pair:
                os.close(fd)
    assert probe.calls["big"] == 1 and probe.calls["slow"] == 0


async def test_a_worker_that_closed_its_input_gets_no_reply_and_the_host_goes_on(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, probe: Probe) -> None:
    """A worker that closes its end of the reply pipe and then calls: the thread's write fails (EPIPE, no signal
    in the host), the host reads on, takes the worker's report, and the call ran once and is stored."""
    ex = tampered('''
        inp.close()
        os.close(0)
        send({"op": "call", "connector": "probe", "method": "write", "args": {"n": 6}})
        time.sleep(0.2)
        send({"op": "done", "result": "closed", "variables": {}})
    ''')
    host = handler(journal, probe)
    out = await asyncio.wait_for(ex.execute("...", NAMES, host=host), DEADLINE)
    assert out.error is None and out.result == "closed", out
    host.flush()
    assert probe.entries() == [(0, "applied", "60", None)]
    assert probe.calls["write"] == 1


async def test_the_call_limit_counts_thread_answered_calls_and_nothing_past_it_runs(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe) -> None:
    """A loop of sync calls past Limits.max_calls is stopped at the limit: exactly that many ran, each is
    stored applied, and the pass's error names the limit."""
    limited = SubprocessExecutor(Limits(max_calls=5))
    try:
        host = handler(journal, probe)
        out = await limited.execute("[probe.write(n=i) for i in range(50)]", NAMES, host=host)
    finally:
        await limited.aclose()
    assert out.error is not None and out.error.type == "LimitExceeded", out
    assert "more than 5" in out.error.message and "max_calls" in out.error.message
    host.flush()
    assert probe.entries() == [(i, "applied", str(i * 10), None) for i in range(5)]
    assert probe.calls["write"] == 5


async def test_a_worker_that_ignores_the_call_limit_is_stopped_by_the_host_at_it(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, probe: Probe) -> None:
    """A tampered worker that keeps calling past Limits.max_calls (each reply read) is killed by the host at the
    limit: exactly that many calls ran, each stored applied."""
    ex = tampered('''
        for i in range(50):
            send({"op": "call", "connector": "probe", "method": "write", "args": {"n": i}})
            if not recv():
                break
        time.sleep(60)
    ''', Limits(timeout=DEADLINE, max_calls=5))
    host = handler(journal, probe)
    out = await asyncio.wait_for(ex.execute("...", NAMES, host=host), DEADLINE)
    assert out.error is not None and out.error.type == "LimitExceeded", out
    assert "max_calls=5" in out.error.message
    host.flush()
    assert probe.entries() == [(i, "applied", str(i * 10), None) for i in range(5)]
    assert probe.calls["write"] == 5


async def test_a_worker_killed_from_outside_while_a_thread_answers_ends_the_pass_and_the_next_runs(
        executor: SubprocessExecutor, journal: RuntimeJournal, probe: Probe) -> None:
    """The worker is SIGKILLed (the OOM killer, a user) while a connector's thread runs its call: the pass ends as
    a crashed worker, the thread's late reply goes nowhere, the call ran once and its outcome is stored, and the
    executor serves the next pass; the reply made after the worker is reaped reaches no descriptor opened since."""
    import signal

    host = handler(journal, probe, 0.001)
    running = asyncio.ensure_future(executor.execute("probe.slow(n=8)", NAMES, host=host))
    await until(probe.entered.is_set)
    pid = (executor.isolation or {}).get("pid")
    assert isinstance(pid, int)
    os.kill(pid, signal.SIGKILL)
    out = await asyncio.wait_for(running, DEADLINE)
    assert out.error is not None and out.error.type == "WorkerCrashed", out
    assert "SIGKILL" in out.error.message
    assert await asyncio.get_running_loop().run_in_executor(None, wait_gone, pid)  # reaped: its pipes closed
    ours = [os.pipe() for _ in range(16)]  # the lowest free numbers: the worker's old ones among them
    try:
        probe.release.set()
        await until(lambda: probe.entries() == [(0, "applied", "8", None)])
        await asyncio.sleep(0.1)  # the reply is made right after the outcome is kept
        for r, _w in ours:
            os.set_blocking(r, False)
            with pytest.raises(BlockingIOError):
                os.read(r, 1 << 16)
    finally:
        for pair in ours:
            for fd in pair:
                os.close(fd)
    journal.insert_execution("e2", "...", ["probe"], {}, {}, passes=1)
    catalog = Catalog.resolve_sync({"probe": probe.connector()})
    assert catalog is not None
    second = PassHandler(journal=journal, catalog=catalog, state=PassState("e2", 1, {}), search=lambda q: [],
                         describe=str, snippet=lambda n, i: {}, outcome_bound=LONG)
    again = await executor.execute("probe.write(n=3)", NAMES, host=second)
    assert again.error is None and again.result == 30, again
    assert probe.calls["slow"] == 1 and probe.calls["write"] == 1
