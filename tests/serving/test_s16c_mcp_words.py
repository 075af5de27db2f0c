"""s16c: ``codemode --notebook N mcp`` names that notebook for an unavailable connector's details (review 16x L4).

A notebook server's model is told the person looks with %connectors in *that* notebook or ``codemode --notebook N
connectors``; the runtime's own words ("the notebook's author ...") are not left beside them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.serving.serving_support import make_project, stdio_params

pytestmark = pytest.mark.anyio


async def test_a_notebook_server_names_its_notebook_for_an_unavailable_connector(tmp_path: Path) -> None:
    notebook = make_project(tmp_path)
    async with Client(stdio_params(notebook)) as client:
        out = await client.call_tool("codemode", {"code": "ghost.ping()"})
    assert out.structured_content is not None and out.structured_content["status"] == "error"
    said = out.structured_content["error"]
    assert "connector 'ghost' is unavailable" in said, said
    assert f"%connectors in the notebook {notebook}" in said, said
    assert f"`codemode --notebook {notebook} connectors`" in said, said
    assert "notebook's author" not in said, said
