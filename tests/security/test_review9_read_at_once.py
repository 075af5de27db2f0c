"""Review of the read at once after a reply (issue 12, 185616f): a worker that floods requests against it.

After a reply the host reads the worker's next request before any turn of the loop, at most
``WorkerPipe.TURN_EVERY`` times in a row. A tampered worker (a real process speaking the pipe
protocol as a broken-out worker could) that pipelines requests as fast as it can write them, and
drains its replies on a thread so the reply pipe never fills, always has the next request there:
these specs check that the pass's time limit, an interrupt, another pass and the loop's timers
still get their turns, and that the call limit, the output limit and exactly-once hold on that
path, through an async host, the runtime's pass handler with an async connector (the read at
once) and with a sync one (a connector's thread holding the conversation).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.catalog import Catalog
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.journal import JournalStore
from codemode_kernel.passes import PassHandler, PassState
from codemode_kernel.runtime_journal import RuntimeJournal, open_journal
from tests.conftest import StoreSql
from tests.executor.isolated_support import RecordingHost, tampered_executors

pytestmark = pytest.mark.anyio

EXECUTION = "e1"
LONG = 3600.0  # an outcome_bound no spec outlives
DEADLINE = 60.0  # seconds a spec waits for what must come (a liveness bound, not a speed figure)
MANY = 10 ** 9  # a call limit no flood reaches within a spec
NAMES = {"notes": ["add", "put"]}

# Pipelines call requests in batches for ever; a thread reads and drops the replies.
FLOOD = '''
import threading
def drain():
    while os.read(0, 1 << 16):
        pass
threading.Thread(target=drain, daemon=True).start()
line = (json.dumps({"op": "call", "connector": "notes", "method": "METHOD", "args": {"text": "x"}}) + "\\n").encode()
while True:
    out.write(line * 64)
    out.flush()
'''


class Notes:
    """``notes.add`` (async) and ``notes.put`` (sync): each counts its runs and answers at once."""

    def __init__(self, store_sql: StoreSql) -> None:
        self.runs = {"add": 0, "put": 0}
        self._sql = store_sql
        self._lock = threading.Lock()

    def entries(self) -> list[tuple[Any, ...]]:
        return self._sql("SELECT seq, state, result FROM codemode_entries ORDER BY seq")

    def connector(self) -> ToolSetConnector:
        async def add(text: str) -> str:
            """Add a note (async)."""
            self.runs["add"] += 1
            return text

        def put(text: str) -> str:
            """Put a note (sync)."""
            with self._lock:
                self.runs["put"] += 1
            return text

        return ToolSetConnector([add, put], name="notes")


@pytest.fixture
def notes(store_sql: StoreSql) -> Notes:
    return Notes(store_sql)


@pytest.fixture
def journal(db_url: str) -> Iterator[RuntimeJournal]:
    store = JournalStore(db_url)
    try:
        with open_journal(store, "rt") as j:
            j.insert_execution(EXECUTION, "...", ["notes"], {}, {}, passes=1)
            yield j
    finally:
        store.dispose()


def handler(journal: RuntimeJournal, notes: Notes) -> PassHandler:
    catalog = Catalog.resolve_sync({"notes": notes.connector()})
    assert catalog is not None
    return PassHandler(journal=journal, catalog=catalog, state=PassState(EXECUTION, 1, {}), search=lambda q: [],
                       describe=str, snippet=lambda n, i: {}, outcome_bound=LONG)


@pytest.fixture
async def tampered(tmp_path: Path) -> AsyncIterator[Callable[..., SubprocessExecutor]]:
    async with tampered_executors(tmp_path, None) as make:
        yield make


async def until(predicate: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while not predicate():
        assert loop.time() < end, f"{what} never came"
        await asyncio.sleep(0.005)


# The three ways a call is answered: an async host (executor alone), the pass handler with an async
# connector (the loop answers, the next request read at once) and with a sync one (a thread holds on).
HOSTS = ["async-host", "handler-async", "handler-sync"]


def host_for(kind: str, journal: RuntimeJournal, notes: Notes) -> tuple[Any, str, Callable[[], int]]:
    """The host, the method the worker calls, and how many calls the host has run."""
    if kind == "async-host":
        recording = RecordingHost(lambda m: {"value": "x"})
        return recording, "add", lambda: len(recording.calls)
    method = "add" if kind == "handler-async" else "put"
    return handler(journal, notes), method, lambda: notes.runs[method]


# -- the loop's timers and other passes ------------------------------------------------------


@pytest.mark.parametrize("kind", HOSTS)
async def test_a_flood_of_requests_always_there_still_ends_at_the_time_limit(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, notes: Notes, kind: str) -> None:
    """A worker whose next request is always in the pipe after each reply is stopped at its wall-clock limit as a
    Timeout: the timer on the loop gets its turn between requests read at once."""
    host, method, ran = host_for(kind, journal, notes)
    ex = tampered(FLOOD.replace("METHOD", method), Limits(timeout=1.0, max_calls=MANY))
    out = await asyncio.wait_for(ex.execute("...", NAMES, host=host), DEADLINE)
    assert out.error is not None and out.error.type == "Timeout", out
    assert ran() > 0


@pytest.mark.parametrize("kind", HOSTS)
async def test_during_a_flood_another_pass_timers_and_an_interrupt_get_their_turn(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, notes: Notes, kind: str) -> None:
    """While a flood of requests read at once runs (no time limit near), a timer on the loop fires, an honest pass
    on another executor runs to its end with its own calls answered, and an interrupt ends the flood."""
    host, method, ran = host_for(kind, journal, notes)
    ex = tampered(FLOOD.replace("METHOD", method), Limits(timeout=DEADLINE * 4, max_calls=MANY))
    loop = asyncio.get_running_loop()
    flood = asyncio.ensure_future(ex.execute("...", NAMES, host=host))
    honest = SubprocessExecutor(warm=0)
    try:
        await until(lambda: ran() >= 1000, "the flood")
        fired = asyncio.Event()
        loop.call_later(0.05, fired.set)
        await asyncio.wait_for(fired.wait(), DEADLINE)
        assert not flood.done()
        other = RecordingHost(lambda m: {"value": m["args"]["text"].upper()})
        out = await asyncio.wait_for(
            honest.execute("[notes.add(text=t) for t in 'abc']", NAMES, host=other), DEADLINE)
        assert out.error is None and out.result == ["A", "B", "C"], out.error
        assert not flood.done()
        assert ex.interrupt()
        stopped = await asyncio.wait_for(flood, DEADLINE)
        assert stopped.error is not None and stopped.error.type == "Interrupted", stopped
    finally:
        flood.cancel()
        await honest.aclose()


# -- limits and exactly-once on the read-at-once path ----------------------------------------


def pipelined(method: str, count: int, then: str = "") -> str:
    """A worker that writes ``count`` calls in one write, before reading any reply, then drains them."""
    call = json.dumps({"op": "call", "connector": "notes", "method": method, "args": {"text": "x"}})
    return f'''
line = ({call!r} + "\\n").encode()
out.write({then or "line * " + str(count)})
out.flush()
while os.read(0, 1 << 16):
    pass
'''


@pytest.mark.parametrize("kind", HOSTS)
async def test_pipelined_calls_past_the_call_limit_run_exactly_up_to_it(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, notes: Notes, kind: str) -> None:
    """Fifty calls written at once, each then read at once after the previous reply: the pass is stopped at
    Limits.max_calls, exactly that many ran, and through the pass handler each is stored applied, once."""
    host, method, ran = host_for(kind, journal, notes)
    ex = tampered(pipelined(method, 50), Limits(timeout=DEADLINE, max_calls=5))
    out = await asyncio.wait_for(ex.execute("...", NAMES, host=host), DEADLINE)
    assert out.error is not None and out.error.type == "LimitExceeded", out
    assert "max_calls=5" in out.error.message
    assert ran() == 5
    if isinstance(host, PassHandler):
        host.flush()
        assert notes.entries() == [(i, "applied", '"x"') for i in range(5)]


@pytest.mark.parametrize("kind", HOSTS)
async def test_printed_text_between_pipelined_calls_is_held_to_the_output_limit(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, notes: Notes, kind: str) -> None:
    """Calls and 300-character prints written together in one write, each call's next line read at once: the
    pass is stopped past Limits.max_output_chars, and no more than that reached the output callback."""
    host, method, _ran = host_for(kind, journal, notes)
    then = ('(line + (json.dumps({"op": "output", "text": "p" * 300}) + "\\n").encode()) * 40')
    ex = tampered(pipelined(method, 0, then), Limits(timeout=DEADLINE, max_calls=MANY, max_output_chars=2000))
    shown: list[str] = []
    out = await asyncio.wait_for(ex.execute("...", NAMES, host=host, on_output=shown.append), DEADLINE)
    assert out.error is not None and out.error.type == "LimitExceeded", out
    assert "max_output_chars" in out.error.message
    assert sum(len(t) for t in shown) <= 2000
    assert 0 < len(shown) < 40


async def test_after_a_run_of_calls_read_at_once_the_last_outcome_is_committed_by_its_timer(
        tampered: Callable[..., SubprocessExecutor], journal: RuntimeJournal, notes: Notes) -> None:
    """Two hundred async calls written at once, each read at once after the previous reply, then the worker goes
    quiet (no next call's mark to commit the last outcome): the outcome timer commits it while the pass still
    runs, every call ran once and is stored applied once, and an interrupt then ends the pass."""
    host = PassHandler(journal=journal, catalog=Catalog.resolve_sync({"notes": notes.connector()}) or _none(),
                       state=PassState(EXECUTION, 1, {}), search=lambda q: [], describe=str,
                       snippet=lambda n, i: {}, outcome_bound=0.05)
    ex = tampered(pipelined("add", 200).replace("while os.read(0, 1 << 16):\n    pass",
                                                "while inp.read(1):\n    pass"), Limits(timeout=DEADLINE))
    running = asyncio.ensure_future(ex.execute("...", NAMES, host=host))
    try:
        await until(lambda: len(notes.entries()) == 200 and all(r[1] == "applied" for r in notes.entries()),
                    "every outcome committed")
        assert not running.done()
        assert notes.runs["add"] == 200
        assert notes.entries() == [(i, "applied", '"x"') for i in range(200)]
        assert ex.interrupt()
        out = await asyncio.wait_for(running, DEADLINE)
        assert out.error is not None and out.error.type == "Interrupted", out
    finally:
        running.cancel()


def _none() -> Catalog:
    raise AssertionError("the catalog did not resolve")


async def test_a_pipelined_flood_gets_at_most_turn_every_requests_answered_between_turns_of_the_loop(
        tampered: Callable[..., SubprocessExecutor]) -> None:
    """channel.py's promise: the host answers at most WorkerPipe.TURN_EVERY requests in a row before the loop gets a
    turn, also when the worker wrote them all before any reply (one read of the pipe brings hundreds)."""
    from codemode_kernel.executor.channel import WorkerPipe

    loop = asyncio.get_running_loop()
    turns = [0]
    running = [True]

    def tick() -> None:
        if running[0]:
            turns[0] += 1
            loop.call_soon(tick)

    seen: list[int] = []

    def answer(message: dict[str, Any]) -> dict[str, Any]:
        seen.append(turns[0])
        return {"value": "x"}

    ex = tampered(FLOOD.replace("METHOD", "add"), Limits(timeout=1.0, max_calls=MANY))
    loop.call_soon(tick)
    try:
        out = await asyncio.wait_for(ex.execute("...", NAMES, host=RecordingHost(answer)), DEADLINE)
    finally:
        running[0] = False
    assert out.error is not None and out.error.type == "Timeout", out
    longest = run = 1
    for before, after in itertools.pairwise(seen):
        run = run + 1 if before == after else 1
        longest = max(longest, run)
    assert len(seen) > 4 * WorkerPipe.TURN_EVERY
    # One request of slack: a turn's callbacks may run just after the read it came before.
    assert longest <= WorkerPipe.TURN_EVERY + 1, f"{longest} requests answered with no turn of the loop"
