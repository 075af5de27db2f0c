"""Retiring a worker that a zygote reaps leaves the pool thread asleep until the refill is due (issue 12).

The pool thread has nothing to do for such a corpse, and woken at the retire it took the GIL from
the event loop while the host recorded the pass; it is woken by the loop when the refill is due.
"""

from __future__ import annotations

import asyncio

import pytest

from codemode_kernel.executor.pool import WarmPool
from tests.executor.pool_support import CountingCondition, Launcher

pytestmark = pytest.mark.anyio


async def test_retiring_a_worker_the_zygote_reaps_does_not_wake_the_pool_thread_before_the_refill() -> None:
    """It is an error if the pool thread wakes at the retire; the refill still comes when it is due."""
    launcher = Launcher()
    pool = WarmPool(launcher, dict, size=1)
    counting = CountingCondition()
    pool._cond = counting  # before the pool thread exists: it only ever waits on this one
    try:
        pool.fill()
        worker = pool.take()  # the pool thread starts, and waits for the refill due in 10 s
        await asyncio.sleep(0.1)
        assert launcher.started == 1
        woken = counting.pool_wakes
        pool.retire(worker)  # the pass is over: the host records it now
        await asyncio.sleep(0.15)
        assert counting.pool_wakes == woken
        # Refilled refill_after (0.3 s) after the retire, not 10 s after the take: waited for, bounded well
        # below those 10 s (a liveness bound: a loaded machine may run the pool thread late).
        end = asyncio.get_running_loop().time() + 5.0
        while launcher.started < 2 and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(0.02)
        assert launcher.started == 2
    finally:
        pool.close()
