"""s16c: the ``codemode`` command says a configuration's problems in a terminal's words and in its ``--json``.

Review 16x M2 and M5: ``codemode --json connectors`` carries the configuration's problems (a refused table is in
neither ``connectors`` nor ``unavailable``); a problem written for a notebook ("then run %reload") is said with
the terminal's own step (run the command again); an empty list after a failed parse is not "add a table".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main
from codemode_kernel.commands import door_text

MISSING_MODULE = '[executor]\nkind = "inprocess"\n\n[connectors.notes]\npython = "nowhere_s16c:make"\n'


def test_json_connectors_lists_the_problems_as_a_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The document's ``problems`` is a list of strings naming the table, in the terminal's words."""
    (tmp_path / "codemode.toml").write_text(MISSING_MODULE)
    assert main(["--dir", str(tmp_path), "--json", "connectors"], ask=lambda q: "n") == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["connectors"] == {} and answer["unavailable"] == {}
    assert len(answer["problems"]) == 1 and "connectors.notes" in answer["problems"][0], answer
    assert "%reload" not in answer["problems"][0] and "run the command again" in answer["problems"][0], answer


def test_json_connectors_without_problems_has_an_empty_list(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    assert main(["--dir", str(tmp_path), "--json", "connectors"], ask=lambda q: "n") == 0
    assert json.loads(capsys.readouterr().out)["problems"] == []


def test_no_tables_at_all_is_still_told_to_add_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    main(["--dir", str(tmp_path), "connectors"], ask=lambda q: "n")
    assert "add a [connectors.NAME] table" in capsys.readouterr().out


def test_a_refused_table_is_not_no_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(MISSING_MODULE)
    main(["--dir", str(tmp_path), "connectors"], ask=lambda q: "n")
    said = capsys.readouterr()
    assert "add a [connectors.NAME] table" not in said.out and "configuration's problems above" in said.out
    assert "nowhere_s16c" in said.err and "%reload" not in said.err, said.err


@pytest.mark.parametrize(("notebook", "terminal"), [
    ("Fix the syntax and run %reload.", "Fix the syntax and run the command again."),
    ("Fix the module, then run %reload.", "Fix the module, then run the command again."),
    ("fix the configuration (then %reload in a notebook).", "fix the configuration."),
])
def test_reload_is_worded_for_the_terminal(notebook: str, terminal: str) -> None:
    assert door_text(notebook, "cli") == terminal
    assert door_text(notebook, "magic") == notebook
