"""Review 15x: the ``codemode`` command prints the journal codec's private tags.

README: the tool's JSON has "bytes become ``{"$bytes": "<base64>"}``, dates and datetimes ISO
8601 strings, and tuples lists (``codemode_kernel.codec.to_json``)", and "``--json`` prints one
JSON document per command (... ``run``: the final outcome ...)". ``codemode --json run`` of a
program whose result is ``((1, 2), datetime.date(2024, 1, 2), b"hi")`` prints
``{"$codemode": "tuple", "v": [{"$codemode": "tuple", ...}, {"$codemode": "date", ...},
{"$codemode": "bytes", ...}]}``; without ``--json`` the same tags; ``codemode --json show``
wraps them again in ``{"$codemode": "dict", ...}``. A script (or a person) reads an encoding
meant for the journal, different from what the same program gives through the tool.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main

PROGRAM = '(1, 2), datetime.date(2024, 1, 2), b"hi"\n'
PLAIN = [[1, 2], "2024-01-02", {"$bytes": "aGk="}]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    (tmp_path / "p.py").write_text(PROGRAM)
    return tmp_path


def _cli(folder: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    rc = main(["--dir", str(folder), *argv], ask=lambda q: "y")
    return rc, capsys.readouterr().out


def test_json_run_prints_plain_json(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = _cli(folder, capsys, "--json", "run", str(folder / "p.py"))
    assert rc == 0
    assert json.loads(out)["result"] == PLAIN, out


def test_run_and_show_never_print_codec_tags(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = _cli(folder, capsys, "run", str(folder / "p.py"))
    assert rc == 0 and "$codemode" not in out, out
    rc, out = _cli(folder, capsys, "--json", "show", "last")
    assert rc == 0 and "$codemode" not in out, out
