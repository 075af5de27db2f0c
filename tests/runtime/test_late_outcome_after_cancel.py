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
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.executor.isolated import SubprocessExecutor

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
        rows = await _settled(db_url)
    finally:
        await rt.aclose()
    assert rows == [(0, "applied", "40")]
    assert runs["n"] == 1


async def _settled(db_url: str, deadline: float = 30.0) -> list[tuple[object, ...]]:
    """The entries, from a connection of the spec's own, once there is one and none is ``executing``
    (or as they are after ``deadline`` seconds: a liveness bound, not a speed figure)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    look = create_engine(db_url, poolclass=NullPool)
    try:
        while True:
            with look.connect() as conn:
                rows = [tuple(r) for r in conn.execute(text("SELECT seq, state, result FROM codemode_entries"))]
            if (rows and all(r[1] != "executing" for r in rows)) or loop.time() > end:
                return rows
            await asyncio.sleep(0.01)
    finally:
        look.dispose()
