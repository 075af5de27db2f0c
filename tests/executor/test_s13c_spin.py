"""Looking for the other end's line before sleeping (issue 12, s13c): never with one CPU.

The worker looks for its reply (``worker.PipeChannel``) and the host for the next request
(``channel.WorkerPipe``) for a moment before they sleep. With one CPU to run on, the other end
cannot answer meanwhile, so neither looks: the affinity mask (``os.sched_getaffinity``) says so.

Real pipes stand for a worker's; a counting clock stands for time where a look's length matters.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel.executor import worker as worker_module
from codemode_kernel.executor.channel import WorkerPipe
from codemode_kernel.executor.worker import PipeChannel
from tests.executor.pool_support import CountingClock

pytestmark = pytest.mark.anyio

REQUEST = b'{"op":"call","connector":"shop","method":"get","args":{}}\n'
REPLY = b'{"value":1}\n'
TWO_CPUS = len(os.sched_getaffinity(0)) >= 2


@contextlib.contextmanager
def one_cpu() -> Iterator[None]:
    """This thread may run on one CPU only (the one it is on), until the block ends."""
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


@contextlib.contextmanager
def host_pipe(clock: CountingClock | None = None) -> Iterator[tuple[WorkerPipe, int]]:
    """A WorkerPipe on real pipes, and the fd the worker would write its requests to."""
    out_r, out_w = os.pipe()
    in_r, in_w = os.pipe()
    err_r, err_w = os.pipe()
    for fd in (out_r, err_r):
        os.set_blocking(fd, False)
    pipe = WorkerPipe(asyncio.get_running_loop(), out_r, in_w, err_r, bytearray(), 1 << 20,
                      clock=clock or CountingClock(0.0))
    try:
        yield pipe, out_w
    finally:
        pipe.detach()
        for fd in (out_r, out_w, in_r, in_w, err_r, err_w):
            with contextlib.suppress(OSError):
                os.close(fd)


# -- the worker ------------------------------------------------------------------------------


@contextlib.contextmanager
def worker_channel() -> Iterator[tuple[PipeChannel, int]]:
    """A worker's PipeChannel on real pipes, and the fd the host would write its replies to."""
    host_r, worker_w = os.pipe()
    worker_r, host_w = os.pipe()
    reader, writer = os.fdopen(worker_r, "rb"), os.fdopen(worker_w, "wb")
    try:
        yield PipeChannel(reader, writer), host_w
    finally:
        reader.close()
        writer.close()
        for fd in (host_r, host_w):
            os.close(fd)


def looks(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Counts the worker's non-blocking looks at its pipe (``select`` with a zero timeout)."""
    seen: list[float] = []
    real = select.select

    def counted(*args: Any) -> Any:
        seen.append(args[3])
        return real(*args)

    monkeypatch.setattr(worker_module.select, "select", counted)
    return seen


def test_a_worker_with_one_cpu_never_looks_for_its_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    """Allowed one CPU, the worker blocks for its reply at once: the host could not answer while it looked."""
    with one_cpu(), worker_channel() as (channel, host_w):
        seen = looks(monkeypatch)
        for _ in range(3):
            os.write(host_w, REPLY)
            assert channel.request({"op": "call"}) == {"value": 1}
    assert seen == []


@pytest.mark.skipif(not TWO_CPUS, reason="needs two CPUs")
def test_a_worker_with_two_cpus_looks_for_its_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    """The other side of the spec above: with two CPUs the worker looks before it blocks."""
    with worker_channel() as (channel, host_w):
        seen = looks(monkeypatch)
        os.write(host_w, REPLY)
        assert channel.request({"op": "call"}) == {"value": 1}
    assert seen == [0]


# -- the host's loop -------------------------------------------------------------------------


async def test_a_host_with_one_cpu_gives_the_loop_one_turn_and_sleeps() -> None:
    """Allowed one CPU, the host takes one turn and one read after a reply, never a timed poll."""
    clock = CountingClock(WorkerPipe.POLL_SECONDS / 2.5)
    with one_cpu(), host_pipe(clock) as (pipe, worker_w):

        async def send_when_waiting() -> None:
            while pipe.waiter is None:
                await asyncio.sleep(0)
            os.write(worker_w, REQUEST)

        writer = asyncio.create_task(send_when_waiting())
        assert await asyncio.wait_for(pipe.readline(soon=True), 10) == REQUEST
        await writer
    assert clock.reads == 0
