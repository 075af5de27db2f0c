"""Review 15x: a paused outcome's ``next_step`` sends the person to a journal that does not hold it.

``codemode --dir FOLDER mcp`` (README's own form, and an agent host's config without
``--notebook``) serves the *folder's* journal (``.codemode/<folder>.codemode.db``); a notebook
in that folder has its own (``.codemode/analysis.codemode.db``). The paused outcome still tells
the model "The person approves it in the notebook's Code Mode panel, with `%approve ID` in the
notebook, or from a terminal with `codemode --dir . approve ID`": in the notebook, ``%approve
ID`` answers "No execution ... in runtime 'default'" and the panel does not list it. And the
``--dir`` the server was given is repeated as written (``.``), relative to a folder the person
does not know.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.serving.serving_support import ADD_ONE, CODEMODE, make_project, server_env

pytestmark = pytest.mark.anyio


async def test_a_folder_servers_next_step_names_only_doors_that_hold_the_execution(tmp_path: Path) -> None:
    make_project(tmp_path)
    params = StdioServerParameters(command=CODEMODE, args=["--dir", ".", "mcp"], env=server_env(),
                                   cwd=str(tmp_path))
    async with Client(params) as client:
        out = await client.call_tool("codemode", {"code": ADD_ONE})
    assert out.structured_content is not None and out.structured_content["status"] == "paused"
    step = out.structured_content["next_step"]
    assert "notebook's Code Mode panel" not in step and "`%approve ID` in the notebook" not in step, step
    assert f"codemode --dir {tmp_path} approve ID" in step, step  # the folder as an absolute path
