"""Review 16x: ``codemode pending`` / ``approve last`` / ``rollback last`` in a notebook folder answer from the folder's
own (empty) journal and say nothing of the notebooks' journals beside it.

Review 15x M4 taught ``codemode executions`` to say "Each notebook keeps its own journal: codemode --notebook a.ipynb
executions lists that notebook's (notebooks here with a journal: a.ipynb, b.ipynb)". ``codemode pending`` in the same
folder still says "Nothing is waiting for approval." (rc 0) while a.ipynb's cell waits for one, and ``codemode approve
last`` says "There is no paused execution to approve": a person who opened a terminal to approve is told there is
nothing to approve.
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

NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


def _paused_in_notebook(folder: Path) -> str:
    async def run() -> str:
        rt = runtime_for_folder(folder, notebook=folder / "a.ipynb").runtime
        async with rt:
            out = await rt.execute('notes.add_note(text="from a.ipynb")')
            assert out["status"] == "paused", out
            return str(out["execution_id"])
    return asyncio.run(run())


@pytest.mark.parametrize("argv", [("pending",), ("approve", "last")])
def test_the_folder_door_points_at_a_notebook_that_waits(argv: tuple[str, ...], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n\n[connectors.notes]\n'
                                            'python = "notes_mod:make"\n')
    (tmp_path / "notes_mod.py").write_text(NOTES)
    (tmp_path / "a.ipynb").write_text(NOTEBOOK)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    _paused_in_notebook(tmp_path)
    capsys.readouterr()
    main(["--dir", str(tmp_path), *argv], ask=lambda q: "n")
    said = capsys.readouterr()
    both = said.out + said.err
    assert "a.ipynb" in both, both
