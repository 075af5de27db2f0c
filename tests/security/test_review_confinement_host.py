"""The host's side of the zygote after 4d6d611 (issue 12): a pidfd's pid, a zygote breaking the protocol, its config.

4d6d611 reads a pidfd's pid with os.open/os.read instead of a text file object, and compares
the zygote's configuration as a dict before its JSON key. Here: the new parser against the
kernel's real fdinfo (live, zombie, reaped, not a pidfd); a zygote (a stand-in speaking the
control protocol) whose ``forked`` reply is garbled or carries no pidfd must be stopped and
replaced with a clear error, leaving no file descriptor behind; and a zygote never forks a
worker for a configuration other than its own.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.launcher import ZygoteLauncher, _pid_of, zygote_supported
from codemode_kernel.executor.pool import EmptyRoot, WorkerProcess
from tests.executor.isolated_support import RecordingHost

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")


def _pid_the_old_way(pidfd: int) -> int:
    """How c1316f7 read it (a text file object, line by line): the reference for the new parser."""
    with open(f"/proc/self/fdinfo/{pidfd}") as f:
        for line in f:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise OSError("a pidfd without a Pid line in /proc/self/fdinfo")


def test_the_pid_of_a_pidfd_is_read_as_before_live_zombie_and_reaped() -> None:
    """It is an error if the new fdinfo parser disagrees with the old one on a live, a zombie or a reaped process."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    pidfd = os.pidfd_open(proc.pid)
    try:
        assert _pid_of(pidfd) == _pid_the_old_way(pidfd) == proc.pid  # live
        assert proc.stdin is not None
        proc.stdin.close()
        select.select([pidfd], [], [], 30)  # it has exited: a zombie until reaped
        assert _pid_of(pidfd) == _pid_the_old_way(pidfd) == proc.pid
        proc.wait()
        assert _pid_of(pidfd) == _pid_the_old_way(pidfd) == -1  # reaped: the kernel says -1
    finally:
        os.close(pidfd)


def test_a_descriptor_that_is_not_a_pidfd_has_no_pid() -> None:
    """It is an error if a pipe, a file or a socket handed over as a pidfd yields a pid."""
    r, w = os.pipe()
    f = os.open("/proc/self/status", os.O_RDONLY)
    try:
        for fd in (r, w, f):
            with pytest.raises(OSError, match="without a Pid line"):
                _pid_of(fd)
            with pytest.raises(OSError):
                _pid_the_old_way(fd)
    finally:
        for fd in (r, w, f):
            os.close(fd)


# A stand-in for the zygote: it speaks the control protocol, and answers every fork request
# the way MODE says. It counts its starts in COUNT (one line each).
FAKE_ZYGOTE = r'''
import json, os, socket, sys
mode, count = sys.argv[1], sys.argv[2]
with open(count, "a") as f:
    f.write("started\n")
control = socket.socket(fileno=os.dup(0))
control.recv(1 << 16)
control.send(json.dumps({"op": "ready", "isolation": {"seccomp": True, "problems": []}}).encode())
while True:
    message, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 3)
    if not message:
        os._exit(0)
    ident = json.loads(message)["id"]
    r, w = os.pipe()
    forked = b'{"op":"forked","id":%d}' % ident
    if mode == "a-pipe-for-a-pidfd":
        socket.send_fds(control, [forked], [r])
    elif mode == "no-pidfd":
        control.send(forked)
    elif mode == "two-fds":
        socket.send_fds(control, [forked], [os.pidfd_open(os.getpid()), r])
    elif mode == "garbled":
        control.send(forked[:-1])
    elif mode == "its-own-pidfd":
        socket.send_fds(control, [forked], [os.pidfd_open(os.getpid())])
    for fd in fds + [r, w]:
        os.close(fd)
'''


def fake_zygote_passes(folder: Path, mode: str, passes: int = 3) -> dict[str, Any]:
    """``passes`` passes against zygotes that answer as ``mode`` says: their errors, zygotes started, fds left."""
    script = folder / "fake_zygote.py"
    script.write_text(FAKE_ZYGOTE)
    count = folder / "starts"
    count.write_text("")
    wrapper = folder / "python"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {script} {mode} {count}\n")
    wrapper.chmod(0o755)

    async def run() -> dict[str, Any]:
        executor = SubprocessExecutor(Limits(timeout=10), python=str(wrapper), zygote=True, warm=0,
                                      startup_timeout=5)
        fds_before = set(os.listdir("/proc/self/fd"))
        errors = []
        try:
            for _ in range(passes):
                out = await executor.execute("1 + 1", {}, host=RecordingHost())
                errors.append(out.error)
        finally:
            await executor.aclose()
        for _ in range(100):  # the zygotes' reader threads close their sockets as they end
            left = set(os.listdir("/proc/self/fd")) - fds_before
            if not left:
                break
            await asyncio.sleep(0.02)
        return {"errors": errors, "starts": count.read_text().count("started"), "fds_left": sorted(left)}

    outcome: dict[str, Any] = asyncio.run(run())
    return outcome


def assert_replaced_with_a_clear_error(outcome: dict[str, Any], passes: int = 3) -> None:
    for error in outcome["errors"]:
        assert error is not None and error.type == "WorkerCrashed"
        assert "zygote" in error.message and "A new zygote is started for the next pass" in error.message, error
    assert outcome["starts"] == passes  # each pass's zygote was a new one: the one that misbehaved was stopped
    assert outcome["fds_left"] == []


@pytest.mark.parametrize("mode", ["garbled", "its-own-pidfd"])
def test_a_zygote_whose_forked_reply_is_unusable_is_replaced(tmp_path: Path, mode: str) -> None:
    """It is an error if a zygote that answered a fork with garbage stays in use, or the pass is not told clearly.

    its-own-pidfd: the zygote hands over a pidfd of itself and no worker ever speaks; the host
    gives up on it and kills, through that pidfd, the zygote. Until 7b01056 the host first wrote
    the child its pid: that pass got 'could not start a worker process: [Errno 32] Broken pipe',
    the zygote was not replaced, and the worker's pipe objects were left unclosed.
    """
    assert_replaced_with_a_clear_error(fake_zygote_passes(tmp_path, mode))


@pytest.mark.parametrize("mode", ["a-pipe-for-a-pidfd", "no-pidfd", "two-fds"])
def test_a_zygote_whose_forked_reply_has_no_single_pidfd_is_replaced(tmp_path: Path, mode: str) -> None:
    """It is an error if a zygote whose 'forked' carries no single pidfd stays in use, or leaves descriptors behind."""
    assert_replaced_with_a_clear_error(fake_zygote_passes(tmp_path, mode))


def _config(**limits: Any) -> dict[str, Any]:
    return {"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
            "limits": Limits(**limits).worker_config()}


def _ready(worker: WorkerProcess, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n") and time.monotonic() < deadline:
        select.select([worker.stdout_fd], [], [], 0.5)
        try:
            data += os.read(worker.stdout_fd, 1 << 16)
        except BlockingIOError:
            continue
    message: dict[str, Any] = json.loads(data.split(b"\n")[0])
    return message


def _kernel_limits(pid: int) -> dict[str, list[str]]:
    with open(f"/proc/{pid}/limits") as f:
        return {line[:26].strip(): line[26:].split()[:2] for line in f.read().splitlines()[1:]}


CHANGES = [
    {"max_open_files": 16}, {"max_memory_bytes": 256 << 20}, {"max_cpu_seconds": 7}, {"max_file_size": 1},
    {"max_processes": 2}, {"network": True}, {"require_isolation": True}, {"max_calls": 5},
]


def test_a_zygote_forks_only_for_its_own_configuration() -> None:
    """It is an error if a zygote made for one configuration forks a worker for another.

    The configs alternate between the default and each change: every change needs a zygote of
    its own, and the worker's limits (what the kernel says) are always the ones asked for.
    """
    launcher = ZygoteLauncher()
    try:
        base = _config()
        zygotes = []
        for change in [{}, *CHANGES]:
            config = _config(**change)
            for cfg in (config, base):
                worker = launcher.start(cfg, for_pass=True)
                try:
                    message = _ready(worker)
                    assert message["op"] == "ready"
                    limits = cfg["limits"]
                    kernel = _kernel_limits(worker.pid)
                    assert kernel["Max open files"] == [str(limits["max_open_files"])] * 2
                    assert kernel["Max address space"] == [str(limits["max_memory_bytes"])] * 2
                    assert kernel["Max cpu time"] == [str(limits["cpu_seconds"]), str(limits["cpu_seconds"] + 1)]
                    assert kernel["Max file size"] == [str(limits["max_file_size"])] * 2
                    assert kernel["Max processes"] == [str(limits["max_processes"])] * 2
                    assert launcher.zygote is not None
                    assert launcher.zygote.config == cfg
                    zygotes.append(launcher.zygote.pid)
                finally:
                    worker.close()
        # default, default, then (change, default) for each change: a new zygote at each switch
        assert zygotes[0] == zygotes[1]
        assert all(a != b for a, b in itertools.pairwise(zygotes[1:]))
    finally:
        launcher.close()


def test_a_config_equal_in_value_gets_a_worker_with_the_limits_asked_for() -> None:
    """It is an error if a zygote reused for a config equal in value (24 and 24.0, 0 and False) sets other limits."""
    launcher = ZygoteLauncher()
    try:
        first = _config(max_open_files=24, max_processes=0)
        second = json.loads(json.dumps(first))
        second["limits"]["max_open_files"] = 24.0
        second["limits"]["max_processes"] = False
        assert second == first and json.dumps(second) != json.dumps(first)
        for cfg in (first, second):
            worker = launcher.start(cfg, for_pass=True)
            try:
                assert _ready(worker)["op"] == "ready"
                kernel = _kernel_limits(worker.pid)
                assert kernel["Max open files"] == ["24", "24"]
                assert kernel["Max processes"] == ["0", "0"]
            finally:
                worker.close()
    finally:
        launcher.close()
