"""Synchronous connector code runs in reused, bounded threads (issue 12): off the event loop, in
the caller's context, and one hung connector never blocks another execution's call.

A quick call is waited for on the calling thread (at most ``wait_on_loop``), a slow one is
awaited on the loop: the specs that matter run on both paths (``wait_on_loop=0`` never waits).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.connector_threads import ConnectorThreads
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

REQUEST = contextvars.ContextVar("REQUEST", default="none")


async def _until(condition: threading.Event) -> None:
    while not condition.is_set():  # the loop keeps running meanwhile: that is what is checked
        await asyncio.sleep(0.005)


async def test_a_hung_sync_connector_does_not_block_another_execution(make_runtime: RuntimeFactory) -> None:
    entered, release = threading.Event(), threading.Event()
    calls = {"hang": 0, "add": 0}

    def hang() -> str:
        """Wait until the test lets go."""
        calls["hang"] += 1
        entered.set()
        release.wait(30)
        return "released"

    def add(a: int, b: int) -> int:
        """Add."""
        calls["add"] += 1
        return a + b

    rt = make_runtime([ToolSetConnector([hang, add], name="tools")])
    stuck = asyncio.ensure_future(rt.execute("tools.hang()"))
    try:
        await _until(entered)
        out = await rt.execute("[tools.add(a=i, b=1) for i in range(20)]")
        assert out["status"] == "completed", out
        assert out["result"] == [i + 1 for i in range(20)]
        assert not stuck.done()
    finally:
        release.set()
    assert (await stuck)["result"] == "released"
    assert calls == {"hang": 1, "add": 20}


async def test_calls_one_after_another_reuse_one_thread() -> None:
    threads = ConnectorThreads(limit=8)
    names = {await threads.run(lambda: threading.current_thread().name) for _ in range(50)}
    assert threads.threads == 1 and len(names) == 1
    assert threading.current_thread().name not in names  # never the loop's own thread


@pytest.mark.parametrize("wait_on_loop", [0.001, 0.0], ids=["waited", "awaited"])
async def test_the_call_sees_the_callers_context_and_its_exception_comes_back(wait_on_loop: float) -> None:
    threads = ConnectorThreads(wait_on_loop=wait_on_loop)
    REQUEST.set("req-7")
    assert await threads.run(REQUEST.get) == "req-7"

    def fail(text: str) -> None:
        raise KeyError(text)

    with pytest.raises(KeyError, match="boom"):
        await threads.run(fail, "boom")

    def stop() -> None:
        raise StopIteration("done")

    with pytest.raises(RuntimeError, match="StopIteration"):  # a future cannot carry one
        await threads.run(stop)
    assert await threads.run(lambda: 5) == 5  # the thread survived all three


async def test_the_bound_is_kept_and_a_waiting_call_runs_when_a_thread_frees() -> None:
    threads = ConnectorThreads(limit=2)
    entered = [threading.Event(), threading.Event()]
    release = [threading.Event(), threading.Event()]

    def hold(i: int) -> int:
        entered[i].set()
        release[i].wait(30)
        return i

    held = [asyncio.ensure_future(threads.run(hold, i)) for i in range(2)]
    try:
        for event in entered:
            await _until(event)
        third = asyncio.ensure_future(threads.run(lambda: "third"))
        await asyncio.sleep(0)
        assert threads.threads == 2  # no third thread past the bound
        release[0].set()
        assert await third == "third"
    finally:
        for event in release:
            event.set()
    assert [await h for h in held] == [0, 1]
    assert threads.threads == 2


async def test_a_cancelled_caller_leaves_the_threads_usable() -> None:
    threads = ConnectorThreads(limit=1)
    entered, release, done = threading.Event(), threading.Event(), threading.Event()
    finished = []

    def slow() -> str:
        entered.set()
        release.wait(30)
        finished.append(1)
        done.set()
        return "late"

    waiting = asyncio.ensure_future(threads.run(slow))
    await _until(entered)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    try:
        # The thread still in slow() no longer counts against the limit of 1: the next call
        # gets a thread of its own while slow() is held.
        assert threads.stray == 1
        assert await threads.run(lambda: "next") == "next"
        assert finished == []
    finally:
        release.set()
    await _until(done)  # the abandoned call still runs to its end ...
    assert finished == [1]
    for _ in range(2000):  # ... and then its thread exits (within 10 s)
        if not threads.stray:
            break
        await asyncio.sleep(0.005)
    assert threads.stray == 0
    assert threads.threads == 1
    assert await threads.run(lambda: "again") == "again"


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1 thread"):
        ConnectorThreads(limit=0)
    with pytest.raises(ValueError, match="wait_on_loop >= 0"):
        ConnectorThreads(wait_on_loop=-1)


async def test_a_sync_connector_that_needs_the_loop_finishes() -> None:
    """A sync wrapper around async code (it waits for the loop) is not stuck behind the calling
    thread's own wait: the call is handed back to the loop, and later calls go there at once."""
    loop = asyncio.get_running_loop()
    threads = ConnectorThreads(limit=2)
    ran = []

    async def on_loop(i: int) -> int:
        ran.append(i)
        return i * 10

    def wrapper(i: int) -> int:
        return asyncio.run_coroutine_threadsafe(on_loop(i), loop).result(timeout=10)

    assert [await threads.run(wrapper, i) for i in range(20)] == [i * 10 for i in range(20)]
    assert ran == list(range(20))


def _calls_on_own_loop(threads: ConnectorThreads, tag: str, n: int, out: dict[str, list[str]],
                       start: threading.Barrier) -> None:
    async def calls() -> list[str]:
        start.wait(10)
        return [await threads.run(lambda i=i: f"{tag}{i}") for i in range(n)]

    out[tag] = asyncio.run(calls())


def test_callers_on_two_loops_each_get_their_own_answers() -> None:
    """Two threads with an event loop each call at once: every answer reaches the caller that asked."""
    threads = ConnectorThreads(limit=4)
    out: dict[str, list[str]] = {}
    start = threading.Barrier(2)
    callers = [threading.Thread(target=_calls_on_own_loop, args=(threads, tag, 300, out, start)) for tag in "ab"]
    for t in callers:
        t.start()
    for t in callers:
        t.join(60)
    assert out == {tag: [f"{tag}{i}" for i in range(300)] for tag in "ab"}
