"""A stdio MCP server ends when the process that started it dies, however it dies (session 15's note).

A stdio server runs in a session of its own (so a Ctrl-C in the kernel's terminal does not reach it), and
a graceful shutdown closes it. A kernel killed with SIGKILL (an out-of-memory kill, a crashed host, ``kill
-9``) closes nothing: a server that does not end at the end of its stdin, and the worker processes a
wrapper (``npx``, ``uvx``, ``sh -c``) or the server itself started, keep running, one more set per kill.

The right outcome: after the host is SIGKILLed, every process of the server (the wrapper, the server, a
helper it started) is gone within a bounded wait.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

#: A server that does not end when its stdin does (its MCP loop runs in a thread) and starts a helper process.
SERVER = textwrap.dedent('''
    import os, subprocess, sys, threading, time
    from mcp.server import MCPServer

    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    server = MCPServer("s16o-stubborn")

    @server.tool()
    def pids() -> list[int]:
        """The wrapper's (or host's), this process's and the helper's ids."""
        return [os.getppid(), os.getpid(), helper.pid]

    threading.Thread(target=server.run, args=("stdio",), daemon=True).start()
    time.sleep(600)
    ''')

#: The host: starts the server through the connector, prints its processes' ids, and waits to be killed.
HOST = textwrap.dedent('''
    import asyncio, json, sys
    from codemode_kernel import McpConnector

    async def main():
        connector = McpConnector("stub", command=sys.argv[1], args=sys.argv[2:], connect_timeout=30)
        await connector.tools()
        print(json.dumps(await connector.call("pids", {}, wrapped=True)), flush=True)
        await asyncio.sleep(600)

    asyncio.run(main())
    ''')

ROOT = Path(__file__).resolve().parents[2]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a parent that does not reap it has ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


@pytest.mark.parametrize("wrapped", [False, True], ids=["direct", "sh -c"])
def test_the_server_and_its_children_end_when_the_host_is_killed(tmp_path: Path, wrapped: bool) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    (tmp_path / "host.py").write_text(HOST, encoding="utf-8")
    server = [sys.executable, str(tmp_path / "server.py")]
    command = ["sh", "-c", f"{server[0]} {server[1]}; true"] if wrapped else server  # '; true': sh forks, waits
    host = subprocess.Popen([sys.executable, str(tmp_path / "host.py"), *command], stdout=subprocess.PIPE,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    pids: list[int] = []
    try:
        assert host.stdout is not None
        line = host.stdout.readline()
        parent, pid, helper = json.loads(line)
        pids = [pid, helper] + ([parent] if wrapped else [])
        assert parent != host.pid if wrapped else parent != 0
        assert all(alive(p) for p in pids)
        os.kill(host.pid, signal.SIGKILL)
        host.wait(10)
        for _ in range(200):  # up to ~10 s
            if not any(alive(p) for p in pids):
                break
            time.sleep(0.05)
        assert [p for p in pids if alive(p)] == []
    finally:
        host.kill()
        host.wait(10)
        if host.stdout is not None:
            host.stdout.close()
        for p in pids:  # what a failure left behind
            if alive(p):
                os.kill(p, signal.SIGKILL)
