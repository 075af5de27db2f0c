"""Threads that run synchronous connector code off the event loop (issue 12).

A synchronous connector method must not freeze the loop (the kernel's widgets and interrupts,
other executions) while it works, so it runs in a thread. ``asyncio.to_thread`` did that
through the loop's default executor: a ``concurrent.futures`` future chained to an asyncio one,
a work item, a context copy and a partial per call, about 140 us of host CPU per journaled call
on a 2-core machine (benchmarks/bench_runtime.py). :class:`ConnectorThreads` is the same
hand-off with less in between: the caller's asyncio future is resolved straight from the thread
that ran the call.

Threads are reused and bounded: one hung connector holds one thread and never blocks a call
that finds another idle or a free place for a new one; when all ``limit`` threads are busy,
further calls wait in order. The threads are daemons, so a connector that never returns does
not keep the process from exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import queue
import threading
from collections.abc import Callable
from typing import Any

DEFAULT_LIMIT = 32

_Job = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", contextvars.Context, Callable[..., Any],
             tuple[Any, ...]]


class ConnectorThreads:
    """A bounded set of reused threads for synchronous connector calls."""

    def __init__(self, limit: int = DEFAULT_LIMIT, name: str = "codemode-connector") -> None:
        if limit < 1:
            raise ValueError(f"ConnectorThreads needs a limit of at least 1 thread (got {limit})")
        self.limit = limit
        self._name = name
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)  # released by a thread each time it is waiting for work
        self._lock = threading.Lock()
        self._threads = 0

    @property
    def threads(self) -> int:
        """How many threads have been started (they are kept for later calls)."""
        return self._threads

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in one of the threads, in a copy of the caller's context; its result or exception."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._jobs.put((loop, future, contextvars.copy_context(), fn, args))
        if not self._idle.acquire(blocking=False):
            with self._lock:
                start = self._threads < self.limit
                if start:
                    self._threads += 1
            if start:
                threading.Thread(target=self._work, name=f"{self._name}-{self._threads}", daemon=True).start()
        return await future

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            loop, future, context, fn, args = jobs.get()
            result: Any = None
            error: BaseException | None = None
            try:
                result = context.run(fn, *args)
            except BaseException as exc:  # handed to the caller, whatever it is
                error = exc
            # Idle before the caller hears back: its next call must find this thread, not start another.
            self._idle.release()
            _settle(loop, future, result, error)
            del loop, future, context, fn, args, result, error


def _settle(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any,
            exc: BaseException | None) -> None:
    def resolve() -> None:
        if future.done():  # the caller was cancelled (a timeout, an interrupt): nobody waits
            return
        if isinstance(exc, StopIteration):  # a future cannot hold one (it would end the awaiting coroutine)
            future.set_exception(RuntimeError(f"the connector raised StopIteration: {exc}"))
        elif exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(result)

    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for this call any more
        loop.call_soon_threadsafe(resolve)


_shared = ConnectorThreads()


def shared() -> ConnectorThreads:
    """The process's threads for synchronous connector calls."""
    return _shared


async def invoke(fn: Callable[..., Any], *args: Any) -> Any:
    """Call connector code: a coroutine function on the loop, anything else in these threads.

    A synchronous function that returns an awaitable (a sync wrapper around async code) has
    that awaited on the loop.
    """
    if inspect.iscoroutinefunction(fn):
        return await fn(*args)
    result = await _shared.run(fn, *args)
    if inspect.isawaitable(result):
        return await result
    return result
