"""Review 11: the terminal's approval prompt names the call it showed.

``codemode run FILE`` prints the paused call and asks "Approve connector.method? [y/N]". The journal
is the notebook's store, which the kernel's card, the lab panel, another terminal or another host
(PostgreSQL) decide on too. While the person reads the prompt, another front end may approve the
call shown and the next pass may pause on a later call; the person's "y" must not approve that later
call, which the prompt never showed (s11p: ``approve(execution_id, seq=k)``).
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import pytest

from codemode_kernel.cli import main

CONNECTOR_MODULE = '''
from pathlib import Path

from codemode_kernel import ToolSetConnector

WRITTEN = Path(__file__).with_name("written.txt")

def add_task(title: str) -> dict:
    """Add a task."""
    with WRITTEN.open("a") as f:
        f.write(title + "\\n")
    return {"title": title}

def tasks():
    return ToolSetConnector([add_task], name="tasks", requires_approval={"add_task"})
'''

PROGRAM = "a = tasks.add_task(title='first')\nb = tasks.add_task(title='second')\n[a['title'], b['title']]\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return tasks_project(tmp_path)


def tasks_project(tmp_path: Path) -> Path:
    """A folder whose ``tasks`` connector's add_task needs approval, and prog.py that adds two tasks."""
    module = f"r11_tasks_{uuid.uuid4().hex[:12]}"  # a module of its own: nothing cached from another test
    (tmp_path / f"{module}.py").write_text(CONNECTOR_MODULE)
    (tmp_path / "codemode.toml").write_text(f'[connectors.tasks]\npython = "{module}:tasks"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "prog.py").write_text(PROGRAM)
    return tmp_path


def _written(project: Path) -> list[str]:
    path = project / "written.txt"
    return path.read_text().splitlines() if path.exists() else []


def test_a_y_for_the_shown_call_does_not_approve_a_later_one(project: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The prompt shows call #0; meanwhile another front end approves call #0 and the pass pauses on
    call #1; the person's 'y' then approves nothing that the prompt did not show: call #1 is not run."""
    asked: list[str] = []
    others: list[int] = []

    def ask(question: str) -> str:
        asked.append(question)
        if len(asked) > 1:
            return "n"  # whatever the terminal shows next, this person declines it
        # Another front end over the same journal approves the shown call meanwhile.
        other = threading.Thread(target=lambda: others.append(main(["--dir", str(project), "approve", "last"])))
        other.start()
        other.join(120)
        assert not other.is_alive() and others == [0]
        assert _written(project) == ["first"]
        return "y"

    main(["--dir", str(project), "run", str(project / "prog.py")], ask=ask)
    capsys.readouterr()
    assert _written(project) == ["first"]  # call #1 ("second") was never shown with a 'y' to it
