"""Helpers for the isolated-executor specifications: a recording host and process probes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor

Reply = dict[str, Any]


class RecordingHost:
    """A host handler that records every request and answers with ``answer`` (default: value None)."""

    def __init__(self, answer: Callable[[dict[str, Any]], Reply | Awaitable[Reply]] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.answer = answer

    async def __call__(self, message: dict[str, Any]) -> Reply:
        self.requests.append(message)
        if self.answer is None:
            return {"value": None}
        reply = self.answer(message)
        if asyncio.iscoroutine(reply):
            reply = await reply
        assert isinstance(reply, dict)
        return reply

    @property
    def calls(self) -> list[tuple[str, str]]:
        return [(m["connector"], m["method"]) for m in self.requests if m["op"] == "call"]


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def worker_children() -> list[int]:
    """Live worker and zygote processes started by this process, at any depth (a zygote's children too)."""
    parents: dict[int, int] = {}
    ours: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if fields[0] == "Z":
            continue
        parents[int(entry)] = int(fields[1])
        if b"codemode_kernel.executor.worker" in cmdline or b"codemode_kernel.executor.zygote" in cmdline:
            ours.add(int(entry))
    me = os.getpid()

    def descends(pid: int) -> bool:
        for _ in range(16):
            pid = parents.get(pid, 0)
            if pid == me:
                return True
            if pid <= 1:
                return False
        return False

    return sorted(pid for pid in ours if descends(pid))


# A tampered worker: a real process that speaks the pipe protocol as a broken-out worker could.
TAMPERED_PRELUDE = '''
import json, os, sys, time
inp, out = sys.stdin.buffer, sys.stdout.buffer
def send(data):
    out.write(data if isinstance(data, bytes) else (json.dumps(data) + "\\n").encode())
    out.flush()
def recv():
    return inp.readline()
recv()  # config
send({"op": "ready", "pid": os.getpid(), "isolation": {"pid": os.getpid()}})
recv()  # run
'''


def tampered_executor(folder: Path, body: str, limits: Limits | None = None) -> SubprocessExecutor:
    """An executor whose worker runs ``body`` after the protocol's greeting (``python=`` is a wrapper)."""
    n = len(list(folder.glob("evil*.py")))
    script = folder / f"evil{n}.py"
    script.write_text(TAMPERED_PRELUDE + textwrap.dedent(body))
    wrapper = folder / f"python{n}"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -I -S {script}\n")
    wrapper.chmod(0o755)
    return SubprocessExecutor(limits, python=str(wrapper), warm=0)


@contextlib.asynccontextmanager
async def tampered_executors(folder: Path, default: Limits | None = None) -> AsyncIterator[
        Callable[..., SubprocessExecutor]]:
    """``make(body, limits=None)``: tampered executors (:func:`tampered_executor`, ``default`` limits
    unless given), each closed when the block ends."""
    made: list[SubprocessExecutor] = []

    def make(body: str, limits: Limits | None = None) -> SubprocessExecutor:
        ex = tampered_executor(folder, body, limits or default)
        made.append(ex)
        return ex

    try:
        yield make
    finally:
        for ex in made:
            await ex.aclose()
