"""InProcessExecutor: the sandbox language in a thread of the host process.

For tests and teaching only; never the default (DESIGN §11). It speaks exactly the same
JSON protocol as the isolated worker, so the runtime behaves identically on both. It
cannot stop a runaway pass: on timeout or interrupt the pass is abandoned (its thread
runs on, and every later request it makes is refused).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codemode_kernel.errors import Interrupted, Timeout, WorkerCrashed
from codemode_kernel.executor.base import ExecuteResult, HostHandler, OutputCallback, SandboxError
from codemode_kernel.executor.language import own_modules, pass_modules
from codemode_kernel.executor.sandbox import run_pass
from codemode_kernel.executor.stream import MAX_KEPT_OUTPUT_CHARS, OutputStream, output_stream

log = logging.getLogger(__name__)
#: Seconds ``aclose`` waits for the host's answers it cancelled to stop.
CLOSE_WAIT = 1.0
#: Seconds ``aclose`` lets the host finish answering an ended pass before it cancels that answer.
CLOSE_GRACE = 0.25


@dataclass(frozen=True)
class InProcessLimits:
    """Limits the in-process executor can enforce (it cannot kill a thread)."""

    timeout: float = 60.0
    #: As in ``Limits``: each print counts at least ``OUTPUT_MESSAGE_COST`` characters.
    max_output_chars: int = 1_000_000
    #: As in ``Limits``: printed characters kept (shown, returned, journaled); the rest is dropped.
    max_kept_output_chars: int = MAX_KEPT_OUTPUT_CHARS
    max_result_chars: int = 10_000_000
    #: As in ``Limits``: connector calls, steps, searches, describes and snippet runs.
    max_calls: int = 10_000


class _ThreadChannel:
    def __init__(self, loop: asyncio.AbstractEventLoop, host: HostHandler, on_output: OutputCallback | None) -> None:
        self.loop = loop
        self.host = host
        self.on_output = on_output
        self.abandoned: str | None = None
        # A host handler that raised: the pass is an error whatever the code does next (issue 10,
        # item 2). Before, the exception reached the code, which could swallow it and complete.
        self.failure: SandboxError | None = None
        # The request the host is answering on the loop (the executor's close cancels it).
        self.asking: asyncio.Task[Any] | None = None

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.abandoned is not None:
            return {"abort": self.abandoned}
        if self.failure is not None:
            return {"abort": self.failure.message}

        async def ask() -> dict[str, Any]:
            self.asking = asyncio.current_task()
            return await self.host(message)

        future: concurrent.futures.Future[dict[str, Any]] = asyncio.run_coroutine_threadsafe(ask(), self.loop)
        try:
            reply = future.result()
        except concurrent.futures.CancelledError:  # the executor closed while the host answered
            return {"abort": self.abandoned or "the executor was closed"}
        except Exception as exc:
            log.warning("in-process executor: the host handler failed", exc_info=True)
            text = str(exc)
            self.failure = SandboxError(type(exc).__name__, (
                f"the host failed to answer the sandbox's {str(message.get('op'))[:20]!r} request: "
                f"{text if len(text) <= 500 else text[:500] + '…'}"))
            return {"abort": self.failure.message}
        return reply if isinstance(reply, dict) else {"abort": "the host gave an invalid answer"}

    def notify(self, message: dict[str, Any]) -> None:
        if self.on_output is not None and self.abandoned is None and message.get("op") == "output":
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody reads the output now
                self.loop.call_soon_threadsafe(self.on_output, str(message.get("text", "")))


class _Ticker:
    """Sends what the pass printed at least every ``flush_seconds`` while it computes without printing.

    The worker does this with a signal timer; here the pass is a thread, so the host's loop
    ticks the stream (a tick never waits for the pass's thread).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, output: OutputStream) -> None:
        self.loop = loop
        self.output = output
        self.handle: asyncio.TimerHandle | None = loop.call_later(output.flush_seconds, self._tick)

    def _tick(self) -> None:
        self.output.tick()
        if self.handle is not None:
            self.handle = self.loop.call_later(self.output.flush_seconds, self._tick)

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


class InProcessExecutor:
    """Runs each pass in a new thread of this process (not isolated)."""

    def __init__(self, limits: InProcessLimits | None = None) -> None:
        self.limits = limits or InProcessLimits()
        self._running: set[tuple[_ThreadChannel, asyncio.Future[dict[str, Any]]]] = set()
        self._channels: weakref.WeakSet[_ThreadChannel] = weakref.WeakSet()  # passes whose host may still answer
        # The host's own modules are the sandbox's (module objects are shared in one process): a cell's
        # random.seed(...) reseeded the host's generator, uuid.getnode() read the host's network card.
        # This executor's passes have their own (language.own_modules).
        self._modules = own_modules()

    async def execute(
        self,
        code: str,
        namespaces: Mapping[str, Sequence[str]],
        *,
        host: HostHandler,
        inputs: Mapping[str, Any] | None = None,
        on_output: OutputCallback | None = None,
        capture_variables: bool = False,
        replay: Sequence[Mapping[str, Any]] = (),
    ) -> ExecuteResult:
        loop = asyncio.get_running_loop()
        channel = _ThreadChannel(loop, host, on_output)
        done: asyncio.Future[dict[str, Any]] = loop.create_future()
        limits = self.limits
        output = output_stream(channel.notify, limits.max_output_chars, limits.max_kept_output_chars)

        def target() -> None:
            try:
                with pass_modules(self._modules):
                    outcome = run_pass(code, namespaces, dict(inputs or {}), channel,
                                       max_output_chars=limits.max_output_chars, max_calls=limits.max_calls,
                                       max_result_chars=limits.max_result_chars,
                                       capture_variables=capture_variables, replay=replay, output=output)
            except BaseException as exc:
                outcome = {"error": {"type": WorkerCrashed.__name__, "message": f"{type(exc).__name__}: {exc}"}}
            def settle() -> None:
                if not done.done():
                    done.set_result(outcome)

            # An abandoned pass (timeout, interrupt) may end after its loop closed: nobody waits then.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(settle)

        entry = (channel, done)
        self._channels.add(channel)
        self._running.add(entry)
        ticks = _Ticker(loop, output)
        threading.Thread(target=target, name="codemode-inprocess-pass", daemon=True).start()
        try:
            outcome = await asyncio.wait_for(asyncio.shield(done), timeout=limits.timeout)
        except TimeoutError:
            channel.abandoned = f"the pass ran longer than {limits.timeout:g} s (timeout)"
            outcome = {"error": {"type": Timeout.__name__, "message": channel.abandoned}}
        finally:
            ticks.stop()
            self._running.discard(entry)
        error = outcome.get("error")
        return ExecuteResult(
            result=outcome.get("result"),
            error=channel.failure or (SandboxError.from_dict(error) if error else None),
            logs=list(outcome.get("logs", [])),
            variables=dict(outcome.get("variables", {})),
        )

    def interrupt(self) -> bool:
        stopped = False
        for channel, done in list(self._running):
            if not done.done():
                channel.abandoned = "interrupted"
                done.set_result({"error": {"type": Interrupted.__name__, "message": "the pass was interrupted"}})
                stopped = True
        return stopped

    async def aclose(self) -> None:
        """Stop running passes, and the host's answers still running for passes that ended (an async
        connector hung in its call is cancelled after ``CLOSE_GRACE``: issue 12); wait at most
        ``CLOSE_WAIT`` more for them."""
        self.interrupt()
        asking = [channel.asking for channel in list(self._channels)
                  if channel.asking is not None and not channel.asking.done()]
        if asking:  # as the isolated executor: a call about to finish gets CLOSE_GRACE to
            _done, hung = await asyncio.wait(asking, timeout=CLOSE_GRACE)
            for task in hung:
                task.cancel()
            if hung:
                await asyncio.wait(hung, timeout=CLOSE_WAIT)
