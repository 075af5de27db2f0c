"""Fakes for the warm pool's specs: workers a zygote reaps, and a launcher that makes them."""

from __future__ import annotations

import os
import threading
from typing import IO, Any

from codemode_kernel.executor.pool import WorkerProcess


class ReapedElsewhere:
    """A worker process as a zygote's child looks to the pool: its three pipes, reaped by someone else."""

    reaped_elsewhere = True

    def __init__(self, pid: int) -> None:
        self.pid = pid
        ends: list[IO[bytes]] = []
        for _ in range(3):
            r, w = os.pipe()
            ends += [os.fdopen(r, "rb", buffering=0), os.fdopen(w, "wb", buffering=0)]
        self.stdin, self.stdout, self.stderr = ends[1], ends[2], ends[4]
        self._others = [ends[0], ends[3], ends[5]]
        self.killed = False

    def poll(self) -> int | None:
        return -9 if self.killed else None

    def wait(self, timeout: float | None = None) -> int:
        return -9

    def kill(self) -> None:
        if not self.killed:
            self.killed = True
            for f in self._others:
                f.close()


class Launcher:
    refill_delay = 10.0  # a pass runs on: its replacement would come 10 s after the take
    refill_after = 0.3  # a pass ended: its replacement comes this long after
    burst = 0

    def __init__(self) -> None:
        self.started = 0

    def start(self, config: dict[str, Any], *, for_pass: bool, warm: bool = True) -> WorkerProcess:
        self.started += 1
        return WorkerProcess(ReapedElsewhere(1000 + self.started))

    def close(self) -> None:
        pass


class CountingCondition(threading.Condition):
    """Counts the pool thread's wake-ups."""

    def __init__(self) -> None:
        super().__init__()
        self.pool_wakes = 0

    def wait(self, timeout: float | None = None) -> bool:
        woke = super().wait(timeout)
        if threading.current_thread().name == "codemode-worker-pool":
            self.pool_wakes += 1
        return woke


class CountingClock:
    """A clock that moves ``step`` seconds each time it is read, and counts its reads."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now
