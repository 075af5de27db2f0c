"""s16c: one meaning for an approval question's answers in ``codemode run`` and ``codemode approve`` (review 16x L7).

Said above each question: y approves, r rejects (the execution ends), n or Enter leaves it waiting.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder
from codemode_kernel.cli import ANSWERS, main

NOTES = '''
from codemode_kernel import ToolSetConnector

def make():
    def add_note(text: str) -> dict:
        """Add a note."""
        return {"text": text}
    return ToolSetConnector([add_note], name="notes", requires_approval={"add_note"}, target="notes in test")
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n\n[connectors.notes]\n'
                                            'python = "s16c_answer_notes:make"\n')
    (tmp_path / "s16c_answer_notes.py").write_text(NOTES)
    (tmp_path / "p.py").write_text('notes.add_note(text="x")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _status(project: Path, eid: str) -> str:
    async def read() -> str:
        async with runtime_for_folder(project).runtime as rt:
            state = await rt.execution(eid)
            assert state is not None
            return state.status
    return asyncio.run(read())


def _model_pause(project: Path) -> str:
    async def model() -> str:
        async with runtime_for_folder(project).runtime as rt:
            out = await rt.tool()('notes.add_note(text="x")')
            return str(out["execution_id"])
    return asyncio.run(model())


@pytest.mark.parametrize("answer", ["", "n"])
def test_enter_or_n_at_run_leaves_it_waiting(answer: str, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--dir", str(project), "run", "p.py"], ask=lambda q: answer) == 0
    said = capsys.readouterr().out
    eid = said.split("[paused] execution ")[1].split()[0]
    assert ANSWERS in said and f"`codemode approve {eid} 0` approves it" in said, said
    assert _status(project, eid) == "paused"


def test_r_at_run_rejects(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--dir", str(project), "run", "p.py"], ask=lambda q: "r") == 1
    said = capsys.readouterr().out
    eid = said.split("[paused] execution ")[1].split()[0]
    assert "rejected: call #0 was not run" in said, said
    assert _status(project, eid) == "rejected"


def test_r_at_approve_rejects_a_models_pause(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    eid = _model_pause(project)
    assert main(["--dir", str(project), "approve", eid], ask=lambda q: "r") == 0
    said = capsys.readouterr().out
    assert ANSWERS in said and "rejected: call #0 was not run" in said, said
    assert _status(project, eid) == "rejected"


def test_enter_at_approve_leaves_a_models_pause_waiting(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    eid = _model_pause(project)
    assert main(["--dir", str(project), "approve", eid], ask=lambda q: "") == 1
    said = capsys.readouterr().out
    assert f"`codemode reject {eid} 0` refuses it" in said, said
    assert _status(project, eid) == "paused"
