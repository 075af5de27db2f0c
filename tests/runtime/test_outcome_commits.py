"""When a call's outcome is committed (issue 12: with the next call's mark, or within a bound).

The host side of one pass (:class:`~codemode_kernel.passes.PassHandler`) driven request by
request over a real store, looked at from a connection of its own. These pin the order the
durability promise needs: a call runs only once its own ``executing`` mark *and* the outcome
of the call before it are committed; an outcome the next call does not take is committed
within ``outcome_bound``, and before any other request is answered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.catalog import Catalog
from codemode_kernel.errors import StoreError
from codemode_kernel.journal import JournalStore
from codemode_kernel.passes import PassHandler, PassState
from codemode_kernel.runtime_journal import RuntimeJournal, open_journal
from tests.conftest import RuntimeFactory, StoreSql

pytestmark = pytest.mark.anyio

EXECUTION = "e1"
LONG = 3600.0  # an outcome_bound no spec outlives: the timer never commits
DEADLINE = 30.0  # seconds a spec waits for the timer's commit before it fails


class Probe:
    """A connector that looks at the store from outside whenever it is called."""

    def __init__(self, store_sql: StoreSql) -> None:
        self.seen: list[list[tuple[Any, ...]]] = []
        self._sql = store_sql

    def entries(self) -> list[tuple[Any, ...]]:
        return self._sql("SELECT seq, state, result FROM codemode_entries ORDER BY seq")

    def connector(self) -> ToolSetConnector:
        def write(n: int) -> int:
            """Record a number."""
            self.seen.append(self.entries())
            return n * 10

        return ToolSetConnector([write], name="probe")


@pytest.fixture
def probe(store_sql: StoreSql) -> Probe:
    return Probe(store_sql)


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


def handler(journal: RuntimeJournal, probe: Probe, bound: float) -> PassHandler:
    catalog = Catalog.resolve_sync({"probe": probe.connector()})
    assert catalog is not None
    return PassHandler(journal=journal, catalog=catalog, state=PassState(EXECUTION, 1, {}), search=lambda q: [],
                       describe=str, snippet=lambda n, i: {}, outcome_bound=bound)


def call(n: int) -> dict[str, Any]:
    return {"op": "call", "connector": "probe", "method": "write", "args": {"n": n}, "replayed": 0}


async def until_stored(probe: Probe, expected: list[tuple[Any, ...]]) -> None:
    """Wait (the loop runs meanwhile) until the store shows ``expected``; fail after DEADLINE."""
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while (found := probe.entries()) != expected:
        assert loop.time() < end, f"the store still shows {found}"
        await asyncio.sleep(0.001)


async def test_a_call_runs_after_its_mark_and_the_outcome_before_it_are_committed(
        journal: RuntimeJournal, probe: Probe) -> None:
    """The next call's commit carries the outcome kept since the last reply; neither runs ahead of it."""
    host = handler(journal, probe, LONG)
    assert await host(call(1)) == {"value": 10}
    assert probe.entries() == [(0, "executing", None)]  # kept for the next call's commit
    assert await host(call(2)) == {"value": 20}
    assert await host(call(3)) == {"value": 30}
    assert probe.seen == [
        [(0, "executing", None)],
        [(0, "applied", "10"), (1, "executing", None)],
        [(0, "applied", "10"), (1, "applied", "20"), (2, "executing", None)],
    ]
    host.flush()  # what the runtime does before it records the pass's end
    assert probe.entries() == [(0, "applied", "10"), (1, "applied", "20"), (2, "applied", "30")]


async def test_an_outcome_no_call_takes_is_committed_within_the_bound(journal: RuntimeJournal, probe: Probe) -> None:
    """It is an error if an outcome waits for a next call that does not come: the timer commits it."""
    host = handler(journal, probe, 0.001)
    await host(call(1))
    await until_stored(probe, [(0, "applied", "10")])


async def test_the_timer_set_for_one_outcome_waits_on_for_a_later_one(journal: RuntimeJournal, probe: Probe) -> None:
    """A timer set for call 0's outcome, which call 1's commit took, still sees call 1's outcome stored."""
    host = handler(journal, probe, 0.05)
    await host(call(1))
    await host(call(2))  # before call 0's timer is due: it took that outcome along
    await until_stored(probe, [(0, "applied", "10"), (1, "applied", "20")])


@pytest.mark.parametrize("request_", [
    {"op": "step", "name": "s", "replayed": 0},
    {"op": "search", "query": "write"},
    {"op": "call", "connector": "probe", "method": "nope", "args": {}, "replayed": 0},
], ids=["step", "search", "unknown-method"])
async def test_an_outcome_is_committed_before_another_request_is_answered(
        journal: RuntimeJournal, probe: Probe, request_: dict[str, Any]) -> None:
    """Any request that does not mark a call first commits the outcome kept (or the timer does at once)."""
    host = handler(journal, probe, LONG)
    await host(call(1))
    reply = await host(request_)
    assert "abort" not in reply, reply
    if request_["op"] == "call":  # refused without a journal write: the outcome waits for the pass's end
        assert probe.entries() == [(0, "executing", None)]
        host.flush()
    assert probe.entries() == [(0, "applied", "10")]


async def test_a_seq_taken_by_another_host_still_gets_the_earlier_outcome_stored(
        journal: RuntimeJournal, probe: Probe) -> None:
    """When the next call's insert loses its seq, the outcome that rode with it is committed on its own."""
    host = handler(journal, probe, LONG)
    await host(call(1))
    with open_journal(journal.store, "rt") as other:
        assert other.insert_entry(EXECUTION, 1, "probe", "write", '{"n":9}', "executing", requires_approval=False,
                                  ephemeral=False, pass_number=1)
    reply = await host(call(2))
    assert "abort" in reply and "ReplayDivergence" in reply["abort"]
    assert probe.seen == [[(0, "executing", None)]]  # call 2 never ran
    assert probe.entries() == [(0, "applied", "10"), (1, "executing", None)]


class _MarksNotStored(JournalStore):
    """A store whose entry inserts fail (the disk filled up between two calls)."""

    def insert_entry(self, *args: Any, **kwargs: Any) -> bool:
        if kwargs.get("finish") is not None:
            raise StoreError(self.where, "could not be written (test)", "Free some space.")
        return super().insert_entry(*args, **kwargs)


async def test_a_failed_commit_of_outcome_and_mark_runs_nothing_and_ends_the_pass(
        db_url: str, probe: Probe) -> None:
    """It is an error if the next call runs, or the pass goes on, when its commit (with the outcome) failed."""
    store = _MarksNotStored(db_url)
    try:
        with open_journal(store, "rt") as journal:
            journal.insert_execution(EXECUTION, "...", ["probe"], {}, {}, passes=1)
            host = handler(journal, probe, LONG)
            await host(call(1))
            reply = await host(call(2))
            assert "abort" in reply
            assert "could not record the outcome of call #0" in reply["abort"]
            assert "call #1 was not made" in reply["abort"]
            assert "abort" in await host(call(3))
            host.flush()
    finally:
        store.dispose()
    assert len(probe.seen) == 1
    assert probe.entries() == [(0, "executing", None)]


async def test_a_cancelled_execute_leaves_the_calls_it_finished_applied(
        make_runtime: RuntimeFactory, store_sql: StoreSql) -> None:
    """It is an error if cancelling ``execute()`` right after a call's reply loses that call's outcome.

    The outcome waits for the next call's commit; the cancellation closes the pass's connection
    before the timer is due, so the runtime must commit it on the way out.
    """
    running: list[asyncio.Task[Any]] = []
    calls = {"write": 0}

    async def write(n: int) -> int:
        """Record a number, and cancel the execution once this reply is on its way."""
        calls["write"] += 1
        asyncio.get_running_loop().call_soon(running[0].cancel)
        return n

    rt = make_runtime([ToolSetConnector([write], name="probe")])
    # The code computes after the call and makes no other request, so the outcome waits when the
    # cancellation lands. A bounded loop, not `while True`: the in-process executor cannot stop its
    # pass's thread, which would spin on through the rest of the test session.
    running.append(asyncio.ensure_future(rt.execute("probe.write(n=1)\nfor i in range(20_000_000):\n    pass")))
    with pytest.raises(asyncio.CancelledError):
        await running[0]
    assert calls == {"write": 1}
    assert store_sql("SELECT seq, state, result FROM codemode_entries") == [(0, "applied", "1")]
