"""Schema upgrades: a journal written by an older version opens, is backed up, then upgraded;
a journal written by a newer version is refused with a message naming what is needed.

``fixtures/journal-schema-v1.db`` is schema version 1 as that version wrote it (see
``fixtures/make_journal_v1.py``). The migration machinery is exercised with migrations
injected into :class:`JournalStore`, the same path a real ``MIGRATIONS`` entry takes.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.errors import SchemaVersionError, StoreError
from codemode_kernel.journal import SCHEMA_VERSION, JournalStore
from tests.support import Shop

pytestmark = pytest.mark.anyio

FIXTURE = Path(__file__).parent / "fixtures" / "journal-schema-v1.db"
TO_V2 = [(2, ["ALTER TABLE codemode_executions ADD COLUMN label TEXT",
              "CREATE INDEX ix_codemode_entries_state ON codemode_entries (state)"])]


@pytest.fixture
def v1_copy(tmp_path: Path) -> Path:
    path = tmp_path / "nb.codemode.db"
    shutil.copyfile(FIXTURE, path)
    return path


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def _version(path: Path) -> str:
    return str(_rows(path, "SELECT value FROM codemode_meta WHERE key = 'schema_version'")[0][0])


ALL_ROWS = ("SELECT runtime, id, code, status, result, error, passes FROM codemode_executions ORDER BY id",
            "SELECT execution_id, seq, connector, method, args, result, state FROM codemode_entries "
            "ORDER BY execution_id, seq",
            "SELECT runtime, name, code, description FROM codemode_snippets")


async def test_a_v1_journal_works_with_todays_code(v1_copy: Path) -> None:
    """Every record of a v1 journal reads back, its paused execution approves once, and the store is sound."""
    shop = Shop()
    async with CodemodeRuntime([shop], store=f"sqlite:///{v1_copy}", executor=InProcessExecutor()) as rt:
        states = {e.status: e for e in await rt.executions()}
        assert sorted(states) == ["completed", "error", "paused", "rejected", "rolled_back"]
        assert states["completed"].result == [1, 7]
        assert [(e.method, e.state) for e in states["completed"].log] == [("list_items", "applied"), ("n", "applied")]
        assert [(e.method, e.state) for e in states["rolled_back"].log] == [("add_item", "reverted")]
        assert [s.name for s in await rt.snippets()] == ["count_items"]
        out = await rt.approve(states["paused"].id)
        assert out["status"] == "completed" and shop.calls["create_item"] == 1
        assert shop.calls["list_items"] == 0  # replayed from the v1 journal
        assert rt.store.integrity_problems() == []
    async with CodemodeRuntime([Shop()], store=f"sqlite:///{v1_copy}", executor=InProcessExecutor(),
                               name="research") as rt:
        assert [e.result for e in await rt.executions()] == [2]
    assert _version(v1_copy) == str(SCHEMA_VERSION)


def test_an_upgrade_backs_up_the_file_first(v1_copy: Path) -> None:
    """Before migrating, a copy of the old file is made beside it; the upgraded file keeps every row."""
    before = [_rows(v1_copy, q) for q in ALL_ROWS]
    store = JournalStore(f"sqlite:///{v1_copy}", migrations=TO_V2)
    store.dispose()
    backup = v1_copy.with_name(v1_copy.name + ".schema-v1.backup")
    assert backup.exists()
    assert _version(backup) == "1" and [_rows(backup, q) for q in ALL_ROWS] == before
    assert _version(v1_copy) == "2" and [_rows(v1_copy, q) for q in ALL_ROWS] == before
    assert "label" in [r[1] for r in _rows(v1_copy, "PRAGMA table_info(codemode_executions)")]
    assert backup.stat().st_mode & 0o077 == 0  # as private as the journal


def test_an_up_to_date_journal_is_not_copied(tmp_path: Path) -> None:
    """Opening a journal at the current version makes no backup."""
    url = f"sqlite:///{tmp_path / 'nb.codemode.db'}"
    JournalStore(url).dispose()
    JournalStore(url).dispose()
    assert [p.name for p in tmp_path.iterdir() if "backup" in p.name] == []


def test_a_failed_upgrade_changes_nothing(v1_copy: Path) -> None:
    """A migration that fails part-way is rolled back whole; the error names both versions and the backup."""
    broken = [(2, ["ALTER TABLE codemode_executions ADD COLUMN label TEXT", "THIS IS NOT SQL"])]
    with pytest.raises(StoreError) as caught:
        JournalStore(f"sqlite:///{v1_copy}", migrations=broken)
    message = str(caught.value)
    assert "version 1 to 2" in message and "schema-v1.backup" in message
    assert _version(v1_copy) == "1"
    assert "label" not in [r[1] for r in _rows(v1_copy, "PRAGMA table_info(codemode_executions)")]


def test_three_processes_upgrading_at_once_migrate_once(v1_copy: Path) -> None:
    """Hosts opening an old journal together: one migrates, the others see the new version (no double ALTER)."""
    code = ("import sys; from codemode_kernel.journal import JournalStore\n"
            f"JournalStore(sys.argv[1], migrations={TO_V2!r}).dispose()")
    procs = [subprocess.Popen([sys.executable, "-c", code, f"sqlite:///{v1_copy}"], stderr=subprocess.PIPE)
             for _ in range(3)]
    errors = [p.communicate()[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], "\n".join(errors)
    assert _version(v1_copy) == "2"
    assert len(list(v1_copy.parent.glob("*.backup"))) == 1


def _set_meta(url: str, **values: str) -> None:
    engine = create_engine(url, poolclass=NullPool)
    with engine.begin() as conn:
        for key, value in values.items():
            conn.execute(text("DELETE FROM codemode_meta WHERE key = :k"), {"k": key})
            conn.execute(text("INSERT INTO codemode_meta (key, value) VALUES (:k, :v)"), {"k": key, "v": value})
        conn.execute(text("DROP TABLE codemode_snippets"))
    engine.dispose()


def _tables(url: str) -> set[str]:
    from sqlalchemy import inspect

    engine = create_engine(url, poolclass=NullPool)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_a_newer_journal_is_refused_naming_the_version_needed(db_url: str) -> None:
    """A journal from a newer version is refused before anything is written; the message says what to install."""
    JournalStore(db_url).dispose()
    _set_meta(db_url, schema_version="7", package_version="3.1.0")
    with pytest.raises(SchemaVersionError) as caught:
        JournalStore(db_url)
    message = str(caught.value)
    assert "schema version 7" in message and f"up to {SCHEMA_VERSION}" in message
    assert "codemode-kernel>=3.1.0" in message
    assert caught.value.found == 7 and caught.value.known == SCHEMA_VERSION
    assert "codemode_snippets" not in _tables(db_url)  # nothing was created in the newer schema


def test_a_newer_journal_without_a_package_version_still_says_which_schema(db_url: str) -> None:
    """Without a recorded package version the message still names the schema version needed."""
    JournalStore(db_url).dispose()
    _set_meta(db_url, schema_version="4")
    engine = create_engine(db_url, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM codemode_meta WHERE key = 'package_version'"))
    engine.dispose()
    with pytest.raises(SchemaVersionError, match="supports journal schema version 4"):
        JournalStore(db_url)


def test_upgrade_on_any_store(db_url: str) -> None:
    """On PostgreSQL too: an older store is upgraded in one transaction, keeping its rows."""
    store = JournalStore(db_url)
    with store.session() as conn:
        store.insert_execution(conn, "default", "x1", "1 + 1", [], {}, {})
    store.dispose()
    _set_meta(db_url, schema_version="1")
    engine = create_engine(db_url, poolclass=NullPool)
    with engine.begin() as conn:  # _set_meta dropped it; a v1 store has it
        conn.execute(text("CREATE TABLE codemode_snippets (runtime VARCHAR(128) NOT NULL, name VARCHAR(256) NOT NULL, "
                          "description TEXT NOT NULL, code TEXT NOT NULL, input_schema TEXT, connectors TEXT NOT NULL, "
                          "execution_id VARCHAR(64), saved_at BIGINT NOT NULL, PRIMARY KEY (runtime, name))"))
    engine.dispose()
    upgraded = JournalStore(db_url, migrations=TO_V2)
    with upgraded.session() as conn:
        row = upgraded.get_execution(conn, "default", "x1")
        assert row is not None and row.code == "1 + 1"
        assert conn.execute(text("SELECT label FROM codemode_executions")).all() == [(None,)]
    assert upgraded.integrity_problems() == []
    upgraded.dispose()
