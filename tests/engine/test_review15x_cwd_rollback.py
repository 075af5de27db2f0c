"""Review 15x: ``codemode rollback`` from another working folder reverts on another database and
reports success.

A ``python`` table's connector opens what its options name; README's own example is
``options = { path = "notes.sqlite" }``, and plain connector code (``sqlite3.connect(path)``)
reads a relative path against the process's working folder. The kernel runs in the notebook's
folder; ``codemode --notebook /path/analysis.ipynb rollback last`` (or ``--dir``) runs wherever
the person's terminal is. The execution's recorded target (factory, options and folder of the
table) matches, so the rollback goes ahead: the revert deletes the row from a *new*
``data.sqlite`` in the terminal's folder, the command prints "rolled_back; rolled back 1
action(s): items.add (call #0)", the execution is ``rolled_back`` - and the row the program
wrote is still in the notebook folder's database. Seen with a real kernel too (the write
approved in the notebook, the rollback from ``/tmp/elsewhere``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from codemode_kernel.cli import main

MODULE = '''
import sqlite3

from codemode_kernel import ToolSetConnector


def items(path: str):
    def db():
        c = sqlite3.connect(path)
        c.execute("create table if not exists items(id integer primary key, text text)")
        return c

    def add(text: str) -> dict:
        """Add an item."""
        with db() as c:
            return {"id": c.execute("insert into items(text) values (?)", (text,)).lastrowid, "text": text}

    def remove(args, result, ctx):
        with db() as c:
            c.execute("delete from items where id = ?", (result["id"],))

    return ToolSetConnector([add], name="items", requires_approval={"add"}, reverts={"add": remove})
'''


def test_rollback_from_another_folder_undoes_the_write_or_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "review15x_cwd_items.py").write_text(MODULE)
    (project / "codemode.toml").write_text('[connectors.items]\npython = "review15x_cwd_items:items"\n'
                                           'options = { path = "data.sqlite" }\n[executor]\nkind = "inprocess"\n')
    (project / "add.py").write_text("items.add(text='written')\n")
    monkeypatch.chdir(project)  # where the notebook's kernel runs
    assert main(["--dir", str(project), "--json", "run", "--approve", "yes", "add.py"], ask=lambda q: "y") == 0
    assert json.loads(capsys.readouterr().out)["status"] == "completed"
    with sqlite3.connect(project / "data.sqlite") as c:
        assert c.execute("select count(*) from items").fetchone() == (1,)

    monkeypatch.chdir(elsewhere)  # a terminal somewhere else
    rc = main(["--dir", str(project), "rollback", "last"], ask=lambda q: "y")
    said = capsys.readouterr()
    with sqlite3.connect(project / "data.sqlite") as c:
        left = c.execute("select count(*) from items").fetchone()[0]
    assert left == 0 or rc != 0, f"rc {rc}: {said.out}{said.err}; the row is still there"
    assert not (elsewhere / "data.sqlite").exists()
