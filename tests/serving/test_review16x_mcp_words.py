"""Review 16x: ``codemode --dir FOLDER mcp`` tells the model a person sees an unavailable connector's details with
``%connectors``, a notebook magic, where no notebook is involved.

A program naming an unavailable connector ends ``NameError: ... Note: connector 'ghost' is unavailable: ...; the
notebook's author can see the details with %connectors.`` at every door but the CLI (which says "`codemode
connectors` shows why"). A folder server has no notebook: the person's way to see it is ``codemode --dir FOLDER
connectors``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.serving.serving_support import CODEMODE, make_project, server_env

pytestmark = pytest.mark.anyio


async def test_a_folder_server_names_the_terminal_command_for_an_unavailable_connector(tmp_path: Path) -> None:
    make_project(tmp_path)
    params = StdioServerParameters(command=CODEMODE, args=["--dir", str(tmp_path), "mcp"], env=server_env(),
                                   cwd=str(tmp_path))
    async with Client(params) as client:
        out = await client.call_tool("codemode", {"code": "ghost.ping()"})
    assert out.structured_content is not None and out.structured_content["status"] == "error"
    said = out.structured_content["error"]
    assert "connector 'ghost' is unavailable" in said, said
    assert "%connectors" not in said and "notebook" not in said, said
    assert "codemode --dir" in said and "connectors" in said, said
