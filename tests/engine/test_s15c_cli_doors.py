"""The ``codemode`` command: cases of reviews 15 / 15x the review's own specs leave out (s15c).

- a model's pause is shown whole before ``codemode approve`` runs it, a "no" runs nothing, and
  ``--yes`` (scripts) approves without a question;
- ``--json run`` shows every pause's arguments, uncut, before each question;
- connectors run in the configuration's folder for ``approve`` too, a relative program path is
  still the person's, and the command leaves the caller's working directory as it was;
- ``codemode show`` lists a call of unknown outcome as ``unknown``; a rollback that reverts one call
  still names the unknown one;
- ``pending --json`` and ``executions --json`` give plain JSON; a notebook's empty journal says so.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder
from codemode_kernel.cli import main

MODULE = '''
import sqlite3

from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import OutcomeUnknown

CALLS = []


def items(path: str):
    def db():
        c = sqlite3.connect(path)
        c.execute("create table if not exists items(id integer primary key, text text)")
        return c

    def add(text: str) -> dict:
        """Add an item."""
        CALLS.append(text)
        with db() as c:
            rid = c.execute("insert into items(text) values (?)", (text,)).lastrowid
        if text.startswith("lost"):
            raise OutcomeUnknown("items.add: no answer after the write was sent")
        return {"id": rid, "text": text}

    def tag(value: bytes) -> int:
        """Tag an item."""
        return len(value)

    def remove(args, result, ctx):
        with db() as c:
            c.execute("delete from items where id = ?", (result["id"],))

    return ToolSetConnector([add, tag], name="items", requires_approval={"add", "tag"}, reverts={"add": remove})
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "s15c_items.py").write_text(MODULE)
    (folder / "codemode.toml").write_text('[connectors.items]\npython = "s15c_items:items"\n'
                                          'options = { path = "data.sqlite" }\n[executor]\nkind = "inprocess"\n')
    return folder


def calls() -> list[str]:
    return list(sys.modules["s15c_items"].CALLS)  # type: ignore[attr-defined]


def rows(folder: Path) -> list[str]:
    if not (folder / "data.sqlite").exists():
        return []
    with sqlite3.connect(folder / "data.sqlite") as c:
        return [r[0] for r in c.execute("select text from items order by id")]


def model_pauses(folder: Path, code: str) -> str:
    """What ``codemode mcp`` does with a model's program: its execution, paused."""
    async def run() -> str:
        async with runtime_for_folder(folder).runtime as rt:
            out = await rt.tool().call(code)
        assert out["status"] == "paused", out
        return str(out["execution_id"])

    return asyncio.run(run())


def test_no_to_a_models_pause_runs_nothing_and_yes_flag_runs_it_once(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Answered no, the call is not run and stays pending; ``--yes`` approves without a question."""
    sys.modules.pop("s15c_items", None)
    eid = model_pauses(project, "items.add(text='pay mallory')")
    capsys.readouterr()
    asked: list[str] = []
    assert main(["--dir", str(project), "approve", eid], ask=lambda q: asked.append(q) or "n") == 1
    said = capsys.readouterr().out
    assert len(asked) == 1 and calls() == [] and "not approved" in said and "pay mallory" in said
    assert main(["--dir", str(project), "--json", "pending", eid]) == 0
    assert [p["seq"] for p in json.loads(capsys.readouterr().out)] == [0]

    def never(question: str) -> str:
        raise AssertionError(f"asked {question!r}")

    assert main(["--dir", str(project), "approve", eid, "--yes"], ask=never) == 0
    assert calls() == ["pay mallory"] and rows(project) == ["pay mallory"]


def test_json_run_shows_each_pause_uncut_before_its_question(project: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Two pauses, each shown on stderr before its question; an argument padded past any cut is whole."""
    padded = "weekly summary" + " " * 3000 + "and forward it to mallory"
    (project / "two.py").write_text(f"items.add(text={padded!r})\nitems.tag(value=b'secret plan')\n")
    seen: list[str] = []

    def ask(prompt: str) -> str:
        shown = capsys.readouterr()
        seen.append(shown.err)
        return "y"

    assert main(["--dir", str(project), "--json", "run", str(project / "two.py")], ask=ask) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "completed"
    assert len(seen) == 2
    assert "and forward it to mallory" in seen[0], seen[0][-200:]
    assert "items.tag" in seen[1] and "b'secret plan' (11 bytes)" in seen[1], seen[1]  # as the card shows bytes (s16o)


def test_approve_from_another_folder_writes_in_the_projects_folder(project: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The approved write lands in the project's data.sqlite, not the terminal's; cwd is given back."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "prog.py").write_text("items.add(text='approved later')\n")
    monkeypatch.chdir(elsewhere)
    # A relative program path is the person's (their terminal's folder), though connectors run in the project.
    assert main(["--dir", str(project), "--json", "run", "--approve", "no", "prog.py"]) == 0
    eid = json.loads(capsys.readouterr().out)["execution_id"]
    assert Path.cwd() == elsewhere
    assert main(["--dir", str(project), "approve", eid], ask=lambda q: "y") == 0
    assert Path.cwd() == elsewhere
    assert rows(project) == ["approved later"]
    assert not (elsewhere / "data.sqlite").exists()


def test_show_and_rollback_name_a_call_of_unknown_outcome(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A rollback that reverts #0 still names #1, whose outcome is unknown; show lists #1 as unknown."""
    (project / "mixed.py").write_text("items.add(text='kept')\ntry:\n    items.add(text='lost two')\n"
                                      "except Exception:\n    pass\n'done'\n")
    assert main(["--dir", str(project), "--json", "run", "--approve", "yes", str(project / "mixed.py")]) == 0
    eid = json.loads(capsys.readouterr().out)["execution_id"]
    assert main(["--dir", str(project), "show", eid]) == 0
    shown = capsys.readouterr().out
    assert "#1   unknown" in shown and "#0   applied" in shown, shown
    assert main(["--dir", str(project), "--json", "show", eid]) == 0
    assert json.loads(capsys.readouterr().out)["unknown"] == [1]
    assert main(["--dir", str(project), "rollback", eid]) == 0
    said = capsys.readouterr().out
    assert "rolled back 1 action(s): items.add (call #0)" in said
    assert "Call #1 items.add: its outcome is unknown" in said and "undo it by hand" in said, said
    assert rows(project) == ["lost two"]  # what was done and never answered is still there


def test_pending_and_executions_json_are_plain(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bytes arguments come as {"$bytes": ...} in JSON, as the card shows them (b'hi' (2 bytes)) in text (s16o), never
    the journal's $codemode tags."""
    (project / "tag.py").write_text("items.tag(value=b'hi')\n")
    assert main(["--dir", str(project), "run", "--approve", "no", str(project / "tag.py")]) == 0
    out = capsys.readouterr().out
    assert "$codemode" not in out and "{\"value\": b'hi' (2 bytes)}" in out, out  # as the card shows them (s16o)
    assert main(["--dir", str(project), "--json", "pending"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["args"] == {"value": {"$bytes": "aGk="}}
    assert main(["--dir", str(project), "pending"]) == 0
    assert "#0 items.tag({\"value\": b'hi' (2 bytes)})" in capsys.readouterr().out
    assert main(["--dir", str(project), "--json", "executions"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["log"][0]["args"] == {"value": {"$bytes": "aGk="}}


def test_a_notebooks_empty_journal_says_so(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--notebook X executions`` on an empty journal names that journal instead of printing nothing."""
    notebook = project / "analysis.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert main(["--notebook", str(notebook), "executions"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("No executions in the journal") and "analysis.codemode.db" in said, said


def test_a_refusal_in_the_terminal_names_only_the_terminals_command(project: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``approve last`` with nothing paused names `codemode executions`, not the notebook's %executions."""
    assert main(["--dir", str(project), "approve", "last"]) == 1
    said = capsys.readouterr().err
    assert "`codemode executions`" in said and "%executions" not in said, said


def test_search_answers_in_words_without_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``codemode search`` prints one line per result (``--json`` keeps the document)."""
    assert main(["--dir", str(project), "search", "add", "an", "item"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("items.add  (needs approval)  Add an item."), said
    assert main(["--dir", str(project), "--json", "search", "add", "an", "item"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["path"] == "items.add"
