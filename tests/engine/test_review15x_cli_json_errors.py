"""Review 15x: ``codemode --json`` prints nothing on stdout when the command fails.

README: "``--json`` prints one JSON document per command". When the command fails (an unknown
execution, a describe target that does not exist, a rollback refused because the connector's
target changed), stdout is empty and the reason is a ``codemode: ...`` line on stderr, rc 1. A
script that parses stdout gets a JSON decode error instead of the reason; the library and the
MCP tool answer the same failures as data (``{"kind": "not_found", "error": ...}``,
``{"status": "unknown", "error": ...}``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main


@pytest.mark.parametrize("argv", [("show", "01NOPE"), ("describe", "nope.x"), ("approve", "last")])
def test_a_failed_json_command_still_prints_one_document(argv: tuple[str, ...], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    rc = main(["--dir", str(tmp_path), "--json", *argv], ask=lambda q: "n")
    out = capsys.readouterr().out
    assert rc == 1
    answer = json.loads(out)  # today: '' (the reason is on stderr only)
    assert isinstance(answer, dict) and answer.get("error"), answer
