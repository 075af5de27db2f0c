"""Taking a worker leaves the pool thread asleep when its replacement is due later (issue 12, s13p).

Woken at the take, the pool thread only computed its new deadline and slept again, while the pass
was being handed over (a futex wake, then the GIL taken from the event loop). A loop timer wakes it
when the refill is due instead; the retire, which plans the refill itself, cancels that timer.
"""

from __future__ import annotations

import asyncio

import pytest

from codemode_kernel.executor.pool import WarmPool
from tests.executor.pool_support import CountingCondition, Launcher

pytestmark = pytest.mark.anyio


class QuickLauncher(Launcher):
    refill_delay = 0.4  # a pass that runs on gets its replacement this long after the take
    refill_after = 0.05


async def _until(done: object, what: str) -> None:
    """Wait until ``done()`` (a liveness bound: a loaded machine may run the pool thread late)."""
    end = asyncio.get_running_loop().time() + 5.0
    while not done() and asyncio.get_running_loop().time() < end:  # type: ignore[operator]
        await asyncio.sleep(0.01)
    assert done(), what  # type: ignore[operator]


async def _started_pool(launcher: Launcher) -> tuple[WarmPool, CountingCondition]:
    """A pool of one whose thread runs and has refilled once (a take and a retire behind it)."""
    pool = WarmPool(launcher, dict, size=1)
    counting = CountingCondition()
    pool._cond = counting  # before the pool thread exists: it only ever waits on this one
    pool.fill()
    pool.retire(pool.take())  # the first take starts the pool thread
    await _until(lambda: launcher.started == 2, "the first refill never came")
    return pool, counting


async def test_taking_a_worker_does_not_wake_the_pool_thread_when_the_refill_is_due_later() -> None:
    """It is an error if the pool thread wakes at a take whose refill is due refill_delay later."""
    launcher = Launcher()  # refill_delay 10 s
    pool, counting = await _started_pool(launcher)
    try:
        await asyncio.sleep(0.1)  # the pool thread asleep: the pool is full
        woken = counting.pool_wakes
        worker = pool.take()
        await asyncio.sleep(0.15)
        assert counting.pool_wakes == woken
        assert launcher.started == 2
        pool.retire(worker)  # the refill comes refill_after (0.3 s) after the pass's end
        await _until(lambda: launcher.started == 3, "the refill after the retire never came")
    finally:
        pool.close()


async def test_a_pass_that_runs_on_gets_its_replacement_refill_delay_after_the_take() -> None:
    """It is an error if a worker's replacement waits for the end of a pass that runs past refill_delay."""
    launcher = QuickLauncher()
    pool, _counting = await _started_pool(launcher)
    try:
        worker = pool.take()  # its pass runs on
        await _until(lambda: launcher.started == 3, "no replacement while the pass ran on")
        pool.retire(worker)
    finally:
        pool.close()


async def test_a_retired_worker_leaves_no_wake_behind_at_refill_delay() -> None:
    """It is an error if the take's timer still wakes the pool thread after the retire planned the refill."""
    launcher = QuickLauncher()
    pool, counting = await _started_pool(launcher)
    try:
        pool.retire(pool.take())
        await _until(lambda: launcher.started == 3, "the refill after the retire never came")
        await asyncio.sleep(0.1)
        woken = counting.pool_wakes
        await asyncio.sleep(QuickLauncher.refill_delay + 0.2)  # past when the take's timer was due
        assert counting.pool_wakes == woken
    finally:
        pool.close()
