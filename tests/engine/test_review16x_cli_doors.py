"""Review 16x: the ``codemode`` command's words for a configuration problem and a connector's exception.

1. An invalid codemode.toml: ``codemode connectors`` says ``configuration: codemode.toml: (file) is not valid
   TOML: ... Fix the syntax and run %reload.`` (a notebook magic: the terminal has none, and every command
   reads the file afresh) and then ``No connectors: add a [connectors.NAME] table to codemode.toml.``
   although the file has tables (cli.py ``_connectors``; building's problem text).
2. An exception inside a python connector's code: the kernel writes where it raised (review 15x M7,
   kernel/connector_traces.py); ``codemode run`` (the same author, prototyping in a terminal) shows only
   ``ConnectorError: ZeroDivisionError: notes.boom: division by zero (line 1)``, no file or line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel.cli import main

BROKEN = '[executor]\nkind = "inprocess"\n\n[connectors.notes]\npython = "mynotes:make"\nhint = "notes\n'

NOTES = '''from codemode_kernel import ToolSetConnector


def make():
    def boom(x: int) -> int:
        """Explode."""
        return 1 // (x - x)
    return ToolSetConnector([boom], name="notes")
'''


def test_an_invalid_toml_is_told_in_the_terminals_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(BROKEN)
    main(["--dir", str(tmp_path), "connectors"], ask=lambda q: "n")
    said = capsys.readouterr()
    both = said.out + said.err
    assert "not valid TOML" in both, both
    assert "%reload" not in both, both
    assert "add a [connectors.NAME] table" not in both, both


def test_codemode_run_shows_where_the_connector_code_raised(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(BROKEN.replace('"notes\n', '"notes"\n'))
    (tmp_path / "mynotes.py").write_text(NOTES)
    (tmp_path / "p.py").write_text("notes.boom(x=1)\n")
    rc = main(["--dir", str(tmp_path), "run", str(tmp_path / "p.py")], ask=lambda q: "n")
    said = capsys.readouterr()
    both = said.out + said.err
    assert rc == 1 and "ZeroDivisionError" in both, both
    assert "mynotes.py" in both and "line 7" in both, both
