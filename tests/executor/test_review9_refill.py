"""Review of the deferred refill of the zygote pool (issue 12, 5a4707c): attacks on its timing.

A spaced pass's replacement is forked ``ZygoteLauncher.refill_after`` (3 ms) after the pass ends,
or ``refill_delay`` (1 s) after its worker was handed out if the pass runs on. These specs put a
pass, a dead zygote and the executor's close inside that window (held open by lengthening the
launcher's ``refill_after`` on the instance, so the window is certain rather than a race) and check
that every pass still gets a fresh, confined worker no other pass touched, and that a close leaves
no process, fork or descriptor behind. The processes are real: the zygote, its children, the host.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.executor.launcher import ZygoteLauncher, zygote_supported
from tests.executor.isolated_support import RecordingHost, alive, wait_gone, worker_children
from tests.executor.test_zygote_refill import forked_children

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")]

DEADLINE = 30.0  # seconds a spec waits for what must come (a liveness bound, not a speed figure)
WINDOW = 5.0  # the refill deferred this long after a pass: far longer than any spec's step inside it

CONFINED = {"network_isolated": True, "filesystem_hidden": True, "seccomp": True, "pid_namespace": True}


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    ex = SubprocessExecutor()
    yield ex
    await ex.aclose()


def launcher_of(ex: SubprocessExecutor) -> ZygoteLauncher:
    launcher = ex._pool.launcher
    assert isinstance(launcher, ZygoteLauncher)
    return launcher


def defer_refill(ex: SubprocessExecutor, seconds: float) -> None:
    """A pass's replacement is forked ``seconds`` after the pass ends (this executor only)."""
    launcher_of(ex).refill_after = seconds


def zygote_pid(ex: SubprocessExecutor) -> int:
    zygote = launcher_of(ex).zygote
    assert zygote is not None and zygote.pid is not None
    return zygote.pid


def confinement(report: dict[str, Any] | None) -> dict[str, Any]:
    assert report is not None
    return {key: report.get(key) for key in CONFINED}


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def until(predicate: Any, what: str) -> None:
    end = time.monotonic() + DEADLINE
    while not predicate():
        assert time.monotonic() < end, f"{what} never came"
        await asyncio.sleep(0.02)


MARK = "import json\nmarked = json.dumps({'pass': 1})\nmarked"


async def test_a_pass_inside_the_deferred_refill_gets_a_fresh_confined_worker(executor: SubprocessExecutor) -> None:
    """A pass that comes while the previous pass's replacement is not forked yet runs in a new worker, confined as
    the first was, with a pid of its own and nothing the first pass left (its names, its pid)."""
    await executor.warm_up()
    defer_refill(executor, WINDOW)
    first = await executor.execute(MARK, {}, host=RecordingHost())
    assert first.error is None and first.result == '{"pass": 1}', first.error
    first_pid = (executor.isolation or {}).get("pid")
    second = await executor.execute("marked", {}, host=RecordingHost())
    assert second.error is not None and second.error.type == "NameError", second
    report = executor.isolation
    assert confinement(report) == CONFINED
    assert isinstance(first_pid, int) and (report or {}).get("pid") not in (None, first_pid)
    assert not alive(first_pid) or wait_gone(first_pid)


async def test_a_zygote_killed_while_a_refill_is_deferred_is_reported_once_then_replaced(
        executor: SubprocessExecutor) -> None:
    """The zygote dies (SIGKILL) in the window between a pass's end and its replacement's fork: the next pass is
    told (as when it dies at any other time, test_zygote.py), no code of it runs in anything but a worker of a new
    zygote, and the pass after runs there, confined; the pool refills after it."""
    await executor.warm_up()
    defer_refill(executor, WINDOW)
    first = await executor.execute("1 + 1", {}, host=RecordingHost())
    assert first.error is None and first.result == 2
    old = zygote_pid(executor)
    os.kill(old, signal.SIGKILL)
    assert await asyncio.get_running_loop().run_in_executor(None, wait_gone, old)
    host = RecordingHost()
    told = await executor.execute("notes.add(text='ran')", {"notes": ["add"]}, host=host)
    if told.error is not None:
        assert told.error.type == "WorkerCrashed" and "A new zygote is started" in told.error.message, told
        assert host.calls == []
    second = await executor.execute("2 + 3", {}, host=RecordingHost())
    assert second.error is None and second.result == 5, second.error
    assert confinement(executor.isolation) == CONFINED
    assert zygote_pid(executor) != old
    defer_refill(executor, 0.003)
    third = await executor.execute("3 + 4", {}, host=RecordingHost())
    assert third.error is None and third.result == 7, third.error
    await until(lambda: len(forked_children(executor)) >= 1, "the refill after the pass")


@pytest.mark.parametrize("window", [0.003, 0.5], ids=["default-3ms", "held-open"])
async def test_aclose_while_a_refill_is_deferred_forks_nothing_after_and_leaves_nothing(window: float) -> None:
    """aclose() right after a pass, its replacement not forked yet: no worker or zygote is left, none is forked
    after the close (the timer's moment passes), and the executor's descriptors are all closed; the executor
    still serves a pass afterwards, and closes clean again."""
    before = open_fds()
    ex = SubprocessExecutor()
    try:
        await ex.warm_up()
        defer_refill(ex, window)
        out = await ex.execute("1 + 1", {}, host=RecordingHost())
        assert out.error is None and out.result == 2
        await ex.aclose()
        assert worker_children() == []
        await asyncio.sleep(window + 0.5)  # past the deferred refill's moment
        assert worker_children() == []
        await until(lambda: open_fds() <= before, "closing every descriptor")
        again = await ex.execute("2 + 2", {}, host=RecordingHost())
        assert again.error is None and again.result == 4, again.error
    finally:
        await ex.aclose()
    await asyncio.sleep(window + 0.5)
    assert worker_children() == []
    await until(lambda: open_fds() <= before, "closing every descriptor")


async def test_a_pass_that_runs_on_gets_its_replacement_while_it_runs_and_ends_alone_in_its_worker(
        executor: SubprocessExecutor) -> None:
    """A pass held in a call far past ``refill_delay``: its replacement is forked while it runs (the pool does not
    wait for its end), and the replacement is not the pass's worker; the next pass runs in that replacement."""
    await executor.warm_up()
    launcher = launcher_of(executor)
    release = asyncio.Event()

    async def held(message: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return {"value": "ok"}

    running = asyncio.ensure_future(executor.execute("notes.add(text='x')", {"notes": ["add"]},
                                                     host=RecordingHost(held)))
    try:
        await until(lambda: (executor.isolation or {}).get("pid") is not None and len(executor._running) == 1,
                    "the pass")
        mine = (executor.isolation or {}).get("pid")
        await until(lambda: len(forked_children(executor)) == 2, f"a replacement {launcher.refill_delay} s on")
        assert len(executor._running) == 1 and not running.done()
    finally:
        release.set()
    out = await asyncio.wait_for(running, DEADLINE)
    assert out.error is None and out.result == "ok", out.error
    nxt = await executor.execute("5", {}, host=RecordingHost())
    assert nxt.error is None and nxt.result == 5
    assert (executor.isolation or {}).get("pid") != mine
    assert confinement(executor.isolation) == CONFINED


async def test_two_executors_refill_their_own_pools_and_never_share_a_worker() -> None:
    """Passes on two executors in turn, each inside the other's deferred refill: each runs in a worker of its own
    executor's zygote, never one the other handed out, and each pool refills to its own size."""
    a, b = SubprocessExecutor(), SubprocessExecutor()
    try:
        await asyncio.gather(a.warm_up(), b.warm_up())
        for ex in (a, b):
            defer_refill(ex, 0.3)
        seen: dict[int, str] = {}
        for i in range(4):
            for name, ex in (("a", a), ("b", b)):
                out = await ex.execute(f"{i} + 1", {}, host=RecordingHost())
                assert out.error is None and out.result == i + 1, out.error
                pid = (ex.isolation or {}).get("pid")
                assert isinstance(pid, int) and pid not in seen, (name, pid, seen)
                seen[pid] = name
                assert confinement(ex.isolation) == CONFINED
        assert zygote_pid(a) != zygote_pid(b)
        # Passes overtook the deferred refill (a burst): each pool keeps its size and its burst's one more.
        await until(lambda: len(forked_children(a)) >= 1 and len(forked_children(b)) >= 1, "both refills")
        assert not set(forked_children(a)) & set(forked_children(b))
    finally:
        await a.aclose()
        await b.aclose()
