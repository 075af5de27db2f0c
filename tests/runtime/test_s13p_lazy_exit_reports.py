"""The zygote's exit reports are read when something waits for them (issue 12, s13p).

Each pass's worker exits as its report comes in, and the zygote reports that exit at once: read
eagerly, the report woke the host's reader thread, which took the GIL from the event loop while
the host recorded the pass. The reader now reads while a reply or an exit is awaited (a fork, a
``wait()``), or the zygote retires or closes; reports wait in the socket meanwhile. The processes
are real: the zygote, its children and the host.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest

from codemode_kernel.executor.isolated import Limits
from codemode_kernel.executor.launcher import ZygoteLauncher, zygote_supported
from codemode_kernel.executor.pool import EmptyRoot
from tests.executor.isolated_support import wait_gone

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")]


@pytest.fixture
def launcher() -> Iterator[ZygoteLauncher]:
    made = ZygoteLauncher()
    yield made
    made.close()


def config() -> dict[str, object]:
    return {"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
            "limits": Limits().worker_config()}


async def test_an_exit_nobody_waits_for_is_not_read_until_the_next_fork(launcher: ZygoteLauncher) -> None:
    """It is an error if a child's exit report is read while nothing waits for it; the next fork reads it."""
    first = launcher.start(config(), for_pass=True)
    first.close()  # killed: the zygote reaps it and reports the exit
    assert wait_gone(first.pid)
    await asyncio.sleep(0.3)  # the report is in the socket by now
    assert first.proc.poll() is None  # not read: nothing waited for it
    second = launcher.start(config(), for_pass=True)  # the fork's reply comes after the report
    assert first.proc.poll() == -signal.SIGKILL
    second.close()
    assert second.proc.wait(timeout=10) == -signal.SIGKILL  # a wait reads its report


async def test_a_zygote_killed_while_nothing_was_read_fails_the_next_fork_with_its_death(
        launcher: ZygoteLauncher) -> None:
    """It is an error if a zygote that died while its reader slept is not reported to the next fork."""
    first = launcher.start(config(), for_pass=True)
    zygote = launcher.zygote
    assert zygote is not None and zygote.pid is not None
    with open(f"/proc/{first.pid}/status") as f:  # the zygote that forked it (Z'), as the host sees it
        forker = int(next(line for line in f if line.startswith("PPid:")).split()[1])
    os.kill(forker, signal.SIGKILL)
    assert wait_gone(forker) and wait_gone(zygote.pid)  # Z ends with Z'
    with pytest.raises(Exception, match="zygote") as failed:
        launcher.start(config(), for_pass=True)
    assert "A new zygote is started for the next pass" in str(failed.value)
    assert zygote.dead
    assert first.proc.wait(timeout=10) == -signal.SIGKILL  # it died with the zygote's PID namespace
    first.close()
    again = launcher.start(config(), for_pass=True)
    assert launcher.zygote is not zygote
    again.close()
