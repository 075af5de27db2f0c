"""A zygote rotated out for its fork quota does not take along a worker it was forking for a pass.

The flaky spec ``test_the_children_of_zygotes_rotated_after_their_quota_are_confined`` (s12s, at
load ~9): the pool thread and a pass start workers at once; one of them had the zygote fork its
last allowed child, and the other, seeing the quota reached, retired the zygote while that fork
was still on its way. A retiring zygote that had no child yet recorded counted as idle and was
closed at once, and the child it had just forked (a pass's worker) died with it (SIGKILL: it was
in the zygote's PID namespace). The launcher, the zygotes and their children are real; the
spec only holds the first fork between the zygote's answer and its child's record, where the
other thread came in.
"""

from __future__ import annotations

import os
import select
import threading
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits
from codemode_kernel.executor.launcher import ZygoteLauncher, ZygoteProcess, zygote_supported
from codemode_kernel.executor.pool import EmptyRoot, WorkerProcess
from codemode_kernel.executor.worker import dumps_line
from tests.executor.isolated_support import wait_gone

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")


def said(worker: WorkerProcess, what: bytes, timeout: float) -> bytes:
    """What the worker said up to a line holding ``what``, or up to its end."""
    data = b""
    while what not in data:
        if not select.select([worker.stdout_fd], [], [], timeout)[0]:
            raise AssertionError(f"the worker said nothing within {timeout} s")
        try:
            chunk = os.read(worker.stdout_fd, 4096)
        except BlockingIOError:
            continue
        if not chunk:
            break
        data += chunk
    return data


def test_a_fork_on_its_way_when_another_thread_rotates_the_zygote_gives_a_live_worker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """It is an error if a worker being forked for a pass dies because another thread retired its zygote meanwhile."""
    launcher = ZygoteLauncher(max_children=1)
    config = {"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
              "limits": Limits().worker_config()}
    answered = threading.Event()  # the first fork's answer has come, its child is not recorded yet
    rotated = threading.Event()   # the other thread has started a worker (and retired the zygote)
    original = ZygoteProcess._await_reply

    def holding(self: ZygoteProcess, ident: int, timeout: float, what: str) -> tuple[dict[str, Any], list[int]]:
        reply = original(self, ident, timeout, what)
        if ident == 1 and not answered.is_set():
            answered.set()
            assert rotated.wait(60)
        return reply

    monkeypatch.setattr(ZygoteProcess, "_await_reply", holding)
    outcome: dict[str, Any] = {}

    def for_a_pass() -> None:
        try:
            outcome["worker"] = launcher.start(config, for_pass=True)
        except BaseException as exc:  # reported below
            outcome["error"] = exc

    thread = threading.Thread(target=for_a_pass)
    workers: list[WorkerProcess] = []
    try:
        thread.start()
        assert answered.wait(60)
        first = launcher.zygote
        assert first is not None and first.pid is not None
        workers.append(launcher.start(config, for_pass=False))  # the quota is reached: a new zygote forks it
        assert launcher.zygote is not first
        rotated.set()
        thread.join(60)
        assert "error" not in outcome, outcome.get("error")
        worker = outcome["worker"]
        workers.append(worker)
        assert b'"op":"ready"' in said(worker, b"\n", 60)  # confined, waiting for its pass
        try:
            os.write(worker.stdin_fd, dumps_line({"op": "run", "code": "6 * 7", "namespaces": {}}))
        except BrokenPipeError:
            pytest.fail("the worker was killed with the zygote another thread retired")
        done = said(worker, b'"op":"done"', 60)  # b"" if it was killed with its zygote
        assert b'"op":"done"' in done and b"42" in done, done
        assert first.thread.is_alive(), "the retired zygote ended while its child waited for a pass"
        assert worker.proc.wait(timeout=30) == 0  # single use: it exits after its pass
        first.join(30)  # with its last child gone, the retired zygote ends
        assert not first.thread.is_alive() and wait_gone(first.pid)
    finally:
        rotated.set()
        thread.join(60)
        for w in workers:
            w.close()
        launcher.close()
