"""Store sessions (issue 12): a SQLite store keeps its connection open from one session to the
next, and nothing a session left open is carried over; other databases check out from the pool."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.pool import NullPool

from codemode_kernel.journal import KEPT_CONNECTIONS, JournalStore


def _open_fds(path: Path) -> int:
    """How many file descriptors of this process are open on ``path`` (the journal file itself)."""
    target = str(path.resolve())
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == target:
                count += 1
        except OSError:
            continue
    return count


def test_the_next_session_reuses_the_connection(tmp_path: Path) -> None:
    """On SQLite one session's connection is the next one's: ten sessions in a row check out from
    the pool once (each pass opens a session; a checkout and check-in per pass cost ~100 us of a
    spaced pass, issue 12)."""
    store = JournalStore(f"sqlite:///{tmp_path / 'j.codemode.db'}")
    checkouts: list[object] = []
    event.listen(store.engine, "checkout", lambda dbapi, record, proxy: checkouts.append(dbapi))
    try:
        with store.session() as conn:
            first = conn.connection.dbapi_connection
        for _ in range(9):
            with store.session() as conn:
                assert conn.connection.dbapi_connection is first
        assert len(checkouts) == 1
        with store.session() as conn, store.session() as inner:  # two at once: two connections
            assert inner.connection.dbapi_connection is not conn.connection.dbapi_connection
    finally:
        store.dispose()


def test_a_transaction_left_open_is_not_carried_over(tmp_path: Path) -> None:
    """It is an error if a session that ends inside a transaction keeps its write lock or its change."""
    path = tmp_path / "j.codemode.db"
    store = JournalStore(f"sqlite:///{path}")
    try:
        with store.session() as conn:
            raw = conn.connection.dbapi_connection
            assert raw is not None
            raw.cursor().execute("INSERT INTO codemode_meta (key, value) VALUES ('left', 'open')")
        other = sqlite3.connect(path, timeout=0)  # no waiting: a held lock fails at once
        try:
            other.execute("INSERT INTO codemode_meta (key, value) VALUES ('other', 'writer')")
            other.commit()
            assert other.execute("SELECT key FROM codemode_meta WHERE key = 'left'").fetchall() == []
        finally:
            other.close()
        with store.session() as conn:
            assert conn.exec_driver_sql("SELECT key FROM codemode_meta WHERE key IN ('left', 'other')").all() == [
                ("other",)]
    finally:
        store.dispose()


def test_a_session_that_raised_leaves_a_usable_connection(tmp_path: Path) -> None:
    """A session ended by an exception mid-transaction hands the next session a clean connection."""
    store = JournalStore(f"sqlite:///{tmp_path / 'j.codemode.db'}")
    try:
        with pytest.raises(RuntimeError), store.session() as conn:
            conn.execute(text("INSERT INTO codemode_meta (key, value) VALUES ('half', 'done')"))
            raise RuntimeError("stopped")
        with store.session() as conn:
            assert not conn.in_transaction() or conn.exec_driver_sql("SELECT 1").all() == [(1,)]
            assert conn.exec_driver_sql("SELECT key FROM codemode_meta WHERE key = 'half'").all() == []
    finally:
        store.dispose()


def test_dispose_closes_every_kept_connection(tmp_path: Path) -> None:
    """After dispose() no connection of the store holds the journal file open."""
    path = tmp_path / "j.codemode.db"
    store = JournalStore(f"sqlite:///{path}")
    sessions = [store.session() for _ in range(KEPT_CONNECTIONS + 2)]
    for s in sessions:  # more at once than are kept
        s.__enter__()
    for s in sessions:
        s.__exit__(None, None, None)
    assert _open_fds(path) >= KEPT_CONNECTIONS
    store.dispose()
    assert _open_fds(path) == 0


def test_a_dropped_connection_is_not_handed_to_the_next_session(db_url: str) -> None:
    """A connection that broke (SQLite: closed under the store; PostgreSQL: ended by the server between
    two sessions, where each session checks out from the pool with its pre-ping) is replaced."""
    store = JournalStore(db_url)
    admin = create_engine(db_url, poolclass=NullPool)
    try:
        if store.dialect == "sqlite":
            with store.session() as conn:
                broken = conn.connection.dbapi_connection
                assert broken is not None
                broken.close()
            with store.session() as conn:
                assert conn.connection.dbapi_connection is not broken
                assert conn.exec_driver_sql("SELECT count(*) FROM codemode_meta").scalar() == 2
            return
        with store.session() as conn:
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            conn.commit()
        with admin.begin() as other:
            assert other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar() is True
        with store.session() as conn:
            assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() != pid
            conn.commit()
    finally:
        admin.dispose()
        store.dispose()


def test_a_session_open_during_dispose_closes_its_connection(tmp_path: Path) -> None:
    """It is an error if a session that ends after dispose() keeps its connection (the file stays open)."""
    path = tmp_path / "j.codemode.db"
    store = JournalStore(f"sqlite:///{path}")
    with store.session() as conn:
        conn.exec_driver_sql("SELECT 1").all()
        store.dispose()
    assert _open_fds(path) == 0
