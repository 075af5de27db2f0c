"""When the pool forks a replacement (issue 12): a delay after a spaced pass takes its worker, at once back to back.

A fork and its child's confinement cost ~1.5 ms of CPU; started the moment a pass takes its
worker they competed with that pass, and started when it ended, with the host recording its
outcome. So a zygote pool forks the replacement ``refill_delay`` after the take, and the end of
the pass does not pull it forward; passes that overtake the refill (a burst) refill at once.
The delay is set to 30 s here so that "not yet" and "at once" cannot be confused by timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.executor.launcher import ZygoteLauncher, zygote_supported
from tests.executor.isolated_support import RecordingHost
from tests.executor.test_zygote_refill import settled_count

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")]

DELAY = 30.0


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    ex = SubprocessExecutor()
    launcher = ex._pool.launcher
    assert isinstance(launcher, ZygoteLauncher)
    launcher.refill_delay = DELAY
    yield ex
    await ex.aclose()


def forks(ex: SubprocessExecutor) -> int:
    launcher = ex._pool.launcher
    assert isinstance(launcher, ZygoteLauncher) and launcher.zygote is not None
    return launcher.zygote.forked


async def test_a_spaced_pass_is_not_refilled_during_it_nor_when_it_ends(executor: SubprocessExecutor) -> None:
    await executor.warm_up()
    assert forks(executor) == 1
    out = await executor.execute("1 + 1", {}, host=RecordingHost())
    assert out.result == 2
    await asyncio.sleep(0.5)
    assert forks(executor) == 1  # the replacement waits for the delay, not for the pass's end
    assert await settled_count(executor, 0) == 0


async def test_passes_that_overtake_the_refill_are_refilled_at_once(executor: SubprocessExecutor) -> None:
    await executor.warm_up()
    outs = await asyncio.gather(*(executor.execute(f"{n} + 1", {}, host=RecordingHost()) for n in range(3)))
    assert [out.result for out in outs] == [1, 2, 3]
    # Within settled_count's 10 s, far less than the delay: the burst's children came at once.
    assert await settled_count(executor, 2) == 2
