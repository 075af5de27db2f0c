"""Review 16x: ``codemode save-snippet`` and ``codemode expire`` answer a person in raw JSON.

Review 15x M4 gave ``pending`` and ``snippets`` words; ``save-snippet`` still prints the snippet record as JSON
(``"saved_at": 1796681276304``, ``"input_schema": null``, the code as one escaped string) and ``expire`` a bare
JSON list of ids (``["01M998..."]``) with no word of what happened to them. ``%snippet save`` says "Saved snippet
'adder' from execution ...; run it with codemode.run('adder', ...)"; ``--json`` is there for scripts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main

TOML = '[executor]\nkind = "inprocess"\n'


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_save_snippet_answers_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    (tmp_path / "p.py").write_text("1 + 1\n")
    assert main(["--dir", str(tmp_path), "run", str(tmp_path / "p.py")], ask=lambda q: "n") == 0
    capsys.readouterr()
    assert main(["--dir", str(tmp_path), "save-snippet", "two", "last", "Adds"], ask=lambda q: "n") == 0
    out = capsys.readouterr().out
    assert not _is_json(out) and "two" in out, out


def test_expire_answers_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    assert main(["--dir", str(tmp_path), "expire", "1m"], ask=lambda q: "n") == 0
    out = capsys.readouterr().out
    assert not _is_json(out), out
