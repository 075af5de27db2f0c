"""``codemode --json run`` asks a person to approve a call without showing its arguments (review 15).

In a terminal, every pause is printed (the call and its arguments) before the question. With
``--json`` (session 14: one JSON document on stdout, the question on stderr) the paused outcome is
not printed (cli.py ``_run_file``: ``if mode == "no" or not console.as_json``), and the question is
``Approve tasks.add_task? [y/N]``: the person answers for arguments a program - often a model's -
wrote, which they were never shown. Only a person approves, and only what they saw.

The right outcome: when the question is asked, the arguments of the call have been shown (on stderr,
so stdout stays one document).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main

TASKS = '''
from codemode_kernel import ToolSetConnector

def add_task(title: str) -> dict:
    """Add a task."""
    return {"id": 1, "title": title}

def tasks():
    return ToolSetConnector([add_task], name="tasks", requires_approval={"add_task"}, target="review15 tasks")
'''


def test_the_question_comes_after_the_calls_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "review15_json_tasks.py").write_text(TASKS)
    (tmp_path / "codemode.toml").write_text('[connectors.tasks]\npython = "review15_json_tasks:tasks"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "write.py").write_text("tasks.add_task(title='wire 9,000 EUR to mallory')\n")
    seen_when_asked: list[str] = []

    def ask(prompt: str) -> str:
        shown = capsys.readouterr()
        seen_when_asked.append(shown.out + shown.err + prompt)
        return "y"

    rc = main(["--dir", str(tmp_path), "--json", "run", str(tmp_path / "write.py")], ask=ask)
    rest = capsys.readouterr()
    assert rc == 0 and json.loads(rest.out)["status"] == "completed", rest
    assert len(seen_when_asked) == 1, seen_when_asked
    assert "mallory" in seen_when_asked[0], f"the person was asked with only this on screen: {seen_when_asked[0]!r}"
