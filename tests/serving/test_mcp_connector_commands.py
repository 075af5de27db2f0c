"""An MCP connector's command is found beside the running interpreter first; a missing one is unavailable."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.connectors.mcp import McpConnector, resolve_command
from codemode_kernel.serve.server import availability_hints

BIN = Path(sys.executable).parent


def test_a_bare_name_is_found_beside_the_interpreter_without_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """`mcp-server-time` resolves to this Python's bin folder even when PATH lacks it (an unactivated venv)."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert resolve_command("mcp-server-time") == str(BIN / "mcp-server-time")


def test_path_is_the_fallback_and_missing_commands_are_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name not beside the interpreter comes from PATH; one found nowhere, or a missing path, is None."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert resolve_command("env") == "/usr/bin/env"
    assert resolve_command("no-such-mcp-server-h15") is None
    assert resolve_command(str(BIN / "no-such-mcp-server-h15")) is None


@pytest.mark.anyio
async def test_a_missing_command_makes_the_connector_unavailable_with_a_reason(tmp_path: Path) -> None:
    """The catalog keeps the author's story (where it looked); the model is told the program is not installed."""
    ghost = McpConnector.from_config("ghost", {"mcp": {"command": "no-such-mcp-server-h15"}}, tmp_path)
    async with CodemodeRuntime([ghost], store="sqlite://", executor=InProcessExecutor()) as rt:
        catalog = await rt.catalog()
        hints = availability_hints(rt)
        out = await rt.execute("ghost.anything()")
    assert f"was not found in this Python's bin folder ({BIN}) or on PATH" in catalog.unavailable["ghost"]
    assert hints == {"ghost": "UNAVAILABLE: its MCP server's command 'no-such-mcp-server-h15' is not installed on "
                              "this machine; its methods cannot be called (tell the person)."}
    assert out["status"] == "error" and str(BIN) not in out["error"]
