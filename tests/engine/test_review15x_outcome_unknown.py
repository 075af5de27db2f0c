"""Review 15x: rolling back an execution whose call's outcome is unknown says "Nothing to roll back".

A connector raises ``OutcomeUnknown`` (README: "raise it from your own connectors too") when
a write was sent and no answer came: it may have been done. The entry stays ``executing``
and is never reverted. ``codemode rollback`` (and the kernel's ``%rollback``) then answer
"Nothing to roll back: no applied action of this execution can be reverted." and the
``--json`` document is ``{"reverted": []}``: the person who rolls back to undo what the
program did is not told that call #0 may have been done and was left as it is. Here it *was*
done (the row is in the store).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from codemode_kernel.cli import main

CONNECTOR_MODULE = '''
import sqlite3

from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import OutcomeUnknown


def items(path: str):
    def db():
        c = sqlite3.connect(path)
        c.execute("create table if not exists items(id integer primary key, text text)")
        return c

    def add(text: str) -> dict:
        """Add an item."""
        with db() as c:
            rid = c.execute("insert into items(text) values (?)", (text,)).lastrowid
        if text.startswith("lost"):
            raise OutcomeUnknown("items.add: the store did not answer after the write was sent")
        return {"id": rid, "text": text}

    def remove(args, result, ctx):
        with db() as c:
            c.execute("delete from items where id = ?", (result["id"],))

    return ToolSetConnector([add], name="items", requires_approval={"add"}, reverts={"add": remove})
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "review15x_items.py").write_text(CONNECTOR_MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.items]\npython = "review15x_items:items"\n'
                                            f'options = {{ path = "{tmp_path / "items.sqlite"}" }}\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "lost.py").write_text("items.add(text='lost one')\n")
    return tmp_path


def _cli(project: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(["--dir", str(project), *argv], ask=lambda q: "y")
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _unknown(project: Path, capsys: pytest.CaptureFixture[str]) -> str:
    _rc, out, _ = _cli(project, capsys, "--json", "run", "--approve", "yes", str(project / "lost.py"))
    answer = json.loads(out)
    assert answer["status"] == "error" and "OutcomeUnknown" in answer["error"], answer
    with sqlite3.connect(project / "items.sqlite") as c:  # it was done
        assert c.execute("select count(*) from items").fetchone() == (1,)
    return str(answer["execution_id"])


def test_rollback_names_the_call_whose_outcome_is_unknown(project: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    eid = _unknown(project, capsys)
    _rc, out, err = _cli(project, capsys, "rollback", eid)
    said = out + err
    assert "#0" in said and "unknown" in said.lower(), said  # today: "Nothing to roll back: ..."
    assert "Nothing to roll back" not in said, said


def test_json_rollback_lists_the_call_whose_outcome_is_unknown(project: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    eid = _unknown(project, capsys)
    _rc, out, _ = _cli(project, capsys, "--json", "rollback", eid)
    answer = json.loads(out)
    assert answer["reverted"] == []
    others = {k: v for k, v in answer.items() if k not in ("execution_id", "status", "reverted")}
    assert any(v == [0] or v == 0 for v in others.values()), answer  # e.g. "unknown": [0]
