"""SubprocessExecutor: every pass in its own worker process, under limits (DESIGN §11, issue 3).

RestrictedPython filters the language; the *process* is the security boundary. Each pass
runs in a fresh worker (:mod:`codemode_kernel.executor.worker`) started from a clean
interpreter: ``python -I -S``, an empty environment, only its three pipes, a new session
(terminal and Jupyter SIGINTs do not reach it), never a fork of the host. The worker
confines itself (rlimits, no network, an empty root, no root privileges, seccomp) before it
reads the pass; :attr:`SubprocessExecutor.isolation` reports what this OS allowed.

The host side speaks strict JSON lines with the worker (never pickle). Every request is
validated (known op, expected fields and types, a connector and method the pass was given)
and handed to the runtime's ``host`` handler, which decides replay / execute / pause.
Once the host has answered ``abort`` the worker gets ``abort`` for everything else it asks.
Values from the worker are only ever parsed JSON: the host calls no method on them.

A host that can answer later (``base.LaterHost``: the runtime's pass handler) is given a sink
with each request: a call to a synchronous connector is then answered by the connector's
thread, which writes the reply itself (``_Replies``; issue 12). The conversation answers no
other request until that reply is written (only a worker that did not wait for its reply
notices), and the sink writes nothing once the conversation has ended.

A reply that returns a value the host journaled (``base.EncodedReply``) is written with the JSON text
the host made to journal it (``_reply_line``), not the value serialized a second time: the same bytes
(tests/executor/test_s11c_reply_text.py). For a call returning rows of ~2 KB that serialization was
as costly as the journal's; the figures are in the commit that brought it (``git log -S _reply_line``).

Limits: the wall clock is enforced by SIGKILL from the host; CPU, address space,
processes, file size and open files by the kernel (rlimits); output, result and call caps
by both sides (the worker fails gracefully, the host kills a worker that ignores them).
Each tripped limit names itself and its value in the error.

A warm pool keeps ``warm`` workers started ahead of need, so a pass does not wait for an
interpreter to start (~60 ms here). A worker serves one pass and is then killed and
reaped; a worker that misbehaved is never reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import select
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from codemode_kernel.codec import MAX_VALUE_CHARS, dumps_encoded
from codemode_kernel.errors import ConfigurationError, Interrupted, LimitExceeded, Timeout, WorkerCrashed
from codemode_kernel.executor.base import (
    OUTPUT_MESSAGE_COST,
    TIMED_OUT,
    EncodedReply,
    ExecuteResult,
    HeldConversation,
    HostHandler,
    LaterHost,
    OutputCallback,
    RecordedValue,
    SandboxError,
    TimedOut,
)
from codemode_kernel.executor.channel import RequestTooLarge, WorkerPipe, WorkerProtocolError, check_request
from codemode_kernel.executor.launcher import make_launcher
from codemode_kernel.executor.pool import EmptyRoot, Process, WarmPool, WorkerProcess
from codemode_kernel.executor.stream import MAX_KEPT_OUTPUT_CHARS, MAX_KEPT_OUTPUT_LIMIT
from codemode_kernel.executor.worker import dumps_line, loads_line

log = logging.getLogger(__name__)
_Taken = TypeVar("_Taken")

@dataclass(frozen=True)
class Limits:
    """Resource limits of one pass in the isolated executor. All have working defaults.

    Change one with ``dataclasses.replace(Limits(), timeout=5)``.
    """

    #: Wall-clock seconds a pass may run (connector calls included); the worker is killed.
    timeout: float = 60.0
    #: CPU seconds (RLIMIT_CPU). ``None``: a backstop just above ``timeout`` (rounded up,
    #: plus 2 s), so that the wall clock is the limit that normally trips.
    max_cpu_seconds: float | None = None
    #: Address space of the worker in bytes (RLIMIT_AS); ``None`` for no limit.
    max_memory_bytes: int | None = 1 << 30
    #: New processes or threads the worker may start. 0 forbids them (seccomp, where
    #: available, and RLIMIT_NPROC, which Linux counts per user and ignores for root).
    max_processes: int = 0
    #: Largest file the worker may write (RLIMIT_FSIZE); 0 means no file writes.
    max_file_size: int = 0
    #: Open file descriptors (RLIMIT_NOFILE).
    max_open_files: int = 32
    #: Characters the pass may print in total; each output message counts at least
    #: ``OUTPUT_MESSAGE_COST`` (8), so a flood of empty prints is bounded too.
    max_output_chars: int = 1_000_000
    #: Characters of printed output a pass keeps (shown, returned in ``logs``, journaled);
    #: past them a note, and the rest is dropped while the pass runs on (issue 16).
    max_kept_output_chars: int = MAX_KEPT_OUTPUT_CHARS
    #: Characters of the serialized result (and, separately, of carried-over variables).
    max_result_chars: int = 10_000_000
    #: Connector calls per pass, counted with the program's steps, searches, describes and
    #: snippet runs (each costs the host work; a step also a journal entry).
    max_calls: int = 10_000
    #: Allow network access from the worker (off: a new, empty network namespace).
    network: bool = False
    #: Fail every pass when the OS cannot confine the worker (no network namespace,
    #: no seccomp, ...) instead of running it with what is available.
    require_isolation: bool = False

    def __post_init__(self) -> None:
        problems = []
        if not (isinstance(self.timeout, int | float) and self.timeout > 0 and math.isfinite(self.timeout)):
            problems.append(f"timeout must be a positive number of seconds, not {self.timeout!r}")
        if self.max_cpu_seconds is not None and not self.max_cpu_seconds > 0:
            problems.append(f"max_cpu_seconds must be positive or None, not {self.max_cpu_seconds!r}")
        if self.max_memory_bytes is not None and self.max_memory_bytes < 64 << 20:
            problems.append(f"max_memory_bytes must be at least 64 MiB (the interpreter needs it), "
                            f"not {self.max_memory_bytes!r}")
        for name in ("max_processes", "max_file_size"):
            if getattr(self, name) < 0:
                problems.append(f"{name} must be 0 or more")
        if self.max_open_files < 8:
            problems.append("max_open_files must be at least 8 (the worker needs its pipes)")
        for name in ("max_output_chars", "max_kept_output_chars", "max_result_chars", "max_calls"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1")
        if self.max_kept_output_chars > MAX_KEPT_OUTPUT_LIMIT:  # kept output goes into the journal
            problems.append(f"max_kept_output_chars must be at most {MAX_KEPT_OUTPUT_LIMIT:,} (kept output is "
                            "journaled)")
        if problems:
            raise ConfigurationError("Invalid Limits: " + "; ".join(problems) + ".")

    @property
    def cpu_seconds(self) -> int:
        """The RLIMIT_CPU value the worker gets."""
        if self.max_cpu_seconds is not None:
            return max(1, math.ceil(self.max_cpu_seconds))
        return math.ceil(self.timeout) + 2

    @property
    def max_message_bytes(self) -> int:
        """Largest line the host reads from a worker (a result plus variables, UTF-8)."""
        return 8 * self.max_result_chars + (4 << 20)

    @property
    def max_request_bytes(self) -> int:
        """Largest other message: a value stored for replay or one print, at 6 bytes a character
        at worst (a JSON escape). Bigger ones are refused before they are read whole."""
        return min(self.max_message_bytes, 6 * max(MAX_VALUE_CHARS, self.max_output_chars) + (64 << 10))

    def worker_config(self) -> dict[str, Any]:
        """The limits as the worker applies them."""
        return {
            "cpu_seconds": self.cpu_seconds, "max_memory_bytes": self.max_memory_bytes,
            "max_processes": self.max_processes, "max_file_size": self.max_file_size,
            "max_open_files": self.max_open_files, "max_output_chars": self.max_output_chars,
            "max_kept_output_chars": self.max_kept_output_chars,
            "max_result_chars": self.max_result_chars, "max_calls": self.max_calls,
            "network": self.network, "require_isolation": self.require_isolation,
        }


class _Pass:
    """The host's side of one pass with one worker."""

    def __init__(self, worker: WorkerProcess, limits: Limits, host: HostHandler, on_output: OutputCallback | None,
                 namespaces: Mapping[str, frozenset[str]], loop: asyncio.AbstractEventLoop,
                 startup_timeout: float, on_ready: Callable[[dict[str, Any]], None]) -> None:
        self.worker = worker
        self.limits = limits
        self.host = host
        self.on_output = on_output
        self.namespaces = namespaces
        self.loop = loop
        self.loop_thread = threading.get_ident()
        self.startup_timeout = startup_timeout
        self.on_ready = on_ready
        self.pipe = WorkerPipe(loop, worker.stdout_fd, worker.stdin_fd, worker.stderr_fd, worker.buffer,
                               limits.max_message_bytes, limits.max_request_bytes)
        self.finished: asyncio.Future[None] = loop.create_future()
        self.lock = threading.Lock()
        self.reason: SandboxError | None = None   # why the host killed the worker
        self.abort: str | None = None             # set once the host answered "abort"
        self.fail: SandboxError | None = None     # the error the pass reported with op "fail"
        self.host_failure: SandboxError | None = None  # the host handler raised: the pass is an error
        self.done: dict[str, Any] | None = None
        self.crash: SandboxError | None = None
        self.started = False                      # the worker said "ready"
        self.outputs: list[str] = []
        self.output_chars = 0
        self.calls = 0
        self.asking: str | None = None            # the request the host is answering
        self.timers: list[asyncio.TimerHandle] = []
        # A host that can have a connector's thread write a call's reply (base.LaterHost), and
        # where that reply goes.
        # (Duck-typed: isinstance with the runtime-checkable Protocol cost 18-42 us of the loop per pass.)
        self.later = cast(LaterHost, host) if callable(getattr(host, "answer_later", None)) else None
        self.replies = _Replies(self)
        self.pipe.on_stderr_end = self.replies.revoke  # the worker is gone: its pipe's end is the loop's to read

    # -- ending the pass (any thread)
    def kill(self, reason: SandboxError | None) -> None:
        """Stop the worker now; ``reason`` becomes the error (None: the host's abort stands)."""
        with self.lock:
            if self.done is not None or self.crash is not None or self.reason is not None:
                first = False
            else:
                first = True
                self.reason = reason if reason is not None else SandboxError("", "")
        self.worker.kill()
        if first:
            if threading.get_ident() == self.loop_thread:
                self._settle()
            else:
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                    self.loop.call_soon_threadsafe(self._settle)

    def _settle(self) -> None:
        if not self.finished.done():
            self.finished.set_result(None)
        self.replies.revoke()  # a thread holding the conversation lets go of it (and of the journal)
        self.replies.wake()  # a conversation waiting for a thread's reply stops waiting

    def outcome(self) -> ExecuteResult:
        logs = "".join(self.outputs).splitlines()
        if self.host_failure is not None:  # whatever the worker reported after it (issue 10, item 2)
            return ExecuteResult(error=self.host_failure, logs=logs)
        if self.done is not None:
            err = self.done.get("error")
            return ExecuteResult(result=self.done.get("result"), error=SandboxError.from_dict(err) if err else None,
                                 logs=logs, variables=dict(self.done.get("variables") or {}))
        error = self.reason if self.reason is not None else self.crash
        if error is not None and not error.type:  # killed after an abort: the host's decision stands
            error = self.fail
        return ExecuteResult(error=error, logs=logs)

    # -- the conversation (loop thread)
    async def converse(self, run_line: bytes) -> None:
        try:
            await self._converse(run_line)
        except RequestTooLarge as exc:
            self.kill(SandboxError(exc.error_type, str(exc)))
        except WorkerProtocolError as exc:
            self.kill(_crashed(f"the worker broke the protocol ({exc}) and was stopped"))
        except Exception as exc:  # a bug on the host side must not leave the pass hanging
            log.exception("isolated executor: unexpected error")
            self.kill(SandboxError("ExecutorError", f"internal error of the isolated executor: {exc}"))
        finally:
            self.replies.close()  # before the pool closes the pipes: no thread writes to them after
            for timer in self.timers:
                timer.cancel()
            self.pipe.detach()
            self._settle()

    async def _converse(self, run_line: bytes) -> None:
        if self.worker.ready is not None:
            self._start_clock()
        elif not self.worker.said:  # a worker whose first line (or end) is waiting needs no start clock
            self.timers.append(self.loop.call_later(self.startup_timeout, self._not_started))
        # A write that fails (the worker already exited) is not the end of the story: a worker that
        # refuses to run (require_isolation) says so in its ready line and exits without reading, and
        # under load it exits before this write. Read on: the ready line, then the end of the pipe
        # (s12z: the refusal was reported as "exited (exit code 0) before it was ready" 4 of 12 times).
        await self.pipe.write(run_line)
        replied = False
        while True:
            line = await self.pipe.readline(soon=replied)  # after a reply the next request comes soon
            replied = False
            if not self.replies.pending:
                self.asking = None
            if not line:
                return await self._ended()
            if self.reason is not None:  # killed: drop what it wrote, read on to the end of the pipe
                self.pipe.drain()
                continue
            if self.replies.pending:  # only a worker that did not wait for its reply gets here first
                await self.replies.settled()
                self.asking = None
                if self.reason is not None:
                    self.pipe.drain()
                    continue
            message = _parse(line)
            op = message.get("op")
            if op == "output":
                self._output(message)
            elif op == "ready" and self.worker.ready is None:
                self._ready(message)
            elif op == "done" and self.started:
                _check_done(message)
                with self.lock:
                    if self.reason is None:
                        self.done = message
                return None
            elif self.started and isinstance(op, str):
                reply = await self._answer(message)
                back = self.replies.back  # resolved and cleared when the loop has it back (_Replies._resume)
                if isinstance(reply, _Later):  # a connector's thread writes the reply (_Replies)
                    if back is not None:  # and holds the conversation until it gives it back
                        await back
                    continue
                if reply is not None:
                    if not await self.pipe.write(_reply_line(reply)):
                        return await self._ended()
                    replied = True
                self.asking = None
            else:
                raise WorkerProtocolError(f"unexpected message {op!r}")

    def _start_clock(self) -> None:
        self.started = True
        for timer in self.timers:
            timer.cancel()
        # The errors are worded when a timer fires, not for every pass (issue 12, s13p).
        self.timers = [self.loop.call_later(self.limits.timeout, self._timed_out)]

    def _not_started(self) -> None:
        self.kill(_crashed(f"the worker did not start within {self.startup_timeout:g} s (the machine may be "
                           "overloaded)"))

    def _timed_out(self) -> None:
        self.kill(SandboxError.of(Timeout, (
            f"the pass ran longer than {self.limits.timeout:g} s and its worker was stopped "
            f"(Limits.timeout={self.limits.timeout:g}). Make the code do less per pass (fewer calls, "
            "smaller data) or raise the limit.")))

    def _ready(self, message: dict[str, Any]) -> None:
        report = message.get("isolation")
        self.worker.ready = report if isinstance(report, dict) else {}
        self.on_ready(self.worker.ready)
        refused = self.worker.ready.get("refused")
        if isinstance(refused, str):
            self.kill(SandboxError("ExecutorError", refused))
            return
        self._start_clock()

    def _output(self, message: dict[str, Any]) -> None:
        text = message.get("text")
        if not isinstance(text, str):
            raise WorkerProtocolError("output text is not a string")
        # Every message counts, at least OUTPUT_MESSAGE_COST: a flood of empty messages cost the
        # host seconds of CPU and counted nothing (issue 10, item 8).
        self.output_chars += max(len(text), OUTPUT_MESSAGE_COST)
        if self.output_chars > self.limits.max_output_chars:
            self.kill(SandboxError.of(LimitExceeded, (
                f"the pass printed more than {self.limits.max_output_chars:,} characters (Limits.max_output_chars="
                f"{self.limits.max_output_chars}). Print less, or return a summary instead.")))
            return
        self._emit(text)

    def _emit(self, text: str) -> None:
        """On the loop: printed text, counted already, is kept and goes to the output callback."""
        self.outputs.append(text)
        if self.on_output is not None:
            try:
                self.on_output(text)
            except Exception:
                log.exception("isolated executor: on_output callback failed")

    async def _answer(self, message: dict[str, Any]) -> dict[str, Any] | _Later | None:
        if self.abort is not None:
            return {"abort": self.abort}
        request = check_request(message, self.namespaces)
        op = request["op"]
        if op == "fail":
            self.fail = SandboxError(request["type"], request["message"])
        if op in _COUNTED:  # each costs the host work; steps also a journal entry each
            self.calls += 1
            if self.calls > self.limits.max_calls:
                self.kill(SandboxError.of(LimitExceeded, (
                    f"the pass made more than {self.limits.max_calls:,} connector calls and codemode requests "
                    f"(Limits.max_calls={self.limits.max_calls})")))
                return None
        if op == "call":
            self.asking = f"its call to {request['connector']}.{request['method']}"
        else:
            self.asking = f"its {op!r} request"
        try:
            if self.later is not None:
                self.replies.pending = True  # before a thread can send
                sink: HeldConversation = self.replies  # mypy checks the contract with passes.py here
                later = await self.later.answer_later(request, sink)
                if later is None:
                    return _LATER
                self.replies.pending = False
                reply = later
            else:
                reply = await self.host(request)
        except Exception as exc:
            self.replies.pending = False
            log.exception("isolated executor: the host handler failed")
            text = str(exc)
            self.host_failure = SandboxError(type(exc).__name__, (
                f"the host failed to answer {self.asking}: {text if len(text) <= 500 else text[:500] + '…'}"))
            reply = {"abort": self.host_failure.message}
        return self.checked(reply)

    def checked(self, reply: Any) -> dict[str, Any]:
        """The host's reply as it goes to the worker (an ``abort`` ends the pass)."""
        checked: dict[str, Any] = reply if isinstance(reply, dict) else {"abort": "the host gave an invalid answer"}
        if "abort" in checked:
            self.abort = str(checked["abort"])
            # The pass is over; let the sandbox unwind and report, then stop it regardless.
            self.timers.append(self.loop.call_later(_ABORT_GRACE, self.kill, None))
        return checked

    async def _ended(self) -> None:
        """The worker closed its output without finishing: find out why."""
        rc = await _wait_exit(self.worker.proc, 2.0)
        if rc is None:  # it closed its output but runs on: stop it, and say that
            self.worker.kill()
            await _wait_exit(self.worker.proc, 2.0)
        with self.lock:
            if self.reason is None and self.done is None:
                self.crash = self._exit_error(rc)

    def _exit_error(self, rc: int | None) -> SandboxError:
        limits = self.limits
        when = f" while the host was answering {self.asking}" if self.asking else ""
        if not self.started:
            when = " before it was ready"
        tail = self.pipe.stderr_tail()
        detail = f" Its last words: {tail}" if tail else ""
        memory = (f" It may have run out of memory (Limits.max_memory_bytes={limits.max_memory_bytes})."
                  if limits.max_memory_bytes else "")
        fresh = " The next pass runs in a fresh worker."
        if rc is not None and rc < 0:
            sig = -rc
            if sig == signal.SIGXCPU:
                return SandboxError.of(LimitExceeded, (
                    f"the pass used more than {limits.cpu_seconds} s of CPU time and its worker was stopped "
                    f"(Limits.max_cpu_seconds={limits.cpu_seconds}). Make the computation smaller or raise "
                    "the limit."))
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = f"signal {sig}"
            if sig == signal.SIGKILL:
                return _crashed(f"the worker process was killed (SIGKILL) from outside the executor{when}, "
                                f"e.g. by the out-of-memory killer or a user." + detail + fresh)
            if sig in (signal.SIGSEGV, signal.SIGBUS):
                return _crashed(f"the worker process crashed ({name}){when}, e.g. the C stack overflowed on "
                                "very deeply nested code or data." + detail + fresh)
            return _crashed(f"the worker process died of {name}{when}." + (memory if sig == signal.SIGABRT
                                                                          else "") + detail + fresh)
        if rc is None:
            return _crashed(f"the worker process closed its pipe and kept running{when}; it was stopped." + fresh)
        return _crashed(f"the worker process exited (exit code {rc}){when} without finishing the pass."
                        + detail + fresh)


class _Later:
    """The host hands the reply to a connector's thread."""


_LATER = _Later()


class _Replies:
    """The pass's :class:`~codemode_kernel.executor.base.ReplySink`: the reply to a call the host
    answers later, from a connector's thread (issue 12).

    The thread writes a reply of at most ``PIPE_BUF`` bytes itself, under :attr:`lock` (one
    ``os.write`` on a non-blocking pipe, which the kernel writes whole or not at all); anything
    else is written by the loop. Nothing else writes meanwhile: the conversation answers no
    other request until :attr:`pending` is off (:meth:`settled`), and :meth:`close` (the
    conversation's end, before the pool closes the pipes) stops every later write.
    """

    def __init__(self, run: _Pass) -> None:
        self.run = run
        self.lock = threading.Lock()
        self.pending = False   # a reply the host owes (loop sets it on, the writer off)
        self.closed = False
        self.waiter: asyncio.Future[None] | None = None  # the conversation (a kill wakes it too)
        self.ending: asyncio.Future[None] | None = None  # the pass's end waits (made())
        self.writing: asyncio.Task[None] | None = None
        # A connector's thread may hold the conversation (hold(): it reads the worker's next requests
        # itself); ``own`` orders that against the loop taking it back (revoke()), and the pass
        # handler's journal goes with it (passes.py).
        self.own = threading.Lock()
        self.held = False
        self.back: asyncio.Future[None] | None = None  # the conversation waits for it back
        self.poller: select.poll | None = None  # the holding thread waits for the worker's next request

    def send(self, reply: dict[str, Any]) -> bool:
        """Write ``reply``; False when the loop writes it instead (too long for one write, the pipe
        full, an ``abort``): a thread holding the conversation then gives it back."""
        run = self.run
        if threading.get_ident() != run.loop_thread:
            try:
                line: bytes | None = None if "abort" in reply else _reply_line(reply)
            except Exception:  # the loop tries again and says why
                line = None
            if line is not None and len(line) <= select.PIPE_BUF:
                with self.lock:
                    written = True
                    if not self.closed:  # else the pass is over: nobody reads it
                        try:
                            os.write(run.pipe.in_fd, line)
                        except BlockingIOError:  # a worker that did not read what it was sent
                            written = False
                        except OSError:  # the worker is gone: the conversation reads the end of its pipe
                            pass
                    if written:
                        self.pending = False
                        waiters = (self.waiter, self.ending)
                        self.waiter = self.ending = None
                if written:
                    for waiter in waiters:
                        if waiter is not None:
                            with contextlib.suppress(RuntimeError):
                                run.loop.call_soon_threadsafe(_resolve, waiter)
                    return True
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody reads the reply
                run.loop.call_soon_threadsafe(self._write, reply)
            return False
        self._write(reply)
        return False

    def _write(self, reply: dict[str, Any]) -> None:
        """On the loop: the reply goes out as the conversation's replies do."""
        if self.closed:
            self._made()
            return
        self.writing = self.run.loop.create_task(self._write_out(self.run.checked(reply)))

    async def _write_out(self, reply: dict[str, Any]) -> None:
        try:
            await self.run.pipe.write(_reply_line(reply))  # False: the worker is gone, its pipe's end says so
        except Exception as exc:
            log.exception("isolated executor: unexpected error")
            self.run.kill(SandboxError("ExecutorError", f"internal error of the isolated executor: {exc}"))
        finally:
            self._made()

    def _made(self) -> None:
        with self.lock:
            self.pending = False
            waiters = (self.waiter, self.ending)
            self.waiter = self.ending = None
        for waiter in waiters:
            if waiter is not None:
                _resolve(waiter)

    async def settled(self) -> None:
        """Return once the reply owed is written (or the pass was stopped meanwhile)."""
        with self.lock:
            if not self.pending:
                return
            self.waiter = waiter = self.run.loop.create_future()
        await waiter

    async def made(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the reply owed to be made (written, or dropped: the pass is
        over). Its call's outcome is kept before it (passes.py), so the host can store it."""
        with self.lock:
            if not self.pending:
                return
            if self.ending is None:
                self.ending = self.run.loop.create_future()
            ending = self.ending
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(ending), timeout)

    def wake(self) -> None:
        """On the loop: whoever waits in :meth:`settled` goes on."""
        with self.lock:
            waiter, self.waiter = self.waiter, None
        if waiter is not None:
            _resolve(waiter)

    def close(self) -> None:
        with self.own:
            self.held = False
        with self.lock:
            self.closed = True
        if self.writing is not None:
            self.writing.cancel()

    # -- a connector's thread holds the conversation (issue 12; passes.py, PassHandler._streak)

    def hold(self) -> bool:
        """On the loop, as a call is handed to a connector's thread: that thread reads the worker's
        next requests itself (:meth:`next_request`) until it gives the conversation back or the loop
        takes it (:meth:`revoke`). False: the pass cannot be held now (it is ending)."""
        run = self.run
        pipe = run.pipe
        if (self.held or self.closed or run.reason is not None or run.abort is not None or not pipe.attached
                or pipe.paused or pipe.eof):
            return False
        run.loop.remove_reader(pipe.out_fd)
        self.back = run.loop.create_future()
        self.held = True
        return True

    def revoke(self) -> None:
        """On the loop: the conversation (and the host's journal) is the loop's again, now; waits for a
        commit the thread is making. The thread touches neither afterwards."""
        with self.own:
            if not self.held:
                return
            self.held = False
        self._resume()

    def give_back_locked(self) -> None:
        """The holding thread, under :attr:`own`: the loop reads on from what is buffered."""
        self.held = False
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody reads on
            self.run.loop.call_soon_threadsafe(self._resume)

    def _resume(self) -> None:
        run = self.run
        pipe = run.pipe
        pipe.scanned = 0
        if pipe.attached and not pipe.eof and not pipe.paused and not self.closed:
            run.loop.add_reader(pipe.out_fd, pipe._readable)
        back, self.back = self.back, None
        if back is not None:
            _resolve(back)

    def next_request(self, deadline: float,
                     take: Callable[[dict[str, Any]], _Taken | None]) -> _Taken | TimedOut | None:
        """On the holding thread: the next request the thread answers (``take(request)``'s value,
        under :attr:`own`), ``TIMED_OUT`` when none came by ``deadline`` (the loop's clock, as the pass
        handler's outcome timer: ``loop.time()``, which any thread may read), or None
        once the conversation is the loop's (anything but a call ``take`` accepts, printed text past
        the limit, a malformed line, the end of the pipe: the loop goes on from that line as it
        would have). Printed text is counted here and goes to the loop's output callback in order."""
        run = self.run
        pipe = run.pipe
        fd = pipe.out_fd
        clock = run.loop.time
        while True:
            with self.own:
                if not self.held:
                    return None
                got = self._line_locked(take)
                if not isinstance(got, _More):
                    return got
                try:
                    data: bytes | None = os.read(fd, 1 << 16)
                except BlockingIOError:
                    data = None
                except OSError:
                    data = b""
                if data:
                    pipe.buffer += data
                    continue
                if data is not None:  # the end of the pipe: the loop finds out why
                    pipe.eof = True
                    self.give_back_locked()
                    return None
            remaining = deadline - clock()
            if remaining <= 0:
                return TIMED_OUT
            if self.poller is None:  # poll, not select: a host with more than FD_SETSIZE descriptors
                self.poller = select.poll()
                self.poller.register(fd, select.POLLIN)
            try:
                self.poller.poll(max(1, math.ceil(remaining * 1000)))
            except OSError:  # the loop reads on
                with self.own:
                    if self.held:
                        self.give_back_locked()
                return None

    def _line_locked(self, take: Callable[[dict[str, Any]], _Taken | None]) -> _Taken | _More | None:
        run = self.run
        pipe = run.pipe
        buffer = pipe.buffer
        while True:
            index = buffer.find(b"\n")
            if index < 0:
                if len(buffer) > pipe.request_limit:
                    break
                return _MORE
            if index >= pipe.request_limit or run.reason is not None or run.abort is not None:
                break
            try:
                message = _parse(bytes(buffer[: index + 1]))
            except WorkerProtocolError:
                break
            op = message.get("op")
            if op == "output":
                text = message.get("text")
                if not isinstance(text, str):
                    break
                cost = max(len(text), OUTPUT_MESSAGE_COST)
                if run.output_chars + cost > run.limits.max_output_chars:
                    break
                run.output_chars += cost
                del buffer[: index + 1]
                try:
                    run.loop.call_soon_threadsafe(run._emit, text)
                except RuntimeError:  # the loop is closed: nobody reads on
                    return None
                continue
            if op != "call" or run.calls >= run.limits.max_calls:
                break
            try:
                request = check_request(message, run.namespaces)
            except WorkerProtocolError:
                break
            got = take(request)
            if got is None:
                break
            del buffer[: index + 1]
            run.calls += 1
            run.asking = f"its call to {request['connector']}.{request['method']}"
            self.pending = True
            return got
        self.give_back_locked()
        return None


class _More:
    """More bytes are needed for a line."""


_MORE = _More()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


_ABORT_GRACE = 2.0
#: Seconds ``aclose`` lets the host finish answering a killed pass before it cancels that answer.
CLOSE_GRACE = 0.25
#: Seconds ``aclose`` then waits for the cancelled answers to stop.
CLOSE_WAIT = 1.0
#: Seconds the end of a pass waits for a call a connector's thread still answers (_Replies.made).
LATE_REPLY_WAIT = 0.001
_COUNTED = frozenset({"call", "step", "search", "describe", "snippet"})


def _crashed(message: str) -> SandboxError:
    return SandboxError.of(WorkerCrashed, message)


def _parse(line: bytes) -> dict[str, Any]:
    try:
        message = loads_line(line)
    except (ValueError, RecursionError) as exc:
        raise WorkerProtocolError(f"a line that is not strict JSON: {type(exc).__name__}") from None
    if not isinstance(message, dict):
        raise WorkerProtocolError("a message that is not a JSON object")
    return message


def _run_line(run: dict[str, Any], replay: Sequence[Mapping[str, Any]]) -> bytes:
    """``dumps_line(run | {"replay": list(replay)})``, with the stored JSON text of each
    :class:`~codemode_kernel.executor.base.RecordedValue` that has one spliced in as it is instead of
    its value serialized again (issue 12): the same JSON, and the same bytes when the text is what
    the codec wrote."""
    if not any(type(item) is RecordedValue and item.text is not None for item in replay):
        return dumps_line({**run, "replay": list(replay)})
    heads: dict[tuple[str, str], str] = {}  # '{"c":…,"m":…,"a":' per method
    parts = []
    for item in replay:
        text = item.text if type(item) is RecordedValue else None
        if text is None:
            parts.append(dumps_encoded(item))
            continue
        connector, method = item["c"], item["m"]
        head = heads.get((connector, method))
        if head is None:
            head = heads[connector, method] = f'{{"c":{dumps_encoded(connector)},"m":{dumps_encoded(method)},"a":'
        parts.append(f'{head}{dumps_encoded(item["a"])},"v":{text}}}')
    return _utf8_line(f'{dumps_encoded(run)[:-1]},"replay":[{",".join(parts)}]}}')


def _reply_line(reply: Mapping[str, Any]) -> bytes:
    """``dumps_line(reply)``; for an :class:`~codemode_kernel.executor.base.EncodedReply`, its value's
    JSON text (made to journal it) goes in as it is instead of the value serialized again (issue 12)."""
    if type(reply) is EncodedReply and len(reply) == 1:
        return _utf8_line(f'{{"value":{reply.text}}}')
    return dumps_line(reply)


def _utf8_line(text: str) -> bytes:
    """A serialized message as a line, as ``dumps_line`` makes it (lone surrogates replaced)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")
    return data + b"\n"


def _check_done(message: dict[str, Any]) -> None:
    err = message.get("error")
    if err is not None and not (
            isinstance(err, dict) and isinstance(err.get("type"), str) and isinstance(err.get("message"), str)
            and isinstance(err.get("lineno", None), int | None) and isinstance(err.get("traceback", ""), str)):
        raise WorkerProtocolError("a malformed error in 'done'")
    variables = message.get("variables", {})
    if not isinstance(variables, dict):
        raise WorkerProtocolError("malformed variables in 'done'")


async def _wait_exit(proc: Process, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while True:
        rc = proc.poll()
        if rc is not None or time.monotonic() >= deadline:
            return rc
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)


class SubprocessExecutor:
    """The default executor: each pass in a fresh, confined worker process.

    ``limits`` bound every pass (see :class:`Limits`). ``warm`` workers are kept started
    ahead of need (0: each pass starts its own). ``python`` is the interpreter that runs
    workers (default: this one). ``zygote``: fork each worker from a clean zygote process
    (the default on Linux unless ``python`` is given, see docs/isolation.md) or start each
    as a new interpreter (False). One executor may serve several passes at once, from
    several event loops or threads in turn.
    """

    def __init__(self, limits: Limits | None = None, *, warm: int = 1, python: str | None = None,
                 startup_timeout: float = 30.0, zygote: bool | None = None) -> None:
        if warm < 0:
            raise ConfigurationError("warm must be 0 or more")
        self.limits = limits or Limits()
        self.startup_timeout = startup_timeout
        self._pool = WarmPool(make_launcher(python, zygote=zygote, startup_timeout=startup_timeout),
                              self._worker_config, warm)
        self._lock = threading.Lock()
        self._running: set[_Pass] = set()
        self._tasks: set[asyncio.Task[None]] = set()  # conversations, kept until they end
        self._isolation: dict[str, Any] | None = None
        self._warned = False
        # The last pass's namespaces as given (a copy), as sets and sorted (_spaces).
        self._kept_spaces: tuple[dict[str, Any], dict[str, frozenset[str]], bytes] | None = None

    @property
    def warm(self) -> int:
        """How many workers are kept started ahead of need."""
        return self._pool.size

    @property
    def isolation(self) -> dict[str, Any] | None:
        """What the latest worker reported about its confinement (None before the first).

        Keys: ``network``, ``filesystem``, ``pids``, ``user``, ``syscalls``, ``rlimits`` (text),
        ``network_isolated``, ``filesystem_hidden``, ``pid_namespace``, ``seccomp`` (bool),
        ``problems`` (what this OS refused) and ``pid`` (of that worker, as the host sees it).
        """
        return dict(self._isolation) if self._isolation is not None else None

    def _worker_config(self) -> dict[str, Any]:
        return {"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
                "limits": self.limits.worker_config()}

    async def warm_up(self) -> dict[str, Any] | None:
        """Start the warm workers now and wait until they are ready; return :attr:`isolation`.

        Optional: without it the first pass starts a worker itself (about 60 ms). With
        ``warm=0`` it starts and checks one worker, for the report.
        """
        loop = asyncio.get_running_loop()
        for _attempt in range(3):  # passes running meanwhile may take the workers it started
            await loop.run_in_executor(None, self._pool.fill, max(1, self.warm))
            await self._await_ready(loop)
            if self._pool.ready_count() >= min(1, self.warm) and self._isolation is not None:
                break
        if self.warm == 0:
            self._pool.drain()
        return self.isolation

    async def _await_ready(self, loop: asyncio.AbstractEventLoop) -> None:
        # Taken out of the pool while we read from them, so no pass reads the same pipe.
        for worker in self._pool.take_unready():
            pipe = WorkerPipe(loop, worker.stdout_fd, worker.stdin_fd, worker.stderr_fd, worker.buffer,
                              self.limits.max_message_bytes)
            try:
                line = await asyncio.wait_for(pipe.readline(), self.startup_timeout)
                message = _parse(line) if line else {}
            except (TimeoutError, WorkerProtocolError):
                message = {}
            finally:
                pipe.detach()
            report = message.get("isolation")
            if message.get("op") == "ready" and isinstance(report, dict):
                worker.ready = report
                self._note_isolation(report)
                self._pool.give_back(worker)
            else:  # never hand out a worker that did not start properly
                self._pool.give_back(worker, broken=True)

    def _note_isolation(self, report: dict[str, Any]) -> None:
        self._isolation = report
        if not self._warned and report.get("problems"):
            self._warned = True
            log.warning("isolated executor: the worker is only partly confined on this system: %s",
                        "; ".join(str(p) for p in report["problems"]))

    # -- the Executor protocol
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
        """Run one pass in a fresh worker; every failure comes back as ``ExecuteResult.error``."""
        names, spaces = self._spaces(namespaces)
        try:
            # The names' JSON goes in as kept (_spaces): "namespaces":{} is the first such run of bytes of the
            # line, after op and code (a quote inside the code's JSON string is escaped).
            run_line = _run_line({"op": "run", "code": code, "namespaces": {},
                                  "inputs": dict(inputs or {}), "capture_variables": capture_variables}, replay)
            if spaces != b"{}":
                run_line = run_line.replace(b'"namespaces":{}', b'"namespaces":' + spaces, 1)
        except (TypeError, ValueError) as exc:
            return ExecuteResult(error=SandboxError("CodecError", f"the pass inputs are not JSON data: {exc}"))
        result = ExecuteResult()
        for _attempt in range(2):
            try:
                worker = self._pool.take()
            except Exception as exc:
                return ExecuteResult(error=_crashed(f"could not start a worker process: {exc}"))
            result, died_unready = await self._run(worker, names, run_line, host, on_output)
            if not died_unready:
                break
            # The worker died before it was ready (e.g. killed while idle): no code ran, retry once.
        return result

    def _spaces(self, namespaces: Mapping[str, Sequence[str]]) -> tuple[dict[str, frozenset[str]], bytes]:
        """The pass's method names by connector, as sets (to check requests), and sorted as the run
        line's JSON (for the worker).

        Made again only when ``namespaces`` holds other names than the last pass's (issue 12, s16p):
        a runtime hands every pass the same catalog's lists, and making both forms (sets, sorted lists,
        their JSON) cost ~56 us a pass for 300 methods and ~1.2 ms for 3,000 (warm). The names given are
        compared by value with a copy kept of them (a caller may change its lists between passes),
        which for 3,000 names costs ~3 us."""
        kept = self._kept_spaces
        if kept is not None:
            given, names, text = kept
            if namespaces.keys() == given.keys() and all(
                    type(v) is type(given[k]) and v == given[k] for k, v in namespaces.items()):
                return names, text
        names = {str(k): frozenset(str(m) for m in v) for k, v in namespaces.items()}
        text = _utf8_line(dumps_encoded({k: sorted(v) for k, v in names.items()}))[:-1]
        if all(type(k) is str and type(v) in (list, tuple) and all(type(m) is str for m in v)
               for k, v in namespaces.items()):  # plain names only: compared by value, nothing of theirs runs
            copy = {k: v.copy() if type(v) is list else tuple(v) for k, v in namespaces.items()}
            self._kept_spaces = (copy, names, text)
        return names, text

    async def _run(self, worker: WorkerProcess, names: Mapping[str, frozenset[str]], run_line: bytes,
                   host: HostHandler, on_output: OutputCallback | None) -> tuple[ExecuteResult, bool]:
        loop = asyncio.get_running_loop()
        if worker.ready is not None:
            self._note_isolation(worker.ready)
        run = _Pass(worker, self.limits, host, on_output, names, loop, self.startup_timeout, self._note_isolation)
        with self._lock:
            self._running.add(run)
        # The run line is written last, by the conversation's first step, and the loop sleeps soon after
        # (~25 us). Tried and not kept (issue 12, s16p): writing it here, before the _Pass and the task are
        # made, so the worker would start ~100-200 us sooner. The write's sync wake-up often puts the
        # worker on this thread's CPU, where the host's setup after the write then holds it back (as
        # runtime.py's docstring records for host work after the code is sent). Paired against the parent
        # (benchmarks/s16p_ab.py, 200 ms apart, two processes alternating pass by pass, 8 rounds of 40,
        # load 3.4-4.6): wall 1.203x (faster in 3 of 8), loop CPU 1.007x (lower in 4 of 8).
        task = loop.create_task(run.converse(run_line))
        task.add_done_callback(lambda _t: self._pool.retire(worker))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        try:
            # Awaited as it is, not through asyncio.shield: nothing else awaits it, and a cancel that
            # cancels it is harmless (_settle sets it only if not done); the shield cost the pass a
            # turn of the loop between the worker's report and execute() returning (issue 12, s13p).
            await run.finished
        except asyncio.CancelledError:
            run.kill(SandboxError.of(Interrupted, "the pass was cancelled"))
            raise
        finally:
            with self._lock:
                self._running.discard(run)
            # A call a connector's thread still answers gets as long to finish as the loop once
            # waited for any sync call (issue 12): a quick one's outcome is then kept before the
            # runtime records the pass's end, as before.
            await run.replies.made(LATE_REPLY_WAIT)
            run.replies.revoke()  # the host's journal is the loop's again before the pass's end is recorded
            # If the host is still answering a request, that answer finishes on its own (the
            # runtime must not be cancelled mid-write); nothing reaches the killed worker.
            worker.kill()
        return run.outcome(), not run.started and run.reason is None and run.done is None

    def interrupt(self) -> bool:
        """Stop every running pass (thread-safe); each ends with error ``Interrupted``."""
        with self._lock:
            running = list(self._running)
        for run in running:
            run.kill(SandboxError.of(Interrupted, "the pass was interrupted"))
        return bool(running)

    async def aclose(self) -> None:
        """Stop running passes and the warm workers. The executor stays usable (it restarts lazily).

        Killed workers end their conversations at once, unless the host still answers a request:
        an async connector's call (a sync one's thread holds nothing of the conversation). Those get
        :data:`CLOSE_GRACE` to finish, then are cancelled (async code is cancellable: the call ends
        with ``CancelledError`` and its entry stays ``executing``, the outcome unknown, as when the
        host stops while a connector runs); a connector that ignores the cancel is waited for at
        most :data:`CLOSE_WAIT` more (issue 12: before, aclose waited 5 s for any hung call)."""
        self.interrupt()
        loop = asyncio.get_running_loop()
        mine = [t for t in self._tasks if t.get_loop() is loop]
        if mine:
            _done, hung = await asyncio.wait(mine, timeout=CLOSE_GRACE)
            for task in hung:
                task.cancel()
            if hung:
                await asyncio.wait(hung, timeout=CLOSE_WAIT)
        await loop.run_in_executor(None, self._pool.close)
