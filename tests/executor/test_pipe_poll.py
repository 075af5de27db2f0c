"""The host's poll for the next request after a reply (issue 12): bounded, adaptive, never in the loop's way.

Real pipes (``os.pipe``) stand for a worker's; a counting clock stands for time, so that how long
a poll lasts is counted in loop turns, not measured.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from codemode_kernel.executor.channel import WorkerPipe
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from tests.executor.isolated_support import RecordingHost
from tests.executor.pool_support import CountingClock

pytestmark = pytest.mark.anyio

REQUEST = b'{"op":"call","connector":"shop","method":"get","args":{}}\n'


@dataclass
class Pipes:
    pipe: WorkerPipe
    worker_out: int  # the worker's end of the pipe the host reads

    def send(self, data: bytes = REQUEST) -> None:
        os.write(self.worker_out, data)


@contextlib.contextmanager
def worker_pipes(clock: CountingClock) -> Iterator[Pipes]:
    out_r, out_w = os.pipe()
    in_r, in_w = os.pipe()
    err_r, err_w = os.pipe()
    for fd in (out_r, err_r):
        os.set_blocking(fd, False)
    pipe = WorkerPipe(asyncio.get_running_loop(), out_r, in_w, err_r, bytearray(), 1 << 20, clock=clock)
    try:
        yield Pipes(pipe, out_w)
    finally:
        pipe.detach()
        for fd in (out_r, out_w, in_r, in_w, err_r, err_w):
            with contextlib.suppress(OSError):
                os.close(fd)


async def send_after_turns(pipes: Pipes, turns: int) -> None:
    for _ in range(turns):
        await asyncio.sleep(0)
    pipes.send()


async def send_once_waiting(pipes: Pipes) -> None:
    """Write the request only once the host has stopped polling and waits for the loop to wake it."""
    while pipes.pipe.waiter is None:
        await asyncio.sleep(0)
    pipes.send()


async def test_a_poll_gives_the_loop_a_turn_at_a_time() -> None:
    """While the host polls, other work on its loop runs: a request another task writes meanwhile is read."""
    clock = CountingClock(0.0)  # a poll that would never end on its own
    with worker_pipes(clock) as pipes:
        writer = asyncio.create_task(send_after_turns(pipes, 5))
        line = await asyncio.wait_for(pipes.pipe.readline(soon=True), 10)
        await writer
        assert pipes.pipe.skip_poll == 0  # found while polling
    assert line == REQUEST
    assert clock.reads >= 3  # the host kept looking, a turn at a time, until the request came


async def test_a_poll_is_bounded_and_the_host_then_waits_for_the_loop() -> None:
    """A request that does not come within POLL_SECONDS is read after the host slept in the loop, as before."""
    clock = CountingClock(WorkerPipe.POLL_SECONDS / 2.5)
    with worker_pipes(clock) as pipes:
        writer = asyncio.create_task(send_once_waiting(pipes))
        line = await asyncio.wait_for(pipes.pipe.readline(soon=True), 10)
        await writer
        assert pipes.pipe.skip_poll == WorkerPipe.POLL_BACKOFF
    assert line == REQUEST
    assert clock.reads == 4  # the first read sets the deadline; the fourth is past it


async def test_an_empty_poll_turns_polling_off_for_the_next_replies() -> None:
    """After a poll that came up empty, the next POLL_BACKOFF replies get one look, not a poll; then it polls again."""
    clock = CountingClock(WorkerPipe.POLL_SECONDS / 2.5)
    with worker_pipes(clock) as pipes:
        pipes.pipe.POLL_BACKOFF = 3
        reads = []
        for _ in range(6):
            writer = asyncio.create_task(send_once_waiting(pipes))
            assert await asyncio.wait_for(pipes.pipe.readline(soon=True), 10) == REQUEST
            await writer
            reads.append(clock.reads)
    assert reads == [4, 4, 4, 4, 8, 8]


async def test_a_request_found_while_polling_keeps_the_poll_on() -> None:
    """A poll that finds the request leaves polling on for the next reply."""
    clock = CountingClock(1e-9)
    with worker_pipes(clock) as pipes:
        for _ in range(3):
            writer = asyncio.create_task(send_after_turns(pipes, 3))
            assert await asyncio.wait_for(pipes.pipe.readline(soon=True), 10) == REQUEST
            await writer
            assert pipes.pipe.skip_poll == 0
    assert clock.reads >= 3  # it looked on each reply, and found the request each time


async def test_the_end_of_the_pipe_ends_a_poll() -> None:
    """A worker that dies while the host polls (e.g. killed by an interrupt) ends the read at once, with no line."""
    clock = CountingClock(0.0)
    with worker_pipes(clock) as pipes:

        async def die() -> None:
            for _ in range(3):
                await asyncio.sleep(0)
            os.close(pipes.worker_out)

        dying = asyncio.create_task(die())
        assert await asyncio.wait_for(pipes.pipe.readline(soon=True), 10) == b""
        await dying
        assert pipes.pipe.eof


async def test_a_partial_request_is_completed_while_polling() -> None:
    """Bytes that arrive in pieces during a poll make one line, read whole."""
    clock = CountingClock(0.0)
    with worker_pipes(clock) as pipes:

        async def in_pieces() -> None:
            for piece in (REQUEST[:10], REQUEST[10:30], REQUEST[30:]):
                await asyncio.sleep(0)
                pipes.send(piece)

        writer = asyncio.create_task(in_pieces())
        assert await asyncio.wait_for(pipes.pipe.readline(soon=True), 10) == REQUEST
        await writer


async def test_a_loop_of_calls_gets_every_reply_once_and_in_order() -> None:
    """Through a real worker, 300 calls with prints between: each answered once, replies and output in order."""
    host = RecordingHost(lambda message: {"value": message["args"]["i"] * 2})
    executor = SubprocessExecutor(Limits(max_calls=400))
    try:
        out = await executor.execute(
            "got = []\nfor i in range(300):\n    got.append(shop.get(i=i))\n    if i % 100 == 0:\n"
            "        print('at', i)\ngot", {"shop": ["get"]}, host=host)
    finally:
        await executor.aclose()
    assert out.error is None, out.error
    assert out.result == [2 * i for i in range(300)]
    assert [m["args"]["i"] for m in host.requests] == list(range(300))
    assert out.logs == ["at 0", "at 100", "at 200"]
