"""Refilling the pool of zygote children: the warm-up stays out of every pass, bursts keep one more ready.

Specifications of ``SubprocessExecutor`` with its default (zygote) launcher (issue 12): a child
says ready as soon as it is confined and warms up while it waits, so what the warm-up runs must
never show in a pass; when passes come faster than one child refills, one more is kept forked
ahead, and only then. The processes are real: the zygote, its children and the host.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator

import pytest

from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.executor.launcher import ZygoteLauncher, zygote_supported
from tests.executor.isolated_support import RecordingHost

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")]

PASS = """
print("mine")
reply = notes.add(text="x")
mine = [1, 2]
"done"
"""


@pytest.fixture
async def executor() -> AsyncIterator[SubprocessExecutor]:
    ex = SubprocessExecutor()
    yield ex
    await ex.aclose()


def children_of(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def forked_children(ex: SubprocessExecutor) -> list[int]:
    """The live children of the executor's zygote (Z', the only child of the process the host started)."""
    launcher = ex._pool.launcher
    assert isinstance(launcher, ZygoteLauncher) and launcher.zygote is not None and launcher.zygote.pid is not None
    (forker,) = children_of(launcher.zygote.pid)
    return children_of(forker)


async def settled_count(ex: SubprocessExecutor, expected: int) -> int:
    """The zygote's number of children once it has stayed ``expected`` for 0.3 s (or after 10 s)."""
    deadline = time.monotonic() + 10
    stable_since = None
    while time.monotonic() < deadline:
        count = len(forked_children(ex))
        if count != expected:
            stable_since = None
        elif stable_since is None:
            stable_since = time.monotonic()
        elif time.monotonic() - stable_since >= 0.3:
            return count
        await asyncio.sleep(0.02)
    return len(forked_children(ex))


@pytest.mark.parametrize("idle", [0.0, 0.5], ids=["right-after-ready", "after-the-idle-warm-up"])
async def test_the_warm_up_never_shows_in_a_pass(executor: SubprocessExecutor, idle: float) -> None:
    """Output, calls, variables and result are the pass's own, whether the child warmed up or not."""
    await executor.warm_up()
    await asyncio.sleep(idle)
    host = RecordingHost()
    out = await executor.execute(PASS, {"notes": ["add"]}, host=host, capture_variables=True)
    assert out.error is None, out.error
    assert out.result == "done"
    assert out.logs == ["mine"]
    assert host.calls == [("notes", "add")]
    assert [m["args"] for m in host.requests if m["op"] == "call"] == [{"text": "x"}]
    assert set(out.variables) == {"reply", "mine"}


async def test_passes_that_find_no_worker_ready_keep_one_more_forked_ahead(executor: SubprocessExecutor) -> None:
    """Spaced passes keep one child ready; passes that overtake the refill keep two, never more."""
    await executor.warm_up()
    host = RecordingHost()
    assert (await executor.execute("1", {}, host=host)).result == 1
    assert await settled_count(executor, 1) == 1
    outs = await asyncio.gather(*(executor.execute(f"{n} + 1", {}, host=host) for n in range(4)))
    assert [out.result for out in outs] == [1, 2, 3, 4]
    assert await settled_count(executor, 2) == 2
    assert host.requests == []


async def test_no_worker_is_kept_ahead_with_warm_0() -> None:
    """warm=0 forks each worker when its pass asks, bursts included: nothing waits in the pool."""
    ex = SubprocessExecutor(warm=0)
    try:
        outs = await asyncio.gather(*(ex.execute(f"{n} * 2", {}, host=RecordingHost()) for n in range(3)))
        assert [out.result for out in outs] == [0, 2, 4]
        assert await settled_count(ex, 0) == 0
    finally:
        await ex.aclose()
