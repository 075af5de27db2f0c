"""``codemode mcp``: a runtime served to agent hosts over MCP (issues 14, 15).

This package is the server-side home of the ``mcp`` SDK (the client side lives in
``connectors/mcp.py``) and of uvicorn. Its parts:

- :mod:`.server`: the ``MCPServer`` with the tools ``codemode`` (run a program) and
  ``codemode_status`` (follow one), outcomes as structured content with ``isError``;
- :mod:`.follow`: which executions a server's model may follow, and their status;
- :mod:`.approvals`: asking the person through the client (elicitation) when a program pauses;
- :mod:`.http`: streamable HTTP behind a bearer token, loopback by default.
"""

from codemode_kernel.serve.server import build_mcp_server, serve_stdio

__all__ = ["build_mcp_server", "serve_stdio"]
