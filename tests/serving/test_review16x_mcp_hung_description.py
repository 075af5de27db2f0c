"""Review 16x: ``codemode mcp``'s tool description lists a server that hangs at start as a usable connector, and
still does after its start has failed.

A server that fails at once is listed "- ghost: UNAVAILABLE: ... its methods cannot be called (tell the person)".
One that hangs is listed "- slowpoke" with nothing more while it starts, and the same after connect_timeout, when
it is unavailable (measured: listed at 1.0 s and again at 13 s with connect_timeout 8). The model plans on it;
its program then waits for the start and ends in a NameError.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.serving.serving_support import CODEMODE, server_env

pytestmark = pytest.mark.anyio

HANGS = "import time\ntime.sleep(600)\n"


async def test_the_description_says_a_server_that_did_not_start_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "hangs.py").write_text(HANGS)
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n\n[connectors.slowpoke]\n'
                                            f'mcp = {{ command = "{CODEMODE.rsplit("/", 1)[0]}/python", '
                                            'args = ["hangs.py"] }\nconnect_timeout = 2\n')
    params = StdioServerParameters(command=CODEMODE, args=["--dir", str(tmp_path), "mcp"], env=server_env(),
                                   cwd=str(tmp_path))
    async with Client(params) as client:
        await asyncio.sleep(4)  # past connect_timeout: the start has failed
        tools = await client.list_tools()
    description = next(t.description or "" for t in tools.tools if t.name == "codemode")
    line = next(line for line in description.splitlines() if "slowpoke" in line)
    assert "UNAVAILABLE" in line or "starting" in line.lower(), line
