"""execute() cancelled while a sync connector runs: its late outcome is stored (issue 12 review).

The same path as test_late_outcome_stores.py, reached by a cancellation instead of an interrupt: the
connector cancels its caller, then returns 5 ms later (after the pass's 1 ms wait for a reply owed,
and after the runtime's flush on cancel). Its outcome is committed through a session of its own
(PassHandler.release); before, PostgreSQL lost it (the pass's connection was closed). Both executors.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.runtime.settled_entries import settled

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("kind", ["inprocess", "subprocess"])
async def test_a_cancelled_execute_still_stores_the_outcome_of_the_call_in_flight(db_url: str, kind: str) -> None:
    loop = asyncio.get_running_loop()
    current: dict[str, asyncio.Future[object]] = {}
    runs = {"n": 0}

    def write(n: int) -> int:
        """Cancel the caller, then answer 5 ms later."""
        runs["n"] += 1
        loop.call_soon_threadsafe(current["task"].cancel)
        threading.Event().wait(0.005)
        return n * 10

    executor = InProcessExecutor() if kind == "inprocess" else SubprocessExecutor()
    rt = CodemodeRuntime([ToolSetConnector([write], name="p")], store=db_url, executor=executor)
    try:
        task = current["task"] = asyncio.ensure_future(rt.execute("p.write(n=4)"))
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), 30)
        # The outcome comes when the connector's thread reports it, after execute() has returned:
        # looked for until it is stored (not after a fixed sleep, which a loaded machine outlasts).
        rows = await settled(db_url)
    finally:
        await rt.aclose()
    assert rows == [(0, "applied", "40")]
    assert runs["n"] == 1
