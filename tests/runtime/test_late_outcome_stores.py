"""An interrupted sync call's late outcome is stored on every store (issue 12 review).

The pass handler keeps a slow thread-answered call's outcome for a commit that comes when the
thread reports it (PassHandler._late -> flush). By then the runtime has given the pass's journal
connection back; before PassHandler.release, the late commit went through it anyway: on SQLite
(whose connection is kept, JournalStore.session) through the connection the next pass was using,
on PostgreSQL into a closed one (ResourceClosedError logged, the entry left ``executing`` for ever).
Now it goes through a session of its own, and both stores record it once.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from codemode_kernel import CodemodeRuntime, ToolSetConnector
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.runtime.settled_entries import settled

pytestmark = pytest.mark.anyio


async def test_the_late_outcome_of_an_interrupted_call_is_stored_whatever_the_store(db_url: str) -> None:
    release, entered = threading.Event(), threading.Event()
    runs = {"slow": 0, "ok": 0}

    def slow(n: int) -> int:
        """Return once the spec lets go."""
        runs["slow"] += 1
        entered.set()
        release.wait(30)
        return n

    def ok(n: int) -> int:
        """Fine."""
        runs["ok"] += 1
        return n

    executor = SubprocessExecutor()
    rt = CodemodeRuntime([ToolSetConnector([slow, ok], name="p")], store=db_url, executor=executor)
    try:
        running = asyncio.ensure_future(rt.execute("p.slow(n=7)"))
        while not entered.is_set():
            await asyncio.sleep(0.005)
        assert executor.interrupt()
        out = await asyncio.wait_for(running, 30)
        assert out["status"] == "error" and out["error_type"] == "Interrupted", out
        following = asyncio.ensure_future(rt.execute("[p.ok(n=i) for i in range(300)]"))
        while not runs["ok"] and not following.done():
            await asyncio.sleep(0.001)
        release.set()  # the thread answers while the next execution runs (it has begun its calls)
        assert (await asyncio.wait_for(following, 30))["status"] == "completed"
        # The late outcome is committed when the thread reports it, which may be after the next
        # execution is over: looked for until it is stored (a fixed sleep is outlasted under load).
        assert await settled(db_url, out["execution_id"]) == [(0, "applied", "7")]
        assert runs["slow"] == 1
    finally:
        release.set()
        await rt.aclose()
