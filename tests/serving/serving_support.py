"""A project folder for `codemode mcp`, launched as an agent host does, and MCP clients that answer approvals."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

#: The `codemode` command by its absolute path; the tests run it with a PATH that lacks its folder.
CODEMODE = str(Path(sys.executable).with_name("codemode"))
#: A PATH without the virtualenv's bin folder (as an agent host that never activated it).
BARE_PATH = "/usr/bin:/bin"

#: The connector module: each applied `add_task` appends a line to calls.txt (counted across processes).
TASKS_MODULE = '''
from pathlib import Path

from codemode_kernel import ToolSetConnector

CALLS = Path(__file__).with_name("calls.txt")


def list_tasks() -> list:
    """List tasks."""
    return CALLS.read_text().splitlines() if CALLS.exists() else []


def add_task(title: str) -> dict:
    """Add a task."""
    with CALLS.open("a") as f:
        f.write(title + "\\n")
    return {"title": title}


def tasks():
    return ToolSetConnector([list_tasks, add_task], name="tasks", requires_approval={"add_task"})
'''

CONFIG = '''
[connectors.tasks]
python = "serve_tasks:tasks"

[connectors.clock]
mcp = { command = "mcp-server-time", args = ["--local-timezone", "UTC"] }

[connectors.ghost]
mcp = { command = "no-such-mcp-server-h15", args = [] }

[executor]
kind = "inprocess"
'''

#: Two calls that need approval, over tests.support.Shop: a decision about the first must not reach the second.
SHOP_TWO_CREATES = "a = shop.create_item(title='A')\nb = shop.create_item(title='B')\n[a['title'], b['title']]"
ADD_TWO = "a = tasks.add_task(title='one')\nb = tasks.add_task(title='two')\n[a['title'], b['title']]\n"
ADD_ONE = "tasks.add_task(title='one')['title']\n"


def make_project(folder: Path) -> Path:
    """The folder with its configuration and a notebook; returns the notebook's path."""
    (folder / "serve_tasks.py").write_text(TASKS_MODULE)
    (folder / "codemode.toml").write_text(CONFIG)
    notebook = folder / "analysis.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    return notebook


def applied(folder: Path) -> list[str]:
    """Titles `add_task` really wrote, in order."""
    calls = folder / "calls.txt"
    return calls.read_text().splitlines() if calls.exists() else []


def server_env(**extra: str) -> dict[str, str]:
    return {"PATH": BARE_PATH, "HOME": os.environ.get("HOME", "/tmp"), **extra}


def codemode(*args: str, cwd: Path, answers: str = "") -> subprocess.CompletedProcess[str]:
    """Run the `codemode` command (a person at a terminal, typing ``answers`` at its questions)."""
    return subprocess.run([CODEMODE, *args], cwd=cwd, env=server_env(), capture_output=True, text=True,
                          timeout=120, input=answers)


@dataclass
class Person:
    """Answers the approval questions a client receives, and remembers them."""

    action: str = "accept"
    approve: bool = True
    asked: list[str] = field(default_factory=list)

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(getattr(params, "message", ""))
        content = {"approve": self.approve} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


def stdio_params(notebook: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=CODEMODE, args=["--notebook", str(notebook), "mcp", *extra],
                                 env=server_env(), cwd=str(notebook.parent))


@asynccontextmanager
async def http_client(url: str, token: str, person: Person | None = None, mode: str = "auto"
                      ) -> AsyncIterator[Client]:
    async with (httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                   timeout=httpx2.Timeout(30.0, read=120.0)) as http,
                Client(streamable_http_client(url, http_client=http), elicitation_callback=person,
                       mode=mode) as client):  # type: ignore[arg-type]
        yield client


@dataclass
class HttpServer:
    process: subprocess.Popen[str]
    url: str
    token: str | None
    stderr: Path


def start_http_server(notebook: Path, *extra: str, env: dict[str, str] | None = None,
                      expect_token: bool = True) -> HttpServer:
    """`codemode mcp --http 127.0.0.1:0` in the background; its URL and printed token from its stderr."""
    log = notebook.parent / f"server-{time.monotonic_ns()}.log"
    with log.open("w") as err:
        process = subprocess.Popen([CODEMODE, "--notebook", str(notebook), "mcp", "--http", "127.0.0.1:0", *extra],
                                   cwd=notebook.parent, env=env or server_env(), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=err, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = log.read_text()
        if "serving http://" in text and (not expect_token or "bearer token: " in text):
            url = text.split("serving ", 1)[1].split()[0]
            token = text.split("bearer token: ", 1)[1].split()[0] if "bearer token: " in text else None
            return HttpServer(process, url, token, log)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise AssertionError(f"codemode mcp --http did not start:\n{log.read_text()}")


def stop(server: HttpServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(10)
