"""A zygote child's idle warm-up goes through the steps of a pass, not only its code (issue 12, s12s).

A forked child warmed up by running constant code of ours, which left to its pass everything around
the code: reading and parsing the ``run`` line, the pipe channel, the output stream and its
``SIGALRM`` ticker. Each of those first touches copied pages shared with the zygote, ~35
copy-on-write faults in a spaced ``1 + 1`` pass. Now the warm-up rehearses them (``worker.rehearse``)
without a word to the host, and leaves no handler or timer behind.
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.executor.launcher import zygote_supported
from codemode_kernel.executor.sandbox import run_pass
from codemode_kernel.executor.worker import ServePlan, rehearse
from codemode_kernel.executor.zygote import WARM_UPS

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")]

LIMITS = {"max_output_chars": 1000, "max_kept_output_chars": 500, "max_calls": 10, "max_result_chars": 10_000,
          "max_memory_bytes": None}


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    ex = SubprocessExecutor()
    yield ex
    await ex.aclose()


def minor_faults(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[7])


async def test_a_warmed_childs_pass_copies_few_pages_before_its_first_call(executor: SubprocessExecutor) -> None:
    """It is an error if a warmed child's pass takes more than 20 page faults from the take to its first call
    (~50 before the rehearsal: the run line, the channel, the stream and the ticker touched for the first time)."""
    await executor.warm_up()
    await executor.execute("1", {}, host=lambda m: {"value": None})  # type: ignore[arg-type,return-value]
    counts = []
    for _ in range(3):
        await asyncio.sleep(0.3)  # the replacement forked, ready and warmed up
        (worker,) = list(executor._pool._idle)
        before = minor_faults(worker.pid)
        seen: list[int] = []

        async def host(message: dict[str, Any], pid: int = worker.pid, seen: list[int] = seen) -> dict[str, Any]:
            seen.append(minor_faults(pid))
            return {"value": 1}

        out = await executor.execute("x = 1 + 1\nnotes.add(text='x')\nx", {"notes": ["add"]}, host=host)
        assert out.error is None and out.result == 2, out
        counts.append(seen[0] - before)
    assert min(counts) <= 20, counts


def test_the_rehearsal_says_nothing_and_leaves_no_ticker() -> None:
    """It is an error if a rehearsal writes to the host's pipe or leaves a SIGALRM handler or timer set."""
    read_end, write_end = os.pipe()
    try:
        reader = io.BufferedReader(io.FileIO(read_end, "rb", closefd=False))
        writer = open(write_end, "wb", closefd=False)  # noqa: SIM115
        handler = signal.getsignal(signal.SIGALRM)
        for source in WARM_UPS:
            rehearse(source, reader, writer, run_pass, ServePlan({"limits": LIMITS}))
        writer.flush()
        os.set_blocking(read_end, False)
        with pytest.raises(BlockingIOError):
            os.read(read_end, 1)
        assert signal.getsignal(signal.SIGALRM) is handler
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        os.close(read_end)
        os.close(write_end)
