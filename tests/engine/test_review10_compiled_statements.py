"""Review 10: statements compiled once per process are never run by a store they were not made for.

93b4bcd keeps the journal's compiled SQL for the whole process (``journal._COMPILED``), keyed by
what the SQL depends on of the dialect (its class, paramstyle, positional flag, server version)
and the statement's key. One process can hold stores of several kinds at once (a kernel's SQLite
file and a team's PostgreSQL): each store must run the SQL made for its own dialect, whichever
store opened first, through a pass, a pause, an approval, a pruning and a deletion (every
statement of ``_PASS_STATEMENTS`` and the call's two).

Not kept as a spec: a SQLite store whose engine has ``paramstyle="named"`` beside one with the
driver's ``qmark`` passes even with paramstyle and positional taken out of the cache key, since
the cached SQL carries its own parameter order and sqlite3 takes both styles; it shows nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.journal import _COMPILED, JournalStore

pytestmark = pytest.mark.anyio


def read(i: int = 0) -> int:
    """A plain read."""
    return i


def write(value: int) -> int:
    """A write that needs approval."""
    return value


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    """Each spec starts with nothing compiled, so the store opened first fills the cache."""
    kept = dict(_COMPILED)
    _COMPILED.clear()
    yield
    _COMPILED.clear()
    _COMPILED.update(kept)


async def _exercise(store: JournalStore, n: int) -> None:
    """A pass that reads, one that pauses and its approval, one that fails; prune and delete."""
    conns = [ToolSetConnector([read], name="data"), ToolSetConnector([write], name="store", requires_approval=True)]
    async with CodemodeRuntime(conns, store=store, executor=InProcessExecutor(), max_executions=1) as rt:
        assert (await rt.execute(f"data.read(i={n})"))["result"] == n
        paused = await rt.execute(f"data.read(i={n})\nstore.write(value={n + 1})")
        assert paused["status"] == "paused", paused
        done = await rt.approve(paused["execution_id"])
        assert done["status"] == "completed" and done["result"] == n + 1, done
        state = await rt.execution(done["execution_id"])
        assert state is not None and [(c.seq, c.state) for c in state.log] == [(0, "applied"), (1, "applied")]
        assert (await rt.execute("1 / 0"))["error_type"] == "ZeroDivisionError"
        assert await rt.delete_execution(done["execution_id"]) is True
        assert await rt.prune_executions(0) >= 1


async def test_a_sqlite_store_and_the_test_store_in_one_process_each_run_their_own_sql(
        tmp_path: Path, db_url: str, fresh_cache: None) -> None:
    """A SQLite store and the test's store (a second SQLite file, or PostgreSQL) opened in the same
    process, the SQLite one first, passes interleaved.

    Mutation seen failing: ``journal._compiled``'s cache key reduced to the statement's key (the
    PostgreSQL store runs SQLite's ``?`` SQL)."""
    stores = [JournalStore(f"sqlite:///{tmp_path / 'lite'}.db"), JournalStore(db_url)]
    try:
        for i, store in enumerate(stores):
            await _exercise(store, 10 * i)
    finally:
        for store in stores:
            store.dispose()
