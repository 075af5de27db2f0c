"""s16c: ``codemode save-snippet`` and ``codemode expire`` answer in words; JSON under ``--json`` (review 16x L8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main

TOML = '[executor]\nkind = "inprocess"\n'


def test_save_snippet_says_what_it_saved_and_what_it_replaced(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    (tmp_path / "p.py").write_text("1 + 1\n")
    assert main(["--dir", str(tmp_path), "run", str(tmp_path / "p.py")], ask=lambda q: "n") == 0
    eid = capsys.readouterr().out.split("[completed] execution ")[1].split()[0]
    assert main(["--dir", str(tmp_path), "save-snippet", "two", "last", "Adds"], ask=lambda q: "n") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Saved snippet 'two' from execution {eid}.") and "codemode.run('two', input)" in out, out
    assert main(["--dir", str(tmp_path), "save-snippet", "two", "last"], ask=lambda q: "n") == 0
    assert capsys.readouterr().out.startswith(f"Replaced snippet 'two' (it was from execution {eid})")


def test_save_snippet_json_is_the_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    (tmp_path / "p.py").write_text("1 + 1\n")
    assert main(["--dir", str(tmp_path), "run", str(tmp_path / "p.py")], ask=lambda q: "n") == 0
    capsys.readouterr()
    assert main(["--dir", str(tmp_path), "--json", "save-snippet", "two", "last"], ask=lambda q: "n") == 0
    record = json.loads(capsys.readouterr().out)
    assert record["name"] == "two" and record["code"] == "1 + 1\n", record


def test_expire_names_what_it_ended_and_json_lists_the_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    assert main(["--dir", str(tmp_path), "expire", "90m"], ask=lambda q: "n") == 0
    assert capsys.readouterr().out == ("Nothing expired: no execution has waited for approval or run for more "
                                       "than 1h 30m.\n")
    assert main(["--dir", str(tmp_path), "--json", "expire", "1m"], ask=lambda q: "n") == 0
    assert json.loads(capsys.readouterr().out) == []
