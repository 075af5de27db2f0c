"""The outcome timer yields to a request the same turn of the loop brought (issue 12, s11c).

A call's outcome rides in the next call's mark (one commit a call); the timer commits it on its own
only when no next request comes within ``outcome_bound``. A loop kept off its CPU past the bound (a
loaded machine) wakes up with the worker's next request in its pipe and the timer due at once: the
pipe's callback runs first in that turn but wakes the conversation only on the next one, so the
timer committed the outcome alone and the request's mark made a second commit. Looked at here by
counting the commits the store makes for an outcome alone.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection

from codemode_kernel import ToolSetConnector
from codemode_kernel.catalog import Catalog
from codemode_kernel.journal import JournalStore
from codemode_kernel.passes import PassHandler, PassState
from codemode_kernel.runtime_journal import open_journal
from tests.conftest import StoreSql

pytestmark = pytest.mark.anyio

EXECUTION = "e1"
BOUND = 0.001
DEADLINE = 30.0


class CountingStore(JournalStore):
    """A store that notes each outcome it commits on its own (not riding in a mark's commit)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.alone: list[int] = []

    def finish_entry(self, conn: Connection, runtime: str, execution_id: str, seq: int, state: str, *,
                     result: str | None = None, error: str | None = None, commit: bool = True) -> bool:
        if commit:
            self.alone.append(seq)
        return super().finish_entry(conn, runtime, execution_id, seq, state, result=result, error=error,
                                    commit=commit)


@pytest.fixture
def store(db_url: str) -> Iterator[CountingStore]:
    made = CountingStore(db_url)
    yield made
    made.dispose()


async def double(n: int) -> int:
    """Double a number (async: answered on the loop)."""
    return n * 2


def handler(journal: Any) -> PassHandler:
    catalog = Catalog.resolve_sync({"math": ToolSetConnector([double], name="math")})
    assert catalog is not None
    return PassHandler(journal=journal, catalog=catalog, state=PassState(EXECUTION, 1, {}), search=lambda q: [],
                       describe=str, snippet=lambda n, i: {}, outcome_bound=BOUND)


def call(n: int) -> dict[str, Any]:
    return {"op": "call", "connector": "math", "method": "double", "args": {"n": n}, "replayed": 0}


async def test_a_request_that_arrived_as_the_timer_fell_due_takes_the_outcome_into_its_mark(
        store: CountingStore, store_sql: StoreSql) -> None:
    """It is an error if the timer commits an outcome alone when the next request came in the same loop turn."""
    loop = asyncio.get_running_loop()
    reader, writer = socket.socketpair()
    with reader, writer, open_journal(store, "rt") as journal:
        journal.insert_execution(EXECUTION, "...", ["math"], {}, {}, passes=1)
        host = handler(journal)
        assert await host(call(1)) == {"value": 2}  # its outcome kept, the timer set
        arrived: asyncio.Future[bytes] = loop.create_future()
        loop.add_reader(reader.fileno(), lambda: arrived.done() or arrived.set_result(reader.recv(1)))
        try:
            writer.send(b"x")  # the worker's next request comes...
            time.sleep(20 * BOUND)  # ...while the loop is off its CPU past the bound
            await arrived  # the pipe and the timer are ready in the same turn
        finally:
            loop.remove_reader(reader.fileno())
        assert await host(call(2)) == {"value": 4}
        assert store.alone == []  # call 0's outcome rode in call 1's mark
        end = loop.time() + DEADLINE  # and call 1's, which no request takes, the timer commits
        while store_sql("SELECT seq, state, result FROM codemode_entries ORDER BY seq") != [
                (0, "applied", "2"), (1, "applied", "4")]:
            assert loop.time() < end
            await asyncio.sleep(0.001)
        assert store.alone == [1]
