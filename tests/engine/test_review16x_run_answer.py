"""Review 16x: one "[y/N]" question, two meanings: "leave it waiting" (``codemode approve``), "reject" (``run``).

``codemode approve ID`` (a model's pause): "Approve call #0 notes.add_note? [y/N]", Enter -> "not approved: call #0
still waits". ``codemode run FILE``: "Approve notes.add_note? [y/N]", Enter -> "rejected: call #0 was not run, and
the execution ended." The default answer of ``run`` ends the execution, and nothing on the question says so
(``--approve no`` of the same command leaves it paused). A person who presses Enter to think it over loses the run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel.cli import main

NOTES = '''
from codemode_kernel import ToolSetConnector

def make():
    def add_note(text: str) -> dict:
        """Add a note."""
        return {"text": text}
    return ToolSetConnector([add_note], name="notes", requires_approval={"add_note"}, target="notes in test")
'''


def test_the_default_answer_of_run_ends_nothing_or_says_it_rejects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n\n[connectors.notes]\n'
                                            'python = "notes_mod:make"\n')
    (tmp_path / "notes_mod.py").write_text(NOTES)
    (tmp_path / "p.py").write_text('notes.add_note(text="x")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    asked: list[str] = []

    def enter(question: str) -> str:
        asked.append(question)
        return ""

    main(["--dir", str(tmp_path), "run", str(tmp_path / "p.py")], ask=enter)
    said = capsys.readouterr().out
    question = " ".join(asked)
    assert "reject" in question.lower() or "rejected" not in said, (question, said)
