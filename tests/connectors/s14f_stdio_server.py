"""A stdio MCP server for the s14f specs: ``echo``, ``pid``, ``big`` (a long answer), ``slow`` (records, then
sleeps), ``crash`` (records, then exits mid-call). Each call is appended to ``CALLS_FILE`` first."""

from __future__ import annotations

import os
import time

from mcp.server import MCPServer

server = MCPServer("s14f")


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
