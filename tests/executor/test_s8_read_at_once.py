"""After a reply, a request the worker has sent already is read at once, with the loop's turn bounded (issue 12).

When the reply's write runs the worker's turn on the host's CPU, its next request is in the pipe
before the host reads on; the host takes it without a turn of the loop, at most
``WorkerPipe.TURN_EVERY`` times in a row, so the loop's timers (a pass's time limit) and other
passes still get their turns. Real pipes stand for a worker's (``test_pipe_poll.py``'s).
"""

from __future__ import annotations

import asyncio

import pytest

from codemode_kernel.executor.channel import WorkerPipe
from tests.executor.test_pipe_poll import REQUEST, CountingClock, worker_pipes

pytestmark = pytest.mark.anyio


class Turns:
    """Counts the loop's turns: a callback that schedules itself again each time it runs."""

    def __init__(self) -> None:
        self.count = 0
        self.stopped = False
        asyncio.get_running_loop().call_soon(self._tick)

    def _tick(self) -> None:
        if not self.stopped:
            self.count += 1
            asyncio.get_running_loop().call_soon(self._tick)


async def test_a_request_already_sent_is_read_without_a_turn_of_the_loop() -> None:
    """A request in the pipe when the host reads on after a reply is read before the loop's ready callbacks run."""
    with worker_pipes(CountingClock(1e-9)) as pipes:
        order: list[str] = []
        pipes.send()  # the worker answered while the reply was written
        asyncio.get_running_loop().call_soon(order.append, "ready")
        line = await pipes.pipe.readline(soon=True)
        order.append("read")
        await asyncio.sleep(0)
    assert line == REQUEST
    assert order == ["read", "ready"]


async def test_the_loop_gets_a_turn_at_least_every_turn_every_requests() -> None:
    """Requests that are always there already still let the loop turn once per TURN_EVERY of them."""
    reads = 5 * WorkerPipe.TURN_EVERY
    with worker_pipes(CountingClock(1e-9)) as pipes:
        turns = Turns()
        seen = []
        for _ in range(reads):
            pipes.send()
            assert await pipes.pipe.readline(soon=True) == REQUEST
            seen.append(turns.count)
        turns.stopped = True
    # A turn's callbacks may run just after the read it came before returned: one read of slack.
    window = WorkerPipe.TURN_EVERY + 1
    assert min(seen[i + window] - seen[i] for i in range(reads - window)) >= 1
    assert seen[-1] <= reads // WorkerPipe.TURN_EVERY + 1  # and mostly none: one turn per TURN_EVERY

