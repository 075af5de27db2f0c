"""A cold pool's first pass is not a burst (issue 12, s11q).

A runtime that was not warmed up starts its first pass's worker itself: the pool had none yet.
That is no sign that passes come faster than the pool refills, so the pool keeps its size and
its refill is a warmed worker (a burst's refills skip the zygote child's idle warm-up, and a
spaced pass then pays that child's copy-on-write faults). A take that finds the pool empty
after it has served a pass is a burst, as before (``tests/executor/test_zygote_refill.py``).
"""

from __future__ import annotations

import os
import time
from typing import Any

from codemode_kernel.executor.pool import WarmPool, WorkerProcess
from tests.executor.pool_support import Launcher


class Recording(Launcher):
    refill_delay = 0.0
    refill_after = 0.0
    burst = 1

    def __init__(self) -> None:
        super().__init__()
        self.warm: list[bool] = []

    def start(self, config: dict[str, Any], *, for_pass: bool, warm: bool = True) -> WorkerProcess:
        self.warm.append(warm)
        return super().start(config, for_pass=for_pass, warm=warm)


def settle(launcher: Recording, at_least: int) -> None:
    deadline = time.monotonic() + 5
    while launcher.started < at_least and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # room for any further start


def test_a_cold_pools_first_pass_keeps_the_pool_at_its_size_with_a_warmed_refill() -> None:
    launcher = Recording()
    pool = WarmPool(launcher, dict, 1)
    try:
        worker = pool.take()
        settle(launcher, 2)
        assert launcher.started == 2  # the pass's worker and one refill (a burst: two refills)
        assert launcher.warm == [True, True]  # neither skips the idle warm-up
        pool.retire(worker)
    finally:
        pool.close()


class Slow(Recording):
    refill_delay = 10.0  # a taken worker's replacement comes 10 s on (none during the test)

    def start(self, config: dict[str, Any], *, for_pass: bool, warm: bool = True) -> WorkerProcess:
        worker = super().start(config, for_pass=for_pass, warm=warm)
        os.write(worker.proc._others[1].fileno(), b"ready\n")  # it said ready: its take is no burst
        return worker


def test_an_empty_pool_after_a_served_pass_is_a_burst() -> None:
    launcher = Slow()
    pool = WarmPool(launcher, dict, 1)
    try:
        pool.fill()
        first = pool.take()  # served from the pool; no refill for 10 s
        second = pool.take()  # none left: passes come faster than the pool refills
        assert launcher.started == 2
        assert launcher.warm == [True, False]  # the burst's worker skips the idle warm-up
        for w in (first, second):
            pool.retire(w)
    finally:
        pool.close()
