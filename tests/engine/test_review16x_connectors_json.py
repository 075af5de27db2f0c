"""Review 16x: ``codemode --json connectors`` leaves a connector with a configuration problem out entirely.

README: "`connectors` says why a connector is unavailable, as `%connectors` does"; "`--json` prints one
JSON document per command". A table the configuration refuses (a missing OpenAPI file, a typo'd key)
is in neither ``connectors`` nor ``unavailable`` of the JSON document: its reason is only a
``configuration: ...`` line on stderr (cli.py, ``_run_command``: ``built.problems``). A script (or an
agent host) that reads the document cannot tell "not configured" from "configured and broken".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main

TOML = ('[executor]\nkind = "inprocess"\n\n[connectors.pets]\nopenapi = "missing.yaml"\n'
        'base_url = "http://127.0.0.1:9"\n')


def test_json_connectors_names_a_table_the_configuration_refused(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    rc = main(["--dir", str(tmp_path), "--json", "connectors"], ask=lambda q: "n")
    answer = json.loads(capsys.readouterr().out)
    assert rc == 0
    said = json.dumps(answer)
    assert "pets" in said and "missing.yaml" in said, answer
