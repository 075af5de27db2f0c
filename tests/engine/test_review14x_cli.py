"""Review 14x: the ``codemode`` command as a person (and a script with ``--json``) uses it.

- ``--json`` is the machine-readable door, but ``rollback`` and ``reject`` print bare text
  (``01M...: rolled_back``, ``rejected``) that a script cannot parse.
- ``codemode rollback`` of an execution with nothing to revert prints ``ID: completed`` and
  exits 0; the kernel's ``%rollback`` says "Nothing to roll back: ...". The terminal user cannot
  tell whether anything was undone.
- Errors tell a terminal user to call ``runtime.executions()`` "(or %executions in the kernel)"
  and ``codemode.search('what you want')``: the words of other front ends, not ``codemode executions``
  / ``codemode search``.
- ``codemode describe`` prints ``# describe more: full=True`` (and ``page=2`` for a large
  connector), but the command accepts neither: ``unrecognized arguments: --full``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main

CONNECTOR_MODULE = '''
from codemode_kernel import ToolSetConnector

DONE = []

def list_tasks() -> list:
    """List tasks."""
    return list(DONE)

def add_task(title: str, due: str = "", ctx=None) -> dict:
    """Add a task.

    Args:
        title: what to do.
        due: when it is due, e.g. "2026-12-31".
    """
    DONE.append(title)
    return {"id": len(DONE), "title": title}

def undo(args, result, ctx):
    DONE.remove(result["title"])

def tasks():
    return ToolSetConnector([list_tasks, add_task], name="tasks", requires_approval={"add_task"},
                            reverts={"add_task": undo})
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "review14x_tasks.py").write_text(CONNECTOR_MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.tasks]\npython = "review14x_tasks:tasks"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "write.py").write_text("tasks.add_task(title='x')['id']\n")
    (tmp_path / "read.py").write_text("len(tasks.list_tasks())\n")
    return tmp_path


def _cli(project: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(["--dir", str(project), *argv], ask=lambda q: "y")
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _completed_write(project: Path, capsys: pytest.CaptureFixture[str]) -> str:
    rc, out, _ = _cli(project, capsys, "--json", "run", "--approve", "no", str(project / "write.py"))
    eid: str = json.loads(out)["execution_id"]
    rc, out, _ = _cli(project, capsys, "approve", eid)
    assert rc == 0 and "[completed]" in out, out
    return eid


def test_json_run_that_was_approved_prints_one_json_document(project: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`--json run --approve yes` (or an answered prompt) prints one parseable document, the outcome."""
    rc, out, _ = _cli(project, capsys, "--json", "run", "--approve", "yes", str(project / "write.py"))
    assert rc == 0
    answer = json.loads(out)  # today: the paused outcome, then the completed one, two indented documents
    assert answer["status"] == "completed" and answer["result"] == 1


def test_json_rollback_prints_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    eid = _completed_write(project, capsys)
    rc, out, _ = _cli(project, capsys, "--json", "rollback", eid)
    assert rc == 0
    answer = json.loads(out)  # today: "01M...: rolled_back"
    assert "rolled_back" in json.dumps(answer)


def test_json_reject_prints_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _cli(project, capsys, "--json", "run", "--approve", "no", str(project / "write.py"))
    eid = json.loads(out)["execution_id"]
    rc, out, _ = _cli(project, capsys, "--json", "reject", eid)
    assert rc == 0
    json.loads(out)  # today: "rejected"


def test_rollback_says_when_there_is_nothing_to_revert(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As the kernel's %rollback: the person learns that nothing was undone."""
    rc, out, _ = _cli(project, capsys, "run", str(project / "read.py"))
    assert rc == 0
    rc, out, err = _cli(project, capsys, "rollback", "last")
    assert "nothing" in (out + err).lower(), (out, err)


def test_an_unknown_execution_points_at_the_command(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _cli(project, capsys, "show", "01NOPE")
    assert rc == 1
    assert "runtime.executions()" not in err and "%executions" not in err, err
    assert "codemode executions" in err, err


def test_an_unknown_describe_target_points_at_the_command(project: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _cli(project, capsys, "describe", "tasks.add_tsk")
    assert rc == 1
    assert "codemode search" in err, err


def test_describe_offers_what_its_answer_points_at(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The compact answer says `# describe more: full=True`; the command has a way to ask for it."""
    rc, out, _ = _cli(project, capsys, "describe", "tasks.add_task")
    assert rc == 0 and "full=True" in out
    with pytest.raises(SystemExit) as usage:  # today: "unrecognized arguments: --full" (status 2)
        rc = _cli(project, capsys, "describe", "--full", "tasks.add_task")[0]
        raise SystemExit(rc)
    assert usage.value.code == 0
