"""The store: a private SQLite file in WAL mode, any SQLAlchemy URL, PostgreSQL when available."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
import uuid
from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.errors import StoreError
from codemode_kernel.journal import SCHEMA_VERSION, JournalStore, Outcome
from tests.support import Shop

pytestmark = pytest.mark.anyio


def test_sqlite_file_is_private_and_in_wal_mode(tmp_path: Path) -> None:
    """The default SQLite file is readable by its owner only and uses WAL."""
    path = tmp_path / "sub" / "nb.codemode.db"
    store = JournalStore(f"sqlite:///{path}")
    with store.session() as conn:
        store.insert_execution(conn, "default", "x", "1", [], {}, {})
    store.dispose()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        version = db.execute("SELECT value FROM codemode_meta WHERE key='schema_version'").fetchone()[0]
    assert version == str(SCHEMA_VERSION)


async def test_in_memory_url_works() -> None:
    """Any SQLAlchemy URL is accepted, including an in-memory SQLite database."""
    async with CodemodeRuntime([Shop()], store="sqlite://", executor=InProcessExecutor()) as rt:
        paused = await rt.execute("shop.create_item(title='x')")
        assert (await rt.approve(paused["execution_id"]))["status"] == "completed"


async def test_shared_store_approves_once_across_two_runtimes(db_url: str) -> None:
    """On either store: pause, approve once across two runtimes racing, rollback from the other."""
    name = f"shared-{uuid.uuid4().hex[:8]}"
    shop = Shop()
    a = CodemodeRuntime([shop], store=db_url, executor=InProcessExecutor(), name=name)
    b = CodemodeRuntime([shop], store=db_url, executor=InProcessExecutor(), name=name)
    try:
        paused = await a.execute("shop.list_items()\nshop.create_item(title='pg')")
        outs = await asyncio.gather(a.approve(paused["execution_id"]), b.approve(paused["execution_id"]))
        assert sorted(o["status"] for o in outs) == ["completed", "error"]
        assert shop.calls["create_item"] == 1
        await b.rollback(paused["execution_id"])
        state = await a.execution(paused["execution_id"])
        assert state is not None and state.status == "rolled_back"
    finally:
        await a.aclose()
        await b.aclose()


def test_an_execution_updated_at_the_cutoff_is_stale(tmp_path: Path) -> None:
    """It is an error if expiry misses an execution updated in the very millisecond of its cutoff.

    expire_paused(max_age=0) on a fast machine used to miss a paused execution now and then
    (its updated_at equal to the cutoff).
    """
    store = JournalStore(f"sqlite:///{tmp_path / 'j.codemode.db'}")
    with store.session() as conn:
        store.insert_execution(conn, "default", "e1", "1", [], {}, {})
        row = store.get_execution(conn, "default", "e1")
        assert row is not None
        assert store.stale(conn, "default", row.status, row.updated_at) == ["e1"]
        assert store.stale(conn, "default", row.status, row.updated_at - 1) == []
    store.dispose()


def test_starting_an_execution_prunes_and_inserts_in_one_transaction(db_url: str) -> None:
    """It is an error if a failed start leaves the prune done: the prune and the insert commit together.

    Issue 12 grouped the pass-start statements (prune, insert, first pass) into one commit.
    """
    store = JournalStore(db_url)
    terminal = ["completed", "error", "rejected", "rolled_back"]
    try:
        with store.session() as conn:
            for eid in ("e1", "e2", "e3"):
                store.insert_execution(conn, "default", eid, "1", [], {}, {})
                assert store.transition(conn, "default", eid, ["running"], "completed", result="1")
            with pytest.raises(StoreError):  # the id is taken: the insert fails, so must the prune
                store.start_execution(conn, "default", "e3", "2", [], {}, {}, keep=1, terminal=terminal)
            assert sorted(r.id for r in store.list_executions(conn, "default")) == ["e1", "e2", "e3"]
            assert store.start_execution(conn, "default", "e4", "2", [], {}, {}, keep=1, terminal=terminal) == 2
            rows = {r.id: (r.status, r.passes) for r in store.list_executions(conn, "default")}
            assert rows == {"e3": ("completed", 0), "e4": ("running", 1)}
    finally:
        store.dispose()


def test_an_outcome_and_the_entry_it_rides_with_commit_together(db_url: str) -> None:
    """It is an error if a call's outcome is stored without the next entry it was sent with, or lost when
    that entry's seq is taken (issue 12: one commit per journaled call)."""
    store = JournalStore(db_url)
    entry = {"requires_approval": False, "ephemeral": False, "pass_number": 1}
    try:
        with store.session() as conn, store.session() as other:
            store.insert_execution(conn, "default", "e1", "1", [], {}, {})
            assert store.insert_entry(conn, "default", "e1", 0, "c", "m", "{}", "executing", **entry)
            with pytest.raises(StoreError):  # a value the driver cannot bind: nothing of the two is kept
                store.insert_entry(conn, "default", "e1", 1, "c", "m", "{}", "executing", **{
                    **entry, "pass_number": object()}, finish=Outcome(0, "applied", "10"))
            assert [(e.seq, e.state) for e in store.entries(other, "default", "e1")] == [(0, "executing")]
            assert store.insert_entry(conn, "default", "e1", 1, "c", "m", "{}", "executing", **entry,
                                      finish=Outcome(0, "applied", "10"))
            assert [(e.seq, e.state, e.result) for e in store.entries(other, "default", "e1")] == [
                (0, "applied", "10"), (1, "executing", None)]
            # seq 1 is taken: the insert loses, the outcome it carried is stored all the same
            assert not store.insert_entry(conn, "default", "e1", 1, "c", "m", "{}", "executing", **entry,
                                          finish=Outcome(1, "error", error="KeyError: x"))
            assert [(e.seq, e.state, e.error) for e in store.entries(other, "default", "e1")] == [
                (0, "applied", None), (1, "error", "KeyError: x")]
    finally:
        store.dispose()
