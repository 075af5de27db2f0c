"""Workers forked by a zygote: each confined and single-use, in its own PID namespace, sharing nothing a pass sent.

Specifications of ``SubprocessExecutor`` with its default launcher on Linux (issue 12) and
of the launcher itself. The processes are real: the zygote, its children and the host.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.launcher import ZygoteLauncher, zygote_command, zygote_supported
from codemode_kernel.executor.pool import EmptyRoot
from tests.executor.isolated_support import RecordingHost, wait_gone

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")]


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    ex = SubprocessExecutor()
    yield ex
    await ex.aclose()


def status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return {key: value.strip() for key, value in (line.split(":", 1) for line in f.read().splitlines())}


def cmdline(pid: int) -> list[str]:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return [part.decode() for part in f.read().split(b"\0")[:-1]]


def zygote_of(worker: int) -> tuple[int, int]:
    """(Z', Z): the zygote that forked ``worker`` and the process that started it."""
    forker = int(status(worker)["PPid"])
    return forker, int(status(forker)["PPid"])


async def ready_worker(ex: SubprocessExecutor) -> tuple[int, dict[str, Any]]:
    report = await ex.warm_up()
    assert report is not None
    return int(report["pid"]), report


async def test_each_worker_is_pid_1_of_its_own_pid_namespace(executor: SubprocessExecutor) -> None:
    """A worker is pid 1 (NSpid ends in 1) of a PID namespace neither the host nor the next worker shares."""
    pid, report = await ready_worker(executor)
    if not report["pid_namespace"]:
        pytest.skip(f"no PID namespace on this system: {report['problems']}")
    assert status(pid)["NSpid"].split()[-1] == "1"
    first = os.readlink(f"/proc/{pid}/ns/pid")
    assert first != os.readlink("/proc/self/ns/pid")
    assert report["pids"].startswith("isolated")
    await executor.execute("1", {}, host=RecordingHost())
    second, _ = await ready_worker(executor)
    assert second != pid
    assert os.readlink(f"/proc/{second}/ns/pid") != first


async def test_the_worker_is_forked_from_a_clean_zygote_that_we_started(executor: SubprocessExecutor) -> None:
    """The worker and its zygote run `python -I -S` with an empty environment; the worker holds only fds 0-2."""
    pid, report = await ready_worker(executor)
    forker, starter = zygote_of(pid)
    assert starter == os.getpid() or int(status(starter)["PPid"]) == os.getpid()
    for process in (pid, forker, starter):
        assert cmdline(process) == zygote_command()
        with open(f"/proc/{process}/environ", "rb") as f:
            assert f.read() == b""
    assert sorted(os.listdir(f"/proc/{pid}/fd")) == ["0", "1", "2"]
    worker = status(pid)
    if report["seccomp"]:
        assert worker["Seccomp"] == "2" and int(worker["Seccomp_filters"]) == 2  # the zygote's layer and its own
    if os.geteuid() == 0:
        assert worker["Uid"].split()[0] == "65534"
        assert status(forker)["Uid"].split()[0] == "0"  # only the child drops root: the zygote forks as root
    if report["network_isolated"]:
        assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")
    assert worker["NoNewPrivs"] == "1"


async def test_random_and_uuid_differ_in_every_pass(executor: SubprocessExecutor) -> None:
    """Children of one zygote do not repeat random numbers or UUIDs: each re-seeds."""
    code = "import random, uuid\n[random.random(), random.getrandbits(64), str(uuid.uuid4()), str(uuid.uuid1())]"
    outs = [await executor.execute(code, {}, host=RecordingHost()) for _ in range(3)]
    assert all(out.error is None for out in outs), [out.error for out in outs]
    for column in zip(*(out.result for out in outs), strict=True):
        assert len(set(column)) == 3, column


async def test_passes_leave_nothing_in_the_zygote(executor: SubprocessExecutor) -> None:
    """Code, inputs and results of a pass never reach the zygote's memory (it never sees a pass)."""
    if os.geteuid() != 0:
        pytest.skip("reading another process's memory needs root")
    token = "zygote-canary-" + os.urandom(8).hex()
    out = await executor.execute(f"secret = {token!r} + given\nsecret", {}, host=RecordingHost(),
                                 inputs={"given": "-input"})
    assert out.result == token + "-input"
    pid, _ = await ready_worker(executor)
    for process in zygote_of(pid):
        assert token.encode() not in memory_of(process)


def memory_of(pid: int) -> bytes:
    """Every readable private or anonymous mapping of ``pid``."""
    chunks = []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            fields = line.split()
            if not fields[1].startswith("r") or (len(fields) > 5 and fields[5].startswith("[v")):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            try:
                mem.seek(start)
                chunks.append(mem.read(end - start))
            except OSError:
                continue
    return b"".join(chunks)


async def test_a_dead_zygote_is_replaced_and_the_pass_that_needed_it_is_told(executor: SubprocessExecutor) -> None:
    """Killed while idle, the zygote takes its warm worker along; the next pass is told, the one after runs."""
    pid, _ = await ready_worker(executor)
    forker, starter = zygote_of(pid)
    os.kill(forker, signal.SIGKILL)
    assert wait_gone(pid) and wait_gone(forker)
    failed = await executor.execute("1 + 1", {}, host=RecordingHost())
    assert failed.error is not None and failed.error.type == "WorkerCrashed"
    assert "the zygote process" in failed.error.message and "SIGKILL" in failed.error.message
    assert "A new zygote is started for the next pass" in failed.error.message
    again = await executor.execute("1 + 1", {}, host=RecordingHost())
    assert again.result == 2
    replacement, _ = await ready_worker(executor)
    assert zygote_of(replacement) != (forker, starter)


async def test_a_running_pass_whose_zygote_dies_ends_as_crashed(executor: SubprocessExecutor) -> None:
    """The children die with their zygote (its PID namespace): the pass running in one ends, the next works."""
    seen: list[int] = []

    def answer(message: dict[str, Any]) -> dict[str, Any]:
        assert executor.isolation is not None
        seen.append(executor.isolation["pid"])
        os.kill(zygote_of(executor.isolation["pid"])[0], signal.SIGKILL)
        return {"value": None}

    out = await executor.execute("shop.get()\nwhile True:\n    pass", {"shop": ["get"]}, host=RecordingHost(answer))
    assert out.error is not None and out.error.type == "WorkerCrashed"
    assert wait_gone(seen[0])
    for _ in range(2):  # the first may be told the zygote died
        again = await executor.execute("'next'", {}, host=RecordingHost())
        if again.error is None:
            break
        assert "the zygote process" in again.error.message
    assert again.result == "next"


FAKE_ZYGOTE = '''
import json, os, socket, sys
control = socket.socket(fileno=os.dup(0))
control.recv(1 << 16)
control.send(json.dumps({"op": "ready", "isolation": {}}).encode())
while True:
    data, fds, _, _ = socket.recv_fds(control, 1 << 16, 3)
    if not data:
        break
    control.send(REPLY)
'''


@pytest.mark.parametrize("reply", [b"not json", b'{"op": "forked", "id": "x"}', b'{"op": "exec"}',
                                   b'{"op": "exit", "id": 99, "returncode": 0}'],
                         ids=["not-json", "bad-id", "unknown-op", "unknown-child"])
async def test_a_zygote_that_breaks_the_protocol_is_replaced(tmp_path: Path, reply: bytes) -> None:
    """A zygote answering a fork with nonsense is stopped; that pass is told so, with what to expect next."""
    script = tmp_path / "zygote.py"
    script.write_text(FAKE_ZYGOTE.replace("REPLY", repr(reply)))
    wrapper = tmp_path / "python"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -I -S {script}\n")
    wrapper.chmod(0o755)
    ex = SubprocessExecutor(Limits(), python=str(wrapper), zygote=True, warm=0, startup_timeout=10)
    try:
        out = await ex.execute("1", {}, host=RecordingHost())
    finally:
        await ex.aclose()
    assert out.error is not None and out.error.type == "WorkerCrashed"
    assert "could not start a worker process" in out.error.message
    assert "zygote" in out.error.message and "A new zygote is started for the next pass" in out.error.message


async def test_a_zygote_is_retired_after_its_quota_once_its_children_end() -> None:
    """After max_children forks a new zygote serves; the old one lives while a child of it runs, then exits."""
    launcher = ZygoteLauncher(max_children=2)
    config = {"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
              "limits": Limits().worker_config()}
    try:
        workers = [launcher.start(config, for_pass=True) for _ in range(2)]
        first = launcher.zygote
        assert first is not None and first.pid is not None
        third = launcher.start(config, for_pass=True)
        assert launcher.zygote is not first
        workers[0].close()
        assert workers[0].proc.wait(timeout=10) == -signal.SIGKILL
        await asyncio.sleep(0.2)
        assert first.thread.is_alive(), "retired while a child of it still ran"
        workers[1].close()
        first.join(10)
        assert not first.thread.is_alive() and wait_gone(first.pid)
        third.close()
    finally:
        launcher.close()


@pytest.mark.parametrize("code", ["while True:\n    pass", "x = 7 ** 50_000_000\nx"],
                         ids=["python-loop", "long-C-call"])
async def test_a_pass_over_its_cpu_seconds_is_reported_as_such_by_the_zygote(code: str) -> None:
    """A namespace's pid 1 ends at its CPU limit by its SIGXCPU handler, or by the hard limit in a long C call."""
    ex = SubprocessExecutor(Limits(timeout=30, max_cpu_seconds=1))
    try:
        out = await ex.execute(code, {}, host=RecordingHost())
    finally:
        await ex.aclose()
    assert out.error is not None and out.error.type == "LimitExceeded"
    assert "Limits.max_cpu_seconds=1" in out.error.message


def test_spawned_workers_say_they_share_the_pid_namespace() -> None:
    """Without the zygote the report says the worker has no PID namespace of its own."""
    ex = SubprocessExecutor(zygote=False)
    try:
        report = asyncio.run(ex.warm_up())
    finally:
        asyncio.run(ex.aclose())
    assert report is not None and report["pid_namespace"] is False
    assert report["pids"].startswith("shared with the host")

