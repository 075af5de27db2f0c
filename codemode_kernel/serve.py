"""Serve a runtime to agent hosts over MCP: one tool named ``codemode``.

An MCP client (an agent host, an IDE) gets the same model-facing tool as ``runtime.tool()``:
it sends Python source and receives the output dict (``completed`` / ``paused`` / ``error``).
Approvals are deliberately *not* tools: a paused execution waits for a person, who approves
or rejects it with ``codemode approve|reject`` (or the notebook panel) over the same store.

This module is the server-side home of the ``mcp`` SDK (the client side lives in
``connectors/mcp.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server import MCPServer

from codemode_kernel.runtime import CodemodeRuntime


def build_mcp_server(runtime: CodemodeRuntime, *, description: str | None = None,
                     connector_hints: Mapping[str, str] | None = None) -> MCPServer:
    """An ``MCPServer`` exposing ``runtime`` as the tool ``codemode``."""
    tool = runtime.tool(description, connector_hints)
    server = MCPServer("codemode", instructions=(
        "Code Mode: write one small Python program that combines the connectors' methods and send it to the "
        "`codemode` tool. A call that needs approval pauses the program; a person approves it outside this "
        "conversation, after which the program resumes from its journal."))

    @server.tool(name=tool.name, description=tool.description)
    async def codemode(code: str) -> dict[str, Any]:
        return await tool.call(code)  # already plain JSON (runtime.tool: codec.to_json)

    return server


async def serve_stdio(runtime: CodemodeRuntime, **options: Any) -> None:
    """Serve ``runtime`` over stdio until the client disconnects, then close the runtime.

    Stdout carries the protocol only. ``MCPServer`` sets up logging to stderr with
    ``logging.basicConfig``, which does nothing once the root logger has a handler: the
    ``codemode`` command installs its escaping one first (see ``cli._log_to_terminal``), so a
    connector's log line (an MCP server's last stderr words) reaches a terminal inert.
    """
    async with runtime:
        await build_mcp_server(runtime, **options).run_stdio_async()
