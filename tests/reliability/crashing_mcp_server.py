"""A stdio MCP server that dies in the middle of a call, for the fault specs.

``echo`` answers; ``crash`` exits the process while the call is in flight (no reply ever
comes). Every call is appended to the file named by ``CALLS_FILE`` first, so a spec can
count what reached the server.
"""

from __future__ import annotations

import os

from mcp.server import MCPServer

server = MCPServer("crashing")


def _note(name: str) -> None:
    path = os.environ.get("CALLS_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(name + "\n")


@server.tool()
def echo(text: str) -> str:
    """Return the text."""
    _note("echo")
    return text


@server.tool()
def crash() -> str:
    """Die mid-call."""
    _note("crash")
    os._exit(3)


if __name__ == "__main__":
    server.run()
