"""Review 16x: "'last' does not name it ... name it: approve ID SEQ." gives no command that runs.

selection.py ``_last_decision``: when the only paused execution is a model's, ``codemode approve last`` (and
``%approve last``) end with ``name it: approve 01M... SEQ.``: neither the door's command (``codemode approve`` /
``%approve``) nor the call's number, which the sentence itself just named ("call #0 tasks.add_task"). ``%pending``'s
footer in the notebook then suggests "%approve last", which is what was just refused.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder
from codemode_kernel.cli import main

NOTES = '''
from codemode_kernel import ToolSetConnector

def make():
    def add_note(text: str) -> dict:
        """Add a note."""
        return {"text": text}
    return ToolSetConnector([add_note], name="notes", requires_approval={"add_note"}, target="notes in test")
'''


def test_the_refusal_of_last_gives_the_command_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n\n[connectors.notes]\n'
                                            'python = "notes_mod:make"\n')
    (tmp_path / "notes_mod.py").write_text(NOTES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)

    async def model() -> str:
        async with runtime_for_folder(tmp_path).runtime as rt:
            out = await rt.tool()('notes.add_note(text="x")')
            assert out["status"] == "paused", out
            return str(out["execution_id"])

    eid = asyncio.run(model())
    capsys.readouterr()
    assert main(["--dir", str(tmp_path), "approve", "last"], ask=lambda q: "n") == 1
    said = capsys.readouterr().err
    assert f"approve {eid} 0" in said and "codemode" in said.split(f"approve {eid} 0")[0][-40:], said
