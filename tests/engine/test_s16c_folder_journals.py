"""s16c: the ``codemode`` command in a notebook folder (review 16x M7).

A command that only reads leaves no empty journal file behind; ``pending`` and a ``last`` that names nothing in the
folder's own journal name the notebooks here that keep journals of their own, with the command that reaches each.
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


def _folder(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (folder / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n\n[connectors.notes]\n'
                                          'python = "s16c_folder_notes:make"\n')
    (folder / "s16c_folder_notes.py").write_text(NOTES)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.chdir(folder)


@pytest.mark.parametrize("argv", [("pending",), ("executions",), ("connectors",), ("approve", "last"),
                                  ("rollback", "last"), ("snippets",)])
def test_a_command_that_reads_leaves_no_journal_behind(argv: tuple[str, ...], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _folder(tmp_path, monkeypatch)
    main(["--dir", str(tmp_path), *argv], ask=lambda q: "n")
    assert not (tmp_path / ".codemode").exists(), sorted(p.name for p in (tmp_path / ".codemode").iterdir())


def test_a_run_keeps_its_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _folder(tmp_path, monkeypatch)
    (tmp_path / "p.py").write_text("1 + 1\n")
    assert main(["--dir", str(tmp_path), "run", str(tmp_path / "p.py")], ask=lambda q: "n") == 0
    assert main(["--dir", str(tmp_path), "pending"], ask=lambda q: "n") == 0
    assert (tmp_path / ".codemode" / f"{tmp_path.name}.codemode.db").is_file()


def test_a_notebooks_journal_read_from_the_folder_is_left_as_it_was(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The notebook's paused execution is counted, not changed, and its journal has no side files left."""
    _folder(tmp_path, monkeypatch)
    (tmp_path / "a.ipynb").write_text(NOTEBOOK)

    async def pause() -> str:
        async with runtime_for_folder(tmp_path, notebook=tmp_path / "a.ipynb").runtime as rt:
            out = await rt.execute('notes.add_note(text="from a.ipynb")')
            return str(out["execution_id"])

    eid = asyncio.run(pause())
    capsys.readouterr()
    main(["--dir", str(tmp_path), "pending"], ask=lambda q: "n")
    said = capsys.readouterr().out
    assert "a.ipynb has 1 paused execution(s): `codemode --notebook a.ipynb pending`" in said, said
    assert sorted(p.name for p in (tmp_path / ".codemode").iterdir()) == ["a.codemode.db"]
    main(["--notebook", str(tmp_path / "a.ipynb"), "pending"], ask=lambda q: "n")
    assert eid in capsys.readouterr().out


def test_rollback_last_in_the_folder_names_a_notebooks_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    _folder(tmp_path, monkeypatch)
    (tmp_path / "a.ipynb").write_text(NOTEBOOK)
    (tmp_path / "p.py").write_text("1 + 1\n")
    assert main(["--notebook", str(tmp_path / "a.ipynb"), "run", str(tmp_path / "p.py")], ask=lambda q: "n") == 0
    capsys.readouterr()
    assert main(["--dir", str(tmp_path), "rollback", "last"], ask=lambda q: "n") == 1
    said = capsys.readouterr().err
    assert "`codemode --notebook a.ipynb rollback last`" in said, said


def test_nothing_paused_anywhere_is_said_plainly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _folder(tmp_path, monkeypatch)
    (tmp_path / "a.ipynb").write_text(NOTEBOOK)
    (tmp_path / "p.py").write_text("1 + 1\n")
    assert main(["--notebook", str(tmp_path / "a.ipynb"), "run", str(tmp_path / "p.py")], ask=lambda q: "n") == 0
    capsys.readouterr()
    main(["--dir", str(tmp_path), "pending"], ask=lambda q: "n")
    assert capsys.readouterr().out == "Nothing is waiting for approval.\n"
