"""A zygote's child says ``ready`` with a line the zygote encoded once, and the host records its pid (issue 12).

A child whose own confinement steps (rlimits, user, seccomp layer) all succeed sends the
zygote's template with its pid and priority filled in, instead of building and encoding its
report itself (that touched every string of the report: ~50 copy-on-write faults a child).
The template must be byte for byte the line the child would have built; a child whose step
failed builds its report from what failed, so the host is told. The child says pid 0 (it is
pid 1 of its own namespace and is not told more); the host writes into the report the pid it
sees, for every worker.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import Limits
from codemode_kernel.executor.confinement import Libc, new_report
from codemode_kernel.executor.launcher import zygote_supported
from codemode_kernel.executor.pool import WorkerProcess
from codemode_kernel.executor.worker import dumps_line, loads_line, ready_message
from codemode_kernel.executor.zygote import Zygote

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")


def _zygote(problems: list[str], *, in_userns: bool = False, **limits: Any) -> Iterator[Zygote]:
    control, other = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    report = {**new_report(), "network": "isolated (test)", "network_isolated": True, "problems": problems}
    config = {"parent_pid": os.getpid(), "empty_root": None, "limits": Limits(**limits).worker_config()}
    try:
        yield Zygote(control, config, report, Libc(), None, in_userns, lambda *a, **k: {}, layer_installed=True)
    finally:
        control.close()
        other.close()


@pytest.fixture
def zygote() -> Iterator[Zygote]:
    yield from _zygote([])


def _built(zygote: Zygote, pid: int, priority: int, failed: Any = (), user: str | None = None,
           seccomp: str | None = None) -> bytes:
    return dumps_line(ready_message(zygote._report(failed, user, seccomp), pid, priority))


@pytest.mark.parametrize(("pid", "priority"), [(1, 0), (4242, 10), (7_340_021_111, -5), (2_147_483_647, 19)])
def test_the_encoded_ready_line_is_the_line_the_child_would_build(zygote: Zygote, pid: int, priority: int) -> None:
    """It is an error if the template differs from the report built and encoded in the child."""
    assert zygote.ready is not None
    assert zygote.ready % (pid, priority, pid) == _built(zygote, pid, priority)
    message = loads_line(zygote.ready % (pid, priority, pid))
    assert message["pid"] == pid and message["isolation"]["pid"] == pid
    assert message["isolation"]["priority"] == f"nice {priority}"
    assert message["isolation"]["seccomp"] is True


def test_a_percent_sign_in_the_zygote_report_survives_the_template() -> None:
    """It is an error if text of the report is read as a format directive."""
    for zygote in _zygote(["pids: 100% shared %d %s %%"]):
        assert zygote.ready is not None
        assert zygote.ready % (7, 0, 7) == _built(zygote, 7, 0)
        assert loads_line(zygote.ready % (7, 0, 7))["isolation"]["problems"] == ["pids: 100% shared %d %s %%"]


def test_a_child_whose_steps_fail_reports_each_failure(zygote: Zygote) -> None:
    """It is an error if a failed step of a child is missing from its report."""
    report = zygote._report([("RLIMIT_NOFILE", "Invalid argument")], "Operation not permitted",
                            "prctl() failed: Invalid argument")
    assert "open files" not in report["rlimits"] and "core dumps off" in report["rlimits"]
    assert "RLIMIT_NOFILE: Invalid argument" in report["problems"]
    assert report["seccomp"] is False and report["syscalls"] == "not filtered: prctl() failed: Invalid argument"
    assert "seccomp: prctl() failed: Invalid argument" in report["problems"]
    if os.geteuid() == 0:
        assert report["user"] == "root: could not switch to nobody: Operation not permitted"
        assert report["user"] in report["problems"]


def test_no_template_when_a_child_would_refuse_to_serve() -> None:
    """It is an error if a child that must refuse (require_isolation unmet) could send the template."""
    for zygote in _zygote([], require_isolation=True):  # no file system hidden in this report
        assert "refused" in zygote._report((), None, None)
        assert zygote.ready is None


class _Process:
    """The parts of a process WorkerProcess reads: a pid and three pipe ends (no process runs)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        pipes = [os.pipe() for _ in range(3)]
        self.stdin = open(pipes[0][1], "wb", buffering=0)  # noqa: SIM115
        self.stdout = open(pipes[1][0], "rb", buffering=0)  # noqa: SIM115
        self.stderr = open(pipes[2][0], "rb", buffering=0)  # noqa: SIM115
        self.others = [pipes[0][0], pipes[1][1], pipes[2][1]]

    def close(self) -> None:
        for f in (self.stdin, self.stdout, self.stderr):
            f.close()
        for fd in self.others:
            os.close(fd)


@pytest.mark.parametrize("said", [0, 1, 4242, "1; rm", None])
def test_the_report_carries_the_pid_the_host_sees_whatever_the_worker_said(said: Any) -> None:
    """It is an error if a worker's own word (a forked child says 0) ends up as its pid in the report."""
    proc = _Process(31337)
    try:
        worker = WorkerProcess(proc)  # type: ignore[arg-type]
        assert worker.ready is None
        worker.ready = {"seccomp": True, "pid": said}
        assert worker.ready == {"seccomp": True, "pid": 31337}
    finally:
        proc.close()
