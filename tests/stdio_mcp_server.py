"""A stdio MCP server for the connector and fault specs (``tests.support.STDIO_MCP_SERVER``).

``echo`` answers; ``pid`` is this process's id; ``big`` a long answer; ``slow`` records the call,
then answers late; ``crash`` records the call, then exits the process while it is in flight (no
reply ever comes). Every call but ``pid`` is appended to the file named by ``CALLS_FILE`` first,
so a spec can count what reached the server.
"""

from __future__ import annotations

import os
import time

from mcp.server import MCPServer

server = MCPServer("codemode-tests")


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
def pid() -> int:
    """This process's id."""
    return os.getpid()


@server.tool()
def big(size: int) -> str:
    """Return ``size`` x's."""
    _note("big")
    return "x" * size


@server.tool()
def slow(seconds: float) -> str:
    """Record the call, then answer after ``seconds``."""
    _note("slow")
    time.sleep(seconds)
    return "done"


@server.tool()
def crash() -> str:
    """Record the call, then die without answering."""
    _note("crash")
    os._exit(3)


if __name__ == "__main__":
    server.run()
