"""Schema version 2 (issue 12): the index that orders a runtime's executions by creation.

The retention prune at every pass's start asks for the terminal executions after the newest
``keep`` ones; without an index it sorted every execution of the runtime. A journal of
version 1 (every notebook's journal before this change) opens, is upgraded in place and
keeps its executions, on SQLite and PostgreSQL; the code of version 1 refuses the upgraded
journal, naming what it needs.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, create_engine, event, inspect, text
from sqlalchemy.pool import NullPool

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.errors import SchemaVersionError
from codemode_kernel.journal import SCHEMA_VERSION, JournalStore
from codemode_kernel.models import TERMINAL_STATUSES
from tests.support import Shop

pytestmark = pytest.mark.anyio

INDEX = "ix_codemode_executions_by_creation"
V1_FIXTURE = Path(__file__).parents[1] / "reliability" / "fixtures" / "journal-schema-v1.db"
ROWS = "SELECT runtime, id, code, status, result, error, passes, created_at FROM codemode_executions ORDER BY id"


def _engine_sql(url: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(sql), params)
            return [tuple(r) for r in result] if result.returns_rows else []
    finally:
        engine.dispose()


def _indexes(url: str) -> dict[str, list[str | None]]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        return {str(ix["name"]): list(ix["column_names"]) for ix in inspect(engine).get_indexes("codemode_executions")}
    finally:
        engine.dispose()


def _version(url: str) -> str:
    return str(_engine_sql(url, "SELECT value FROM codemode_meta WHERE key = 'schema_version'")[0][0])


def _make_v1(url: str, executions: int) -> None:
    """A store of schema version 1 as that version made it: today's tables without the index, with
    ``executions`` completed executions of runtime ``default`` (created a millisecond apart)."""
    store = JournalStore(url)
    with store.session() as conn:
        for i in range(executions):
            store.insert_execution(conn, "default", f"e{i:04d}", f"{i} + 1", [], {}, {})
            store.transition(conn, "default", f"e{i:04d}", ["running"], "completed", result=str(i + 1))
    store.dispose()
    _engine_sql(url, f"DROP INDEX {INDEX}")
    _engine_sql(url, "UPDATE codemode_meta SET value = '1' WHERE key = 'schema_version'")
    for i in range(executions):
        _engine_sql(url, "UPDATE codemode_executions SET created_at = :t WHERE id = :id", t=1_700_000_000_000 + i,
                    id=f"e{i:04d}")


@contextmanager
def _statements(store: JournalStore) -> Iterator[list[tuple[str, Any]]]:
    """The SQL (and parameters) the store runs through its engine while the block runs."""
    seen: list[tuple[str, Any]] = []

    def heard(conn: Connection, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        seen.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", heard)
    try:
        yield seen
    finally:
        event.remove(store.engine, "before_cursor_execute", heard)


def _plan(store: JournalStore, statement: str, parameters: Any) -> str:
    """The database's plan for ``statement``, one text (PostgreSQL: with sequential scans discouraged,
    as on a table too large to read whole; a handful of rows is read whole whatever the indexes)."""
    with store.engine.connect() as conn:
        if store.dialect == "sqlite":
            rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters).all()
            plan = " | ".join(str(r[-1]) for r in rows)
        else:
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            plan = " | ".join(str(r[0]) for r in conn.exec_driver_sql("EXPLAIN " + statement, parameters).all())
        conn.rollback()
    return plan


def _prune_sql(store: JournalStore, keep: int) -> tuple[str, Any, list[str]]:
    """The prune's query as the store runs it, with its parameters, and the ids it returned."""
    with _statements(store) as seen, store.session() as conn:
        victims = store.terminal_beyond(conn, "default", keep, sorted(TERMINAL_STATUSES))
    (statement, parameters), = [s for s in seen if "ORDER BY" in s[0]]
    return statement, parameters, victims


def test_a_new_store_is_created_at_the_newest_version_with_the_index(db_url: str) -> None:
    """A fresh store records SCHEMA_VERSION (2) and has the index on (runtime, created_at, id, status)."""
    JournalStore(db_url).dispose()
    assert SCHEMA_VERSION == 2 and _version(db_url) == "2"
    assert _indexes(db_url)[INDEX] == ["runtime", "created_at", "id", "status"]


def test_a_version_1_store_is_upgraded_in_place_and_keeps_its_executions(db_url: str) -> None:
    """A v1 store opens, gains the index a fresh store has, keeps every execution, and prunes by creation."""
    _make_v1(db_url, 60)
    before = _engine_sql(db_url, ROWS)
    assert INDEX not in _indexes(db_url) and _version(db_url) == "1"
    store = JournalStore(db_url)
    try:
        assert _version(db_url) == "2"
        assert _engine_sql(db_url, ROWS) == before
        assert _indexes(db_url)[INDEX] == ["runtime", "created_at", "id", "status"]
        assert store.integrity_problems() == []
        victims = _prune_sql(store, 50)[2]
        assert victims == [f"e{i:04d}" for i in range(9, -1, -1)]  # the ten oldest, newest of them first
    finally:
        store.dispose()


def test_an_upgraded_store_has_the_indexes_of_a_fresh_one(db_url: str, tmp_path: Path) -> None:
    """Upgrading adds exactly what a fresh store of the newest version has (same names, same columns)."""
    JournalStore(db_url).dispose()
    fresh = _indexes(db_url)
    _engine_sql(db_url, f"DROP INDEX {INDEX}")
    _engine_sql(db_url, "UPDATE codemode_meta SET value = '1' WHERE key = 'schema_version'")
    JournalStore(db_url).dispose()
    assert _indexes(db_url) == fresh


def test_the_prune_reads_the_index_instead_of_sorting(db_url: str) -> None:
    """It is an error if the prune's query (as the store runs it) sorts the executions: the plan walks the index."""
    _make_v1(db_url, 60)
    store = JournalStore(db_url)
    try:
        statement, parameters, victims = _prune_sql(store, 50)
        assert len(victims) == 10
        plan = _plan(store, statement, parameters)
        assert INDEX in plan, plan
        if store.dialect == "sqlite":
            assert "COVERING INDEX" in plan and "TEMP B-TREE" not in plan, plan
        else:
            assert "Sort" not in plan, plan
    finally:
        store.dispose()


def test_the_list_of_executions_reads_the_index_too(db_url: str) -> None:
    """executions() (newest first, the panel's list) walks the same index without a sort."""
    _make_v1(db_url, 5)
    store = JournalStore(db_url)
    try:
        with _statements(store) as seen, store.session() as conn:
            rows = store.list_executions(conn, "default", limit=3)
        assert [r.id for r in rows] == ["e0004", "e0003", "e0002"]
        (statement, parameters), = [s for s in seen if "ORDER BY" in s[0]]
        plan = _plan(store, statement, parameters)
        assert INDEX in plan and "TEMP B-TREE" not in plan and "Sort" not in plan, plan
    finally:
        store.dispose()


def test_the_code_of_version_1_refuses_an_upgraded_store(db_url: str) -> None:
    """A store upgraded to 2 and opened by code that knows version 1 only is refused, naming both versions."""
    JournalStore(db_url).dispose()
    with pytest.raises(SchemaVersionError) as caught:
        JournalStore(db_url, migrations=[])
    assert caught.value.found == 2 and caught.value.known == 1
    assert "schema version 2" in str(caught.value) and "up to 1" in str(caught.value)


async def test_a_notebook_journal_of_version_1_works_after_the_upgrade(tmp_path: Path) -> None:
    """The frozen v1 journal (written by version 1's code): upgraded on open, backed up first, every
    execution kept, and new passes prune past max_executions oldest first."""
    path = tmp_path / "nb.codemode.db"
    shutil.copyfile(V1_FIXTURE, path)
    with sqlite3.connect(path) as db:
        before = db.execute(ROWS).fetchall()
        assert INDEX not in {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    async with CodemodeRuntime([Shop()], store=f"sqlite:///{path}", executor=InProcessExecutor(),
                               max_executions=5) as rt:
        with sqlite3.connect(path) as db:
            assert db.execute(ROWS).fetchall() == before
            assert db.execute("SELECT value FROM codemode_meta WHERE key = 'schema_version'").fetchone() == ("2",)
        assert path.with_name(path.name + ".schema-v1.backup").exists()
        old = await rt.executions()
        assert len(old) == 5  # runtime default: one of each status
        done = [(await rt.execute(f"{i} + 1"))["execution_id"] for i in range(3)]
        # Each start prunes the terminal ones beyond the newest five, then adds its own: the
        # third start kept the two new ones and the three newest terminal old ones (the paused
        # one is never pruned).
        old_terminal = [e.id for e in old if e.status != "paused"]
        expected = [*reversed(done), *old_terminal[:3], *[e.id for e in old if e.status == "paused"]]
        assert sorted(e.id for e in await rt.executions()) == sorted(expected)
        assert rt.store.integrity_problems() == []
