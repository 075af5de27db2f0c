"""A pass's worker is sent SIGKILL once when the pass ends, and its refill is not lost (issue 12).

The executor kills the worker as its pass ends and the pool retires it right after, which closed it
with a second SIGKILL (a system call and the child's lock on the loop, per pass). SIGKILL cannot be
caught or undone: the worker is sent one, and is gone after its pass all the same.

The pool thread is woken for the refill by a timer of the loop the pass ran on; a loop that closed
right after the pass dropped that timer, and the refill waited for the take's refill_delay.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.executor.launcher import ZygoteChild, zygote_supported
from codemode_kernel.executor.pool import WarmPool, WorkerProcess
from tests.executor.pool_support import Launcher

pytestmark = pytest.mark.anyio

LAUNCHERS = [pytest.param(True, id="zygote", marks=pytest.mark.skipif(not zygote_supported(), reason="no zygote")),
             pytest.param(False, id="spawn")]


async def no_host(request: dict[str, Any]) -> dict[str, Any]:
    return {"abort": "no host"}


@pytest.fixture
def signals(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[int]]:
    """SIGKILLs sent to each worker process, by pid (a zygote's child, or a spawned Popen)."""
    sent: Counter[int] = Counter()
    for cls in (ZygoteChild, subprocess.Popen):
        original = cls.kill

        def counted(self: Any, _original: Any = original) -> None:
            sent[self.pid] += 1
            _original(self)

        monkeypatch.setattr(cls, "kill", counted)
    yield sent


@pytest.mark.parametrize("zygote", LAUNCHERS)
async def test_each_pass_sends_its_worker_one_sigkill_and_the_worker_is_gone(zygote: bool,
                                                                             signals: Counter[int]) -> None:
    """It is an error if a pass's worker is signalled twice (the pool's retire after the executor's
    kill), or not at all, or if it still runs after its pass: one process per pass, killed."""
    ex = SubprocessExecutor(zygote=zygote)
    taken: list[WorkerProcess] = []
    take = ex._pool.take

    def recorded() -> WorkerProcess:
        worker = take()
        taken.append(worker)
        return worker

    ex._pool.take = recorded  # type: ignore[method-assign]
    try:
        for i in range(3):
            out = await ex.execute(f"{i} + 1", {}, host=no_host)
            assert out.error is None and out.result == i + 1, out
        for worker in taken:  # retired when its pass's conversation ended: gone, or going
            worker.proc.wait(timeout=10)
        # Our ends of its pipes are closed by the pool thread after the pass (a bounded wait).
        deadline = time.monotonic() + 5.0
        while not all(w.closed for w in taken) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert all(w.killed and w.closed for w in taken)
    finally:
        await ex.aclose()
    assert len({w.pid for w in taken}) == 3
    assert [signals[w.pid] for w in taken] == [1, 1, 1]


def test_a_worker_killed_then_closed_is_signalled_once_and_its_pipes_closed() -> None:
    """It is an error if close() after kill() signals the process again, or leaves a pipe open."""

    class Proc:
        pid = 4242

        def __init__(self) -> None:
            self.kills = 0
            (r0, w0), (r1, w1), (r2, w2) = os.pipe(), os.pipe(), os.pipe()
            self.stdin = os.fdopen(w0, "wb", buffering=0)
            self.stdout = os.fdopen(r1, "rb", buffering=0)
            self.stderr = os.fdopen(r2, "rb", buffering=0)
            self.theirs = [r0, w1, w2]

        def poll(self) -> int | None:
            return -9 if self.kills else None

        def wait(self, timeout: float | None = None) -> int:
            return -9

        def kill(self) -> None:
            self.kills += 1

    proc = Proc()
    worker = WorkerProcess(proc)
    try:
        worker.kill()
        worker.kill()
        worker.close()
        assert proc.kills == 1
        assert proc.stdin.closed and proc.stdout.closed and proc.stderr.closed
    finally:
        for fd in proc.theirs:
            os.close(fd)


def test_the_refill_comes_when_due_though_the_loop_closes_right_after_the_pass() -> None:
    """It is an error if a loop that closes right after a pass (``asyncio.run`` per pass) loses the
    timer that wakes the pool thread for the refill: the refill would come at the take's
    refill_delay (10 s here) instead of refill_after (0.3 s), and the next pass find no worker."""
    launcher = Launcher()
    pool = WarmPool(launcher, dict, size=1)
    waiting = LongWait()
    pool._cond = waiting  # before the pool thread exists: it only ever waits on this one
    try:
        pool.fill()
        worker = pool.take()  # the pool thread starts, and waits for the refill due in 10 s ...
        assert waiting.entered.wait(10.0)  # ... once it is in that wait (a bounded wait for it)

        async def pass_ends() -> None:
            pool.retire(worker)  # schedules the wake-up 0.3 s on, on this loop

        asyncio.run(pass_ends())  # ... which closes at once
        # A liveness bound well below the 10 s: a loaded machine may run the pool thread late.
        deadline = time.monotonic() + 5.0
        while launcher.started < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert launcher.started == 2
    finally:
        pool.close()


class LongWait(threading.Condition):
    """Tells when the pool thread waits for a refill due in more than a second."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        if threading.current_thread().name == "codemode-worker-pool" and timeout is not None and timeout > 1:
            self.entered.set()
        return super().wait(timeout)
