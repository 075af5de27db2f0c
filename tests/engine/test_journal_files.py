"""Where a notebook's journal lives and how it follows the notebook (codemode_kernel.journal_files).

Real SQLite files in a temporary folder; "another program" is a second sqlite3 connection
holding the journal open in write-ahead mode, as a second kernel's store does.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from codemode_kernel.journal_files import (
    Identity,
    existing_journal,
    follow_rename,
    journal_file,
    locate,
    move_journal,
    read_identity,
    write_identity,
)


def make_journal(path: Path, rows: int = 1) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    c = sqlite3.connect(path)
    try:
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
        c.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(rows)])
        c.commit()
    finally:
        c.close()
    return path


def rows(path: Path) -> int:
    c = sqlite3.connect(path)
    try:
        return int(c.execute("SELECT count(*) FROM t").fetchone()[0])
    finally:
        c.close()


def notebook(path: Path, journal_id: str | None) -> Path:
    meta = {"codemode": {"journal": journal_id}} if journal_id else {}
    path.write_text(json.dumps({"cells": [], "metadata": meta, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_the_journal_is_named_after_the_notebook_in_a_hidden_folder(tmp_path: Path) -> None:
    assert journal_file(tmp_path / "analysis.ipynb", tmp_path) == tmp_path / ".codemode" / "analysis.codemode.db"
    assert journal_file(None, tmp_path / "proj") == tmp_path / "proj" / ".codemode" / "proj.codemode.db"
    nb = tmp_path / "analysis.ipynb"
    assert existing_journal(nb, tmp_path) == journal_file(nb, tmp_path)


def test_a_journal_moves_with_its_write_ahead_log_when_nobody_else_has_it_open(tmp_path: Path) -> None:
    source = make_journal(tmp_path / "a.codemode.db", rows=3)
    target = tmp_path / ".codemode" / "a.codemode.db"
    assert move_journal(source, target) is None
    assert rows(target) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == [".codemode"], "no -wal or -shm left behind"


def test_a_journal_another_program_holds_open_is_not_moved(tmp_path: Path) -> None:
    source = make_journal(tmp_path / "a.codemode.db", rows=2)
    other = sqlite3.connect(source)
    other.execute("PRAGMA journal_mode=WAL")
    other.execute("SELECT count(*) FROM t").fetchone()
    try:
        reason = move_journal(source, tmp_path / ".codemode" / "a.codemode.db")
        assert reason is not None and "another program" in reason
        other.execute("INSERT INTO t VALUES (9)")
        other.commit()
    finally:
        other.close()
    assert rows(source) == 3 and not (tmp_path / ".codemode" / "a.codemode.db").exists()


def test_a_file_that_is_not_a_journal_is_left_where_it_is(tmp_path: Path) -> None:
    source = tmp_path / "a.codemode.db"
    source.write_bytes(b"not a journal " * 100)
    reason = move_journal(source, tmp_path / ".codemode" / "a.codemode.db")
    assert reason is not None and "not a readable SQLite journal" in reason
    assert source.read_bytes() == b"not a journal " * 100


def test_an_older_journal_beside_the_notebook_is_moved_in(tmp_path: Path) -> None:
    make_journal(tmp_path / "analysis.codemode.db", rows=4)
    found = locate(tmp_path / "analysis.ipynb", tmp_path)
    assert found.path == tmp_path / ".codemode" / "analysis.codemode.db" and rows(found.path) == 4
    assert found.note is not None and found.note.startswith("moved the journal analysis.codemode.db into .codemode/")


def test_a_renamed_notebook_finds_its_journal_by_the_id_in_its_metadata(tmp_path: Path) -> None:
    old = make_journal(tmp_path / ".codemode" / "Untitled.codemode.db", rows=5)
    write_identity(old, Identity("id-1", str(tmp_path / "Untitled.ipynb")))
    renamed = notebook(tmp_path / "analysis.ipynb", "id-1")
    found = locate(renamed, tmp_path)
    assert found.path == tmp_path / ".codemode" / "analysis.codemode.db" and rows(found.path) == 5
    assert found.journal_id == "id-1" and not old.exists()


def test_a_copy_starts_its_own_journal_and_the_original_keeps_its_history(tmp_path: Path) -> None:
    original = notebook(tmp_path / "analysis.ipynb", "id-1")
    journal = make_journal(tmp_path / ".codemode" / "analysis.codemode.db", rows=5)
    write_identity(journal, Identity("id-1", str(original)))
    copy = notebook(tmp_path / "analysis-Copy1.ipynb", "id-1")
    found = locate(copy, tmp_path)
    assert found.path == tmp_path / ".codemode" / "analysis-Copy1.codemode.db" and not found.path.exists()
    assert found.journal_id != "id-1" and found.note is not None and "is a copy of analysis.ipynb" in found.note
    assert rows(journal) == 5 and read_identity(journal) == Identity("id-1", str(original))


def test_a_new_notebook_that_reuses_a_gone_notebooks_id_is_not_a_copy(tmp_path: Path) -> None:
    """The notebook a journal recorded was renamed and a new one took its old name: not a copy."""
    old = make_journal(tmp_path / ".codemode" / "report.codemode.db", rows=2)
    write_identity(old, Identity("id-1", str(tmp_path / "Untitled.ipynb")))
    notebook(tmp_path / "Untitled.ipynb", None)  # a brand-new Untitled, no id
    found = locate(notebook(tmp_path / "final.ipynb", "id-1"), tmp_path)
    assert found.path == tmp_path / ".codemode" / "final.codemode.db" and rows(found.path) == 2


def test_following_a_rename_moves_only_a_journal_named_after_the_notebook(tmp_path: Path) -> None:
    current = make_journal(tmp_path / ".codemode" / "a.codemode.db")
    path, reason = follow_rename(current, tmp_path / "a.ipynb", tmp_path / "sub" / "b.ipynb")
    assert reason is None and path == tmp_path / "sub" / ".codemode" / "b.codemode.db" and rows(path) == 1
    explicit = make_journal(tmp_path / "shared.db")
    assert follow_rename(explicit, tmp_path / "x.ipynb", tmp_path / "y.ipynb") == (explicit, None)
