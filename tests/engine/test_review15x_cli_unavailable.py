"""Review 15x: in a terminal, a connector that could not be loaded is invisible and unexplained.

An ``openapi`` table whose document has one ``$ref`` that does not resolve makes the connector
unavailable (the kernel says why in the first cell and in ``%connectors``). The ``codemode``
command has no ``connectors`` command, and what it says sends the person to a notebook:
``codemode describe api`` -> "nothing named 'api': describe a connector (none configured) ...";
``codemode search thing`` -> no results; ``codemode run p.py`` (``api.getC(id=1)``) -> "NameError:
name 'api' is not defined ... Note: connector 'api' is unavailable: its OpenAPI document could
not be used; the notebook's author can see the details with %connectors." - there is no
``%connectors`` in a terminal, and the reason (the ``$ref``) is printed nowhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel.cli import main

DOC = """openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Missing"}}}}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "doc.yaml").write_text(DOC)
    (tmp_path / "codemode.toml").write_text('[connectors.api]\nopenapi = "doc.yaml"\nbase_url = "http://127.0.0.1:9"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "p.py").write_text("api.getA()\n")
    return tmp_path


def _said(folder: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    main(["--dir", str(folder), *argv], ask=lambda q: "n")
    captured = capsys.readouterr()
    return captured.out + captured.err


@pytest.mark.parametrize("argv", [("run", "p.py"), ("describe", "api")])
def test_the_terminal_is_told_why_a_connector_is_unavailable(folder: Path, capsys: pytest.CaptureFixture[str],
                                                            argv: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.chdir(folder)
    said = _said(folder, capsys, *argv)
    assert "does not resolve" in said, said  # the reason, as the kernel's %connectors gives it
    assert "%connectors" not in said and "none configured" not in said, said
