"""Review 15x: the ``codemode`` command's empty answers.

- ``codemode --dir examples/notebooks executions`` (README's own form, no ``--notebook``) reads
  the *folder's* journal (``.codemode/notebooks.codemode.db``); each notebook has its own. After
  running notebooks there, it prints nothing at all (rc 0): the person cannot tell an empty
  journal from a broken command, nor learn that the notebooks' executions are one
  ``--notebook X.ipynb`` away.
- Without ``--json``, ``codemode pending`` prints ``[]`` and ``codemode snippets`` prints the raw
  JSON list (``"saved_at": 1796668918043``); the kernel says "Nothing is waiting for approval."
  and shows a table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main

MODULE = '''
from codemode_kernel import ToolSetConnector

def ping() -> str:
    """Answer pong."""
    return "pong"

def tools():
    return ToolSetConnector([ping], name="tools")
'''


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "review15x_ping.py").write_text(MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.tools]\npython = "review15x_ping:tools"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "prog.py").write_text("tools.ping()\n")
    (tmp_path / "analysis.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                         "nbformat_minor": 5}))
    return tmp_path


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv), ask=lambda q: "y")
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_an_empty_folder_journal_says_so_and_points_at_the_notebooks(folder: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, _ = _cli(capsys, "--notebook", str(folder / "analysis.ipynb"), "run", str(folder / "prog.py"))
    assert rc == 0
    rc, out, err = _cli(capsys, "--dir", str(folder), "executions")
    said = out + err
    assert rc == 0 and said.strip(), "nothing was printed"
    assert "--notebook" in said and "analysis.ipynb" in said, said


def test_pending_and_snippets_answer_in_words_without_json(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _cli(capsys, "--dir", str(folder), "pending")
    assert rc == 0 and out.strip() != "[]", out
    rc, out, _ = _cli(capsys, "--dir", str(folder), "snippets")
    assert rc == 0 and out.strip() != "[]", out
