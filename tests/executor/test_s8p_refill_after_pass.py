"""When a zygote pool forks a spaced pass's replacement: after the pass, not while it runs (issue 12).

A child forked while a pass runs takes the CPU from it (the fork, the child's confinement and its
idle warm-up), so a pass that comes with room for the pool to refill has its replacement forked
just after it ends; passes that overtake the refill (a burst) still refill at once
(``tests/executor/test_zygote_refill.py``). The processes are real: the zygote, its children and
the host.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codemode_kernel.executor.isolated import SubprocessExecutor
from codemode_kernel.executor.launcher import zygote_supported
from tests.executor.isolated_support import RecordingHost
from tests.executor.test_zygote_refill import forked_children, settled_count

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")]

HOLD = 0.5  # seconds the pass waits in its call: far longer than a fork and a child's confinement


async def test_a_spaced_pass_s_replacement_is_forked_after_the_pass_ends() -> None:
    """While a spaced pass runs, its worker is the zygote's only child; once it ends, one is ready again."""
    ex = SubprocessExecutor()
    try:
        await ex.warm_up()
        assert await settled_count(ex, 1) == 1
        seen: list[int] = []

        async def held(message: dict[str, Any]) -> dict[str, Any]:
            await asyncio.sleep(HOLD)  # the pass runs on, in its call
            seen.append(len(forked_children(ex)))
            return {"value": "ok"}

        out = await ex.execute("notes.add(text='x')", {"notes": ["add"]}, host=RecordingHost(held))
        assert out.error is None and out.result == "ok", out.error
        assert seen == [1]  # the pass's own worker, and no replacement competing with it
        assert await settled_count(ex, 1) == 1
        again = await ex.execute("2 + 2", {}, host=RecordingHost())
        assert again.error is None and again.result == 4
    finally:
        await ex.aclose()
