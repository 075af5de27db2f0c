"""Threads that run synchronous connector code off the event loop (issue 12).

A synchronous connector method must not freeze the loop (the kernel's widgets and interrupts,
other executions) while it works, so it runs in a thread. :class:`ConnectorThreads` keeps a
bounded set of reused threads for that.

The hand-off is where a quick call's time went (about 135 us of host CPU per journaled call
on a 2-core machine, against a few us of connector code): the loop woke a thread from a queue
while holding the GIL (the woken thread then waited for the GIL, or took the core from the
loop thread that still held it), and the thread woke the loop through its self-pipe, an epoll
round and a future's callbacks. Two changes cut that (benchmarks/bench_runtime.py):

- each thread waits on a pipe of its own, and the caller wakes it with ``os.write``, which
  lets go of the GIL before the kernel wakes the thread: the thread finds the GIL free;
- the loop thread then waits for the answer itself, for at most :data:`WAIT_ON_LOOP`
  (1 ms, the resolution of ``poll``), on a pipe the thread writes one byte to: no epoll round, no self-pipe, no
  future. A call that takes longer is *detached*: the loop goes on with everything else and
  the thread resolves an asyncio future when it is done, as before. A callable that once
  took longer is awaited that way for its next :data:`SLOW_SKIP` calls, so a slow (or hung)
  connector costs the loop at most 1 ms now and then, and never blocks another
  execution's calls.

Where a sync call's extra host CPU goes now (issue 12, measured after one commit per call):
per thread, over 5,000 calls through the isolated executor, the connector thread takes 8-26 us
per call and the loop thread 158-202 us, against 128-130 us for the same calls to an async
connector; the loop thread blocks 0.7-1.7 times per call (0.1-0.2 for async). The hand-off
itself, with no sandbox process beside it, costs 10-12 us of CPU per call: the rest is what
sleeping and being woken costs while the sandbox's process shares the two CPUs. Timestamped
along the path (``benchmarks/call_path.py``, 3,000 calls, medians of 3 runs at load 2.8 and
1.7), the segments' medians of a sync call add up to 210-250 µs against 137-168 async: 19-28 µs
from ``invoke`` to the connector's code and 13-15 back (2.5-3.3 for async), the host's own
segments 1-13 µs longer each (the mark's commit 53-70 against 45-57), and 10-11 more before the
next request is read: after its sleep the loop thread runs on cold caches (the same effect,
measured: channel.py). Tried and not
kept: waiting on ``threading.Lock`` instead of the pipes (the thread wakes while the caller
still holds the GIL): 38 us instead of 10 in that hand-off benchmark. An ``os.eventfd`` (Linux;
semaphore mode, one read per wake-up) instead of each pipe: the hand-off alone 9.59-9.74 ->
9.04-9.29 us of CPU a call (3 alternating runs, median of 7 x 5,000), but through the isolated
executor (8 alternating rounds from clean trees, 3,000 calls, load 1.7-2.4) sync 3,807 -> 3,589
calls/s (higher in 2 of 8) and host CPU 180 -> 189 us a call (lower in 4 of 8): nothing the pass
shows. The wait on the loop thread checked against none (``wait_on_loop=0``, every call awaited
through a future; 6 alternating runs, load 2.1-2.2): 4,061 -> 3,733 sync calls/s (medians; higher
in 1 of 6), host CPU 181 -> 202 us a call, the connector thread's 12 -> 18: the wait stays.

A pass in the isolated executor does not wait at all (issue 12): :meth:`ConnectorThreads.hand_off`
runs the function and then a ``then`` on the same thread, which makes the reply and writes it
to the worker (passes.py, ``PassHandler._deliver``; executor/isolated.py, ``_Replies``). The
loop goes back to its pipes as soon as the thread is woken, and is woken itself only by the
worker's next request, as for an async connector. The 1 ms wait below stays for every other
caller (``invoke``: the in-process executor, snippets, revert). Paired runs from clean trees
(3,000 calls through the isolated executor, median of 3 a round), against the 1 ms wait: 6
rounds at load 2.4-3.7, 2,613 -> 4,507 sync calls/s and 200 -> 159 µs of host CPU a call
(each better in 6 of 6); 6 more at load 2.2-3.0, 4,118 -> 4,987 calls/s and 175 -> 145 µs
(5 of 6); 6 more at load 1.7-3.1 with the suite of others running, 3,167 -> 3,325 calls/s
(higher in 4 of 6) and 188 -> 180 µs (lower in 5 of 6): the gain shrinks on a busy machine.
Async calls unchanged. ``benchmarks/call_path.py`` at load 1.7: 12.6 µs from the hand-off to
the connector's code (was 19-28), 1.2 back (was 13-15), the loop thread's CPU a call 127.9 µs
against 122.2 for async (was 158-202 against 128-130), the connector thread's 26.9; at load
3.3 (3 runs): 28.8 µs to the connector's code, 1.4 back, the sum of a call's segments 196.8 µs
against 197.0 for async.
Tried and not kept: the loop's short poll for the next request (``WorkerPipe.readline(soon=
True)``) after a call it handed off, in the same 6 rounds: 4,918 calls/s and 135 µs (higher in
3 of 6, cheaper in 4 of 6: noise). Not built: the connector thread reading the worker's next
request itself. The pass's journal connection is used on the loop meanwhile (the deferred
commit of the pass's start, the outcome timer, search, describe and snippets, the pass's end),
so a thread could commit the next mark only with every use of that connection under one lock,
the runtime's included; and with the loop's CPU a sync call down to an async call's, what is
left to move is a wake-up, not work.
Built later (issue 12, passes.py "holds the conversation"): the journal's connection goes with
the conversation, handed over explicitly (the loop takes nothing of the pass's meanwhile: no timer,
no other request), so no lock around the runtime's uses is needed. A run of sync calls then costs
one thread and no loop wake-up; the run is one job here (one thread, counted busy), each call in a
copy of the loop's context. Paired, 6 interleaved rounds from clean trees at load 6-7.7 (another
engineer's suite and a test run beside it; /tmp/ab/calls_ab.py, 3,000 calls, median of 3): host CPU
per sync call 152-176 -> 111-176 µs (lower in 5 of 6; medians 158 -> 119), sync calls/s higher in 5
of 6 (medians 3,494 -> 3,837); async in the same rounds 139 -> 143 µs (CPU medians, lower in 3 of 6),
and in 8 more async-only rounds at load 6-7.4: 3,736 -> 3,854 calls/s (higher in 5 of 8) and
142 -> 140 µs (lower in 5 of 8): no loss.

Counted (issue 12, s13c; 3,000 calls in one execution through the runtime, the isolated executor and a
SQLite file, the event loop's turns and the hand-offs wrapped and counted, load ~5): a sync call makes
0.012 turns of the loop, 0.003 hand-offs to a thread and 0.003 ``call_soon_threadsafe`` (a run of
~330 calls held by one thread, begun and given back once); an async call 2.16 turns of the loop (the
host's poll for the next request, channel.py). So a sync call in a run crosses no thread or loop: its
thread reads the request, commits its mark with the previous outcome, runs the function and writes the
reply itself, in that order, as the loop would.

Threads are reused and bounded: one hung connector holds one thread and never blocks a call
that finds another idle or a free place for a new one; when all ``limit`` threads are busy,
further calls wait in order. The threads are daemons, so a connector that never returns does
not keep the process from exiting.

A call whose caller has gone costs the others nothing (issue 12): each call may belong to a
:class:`CallScope` (a pass: passes.py ends it when the runtime is done with the pass, after an
interrupt, a timeout, a cancelled ``execute()`` or the runtime's close), and a ``run`` whose
awaiting caller is cancelled ends its own. A call still running when its scope ends stops
counting against ``limit``: new work gets a new thread, and the stuck one exits when its call
finally returns (its outcome is still delivered, as a late one; the thread keeps nothing). A
call still queued when its scope ends is never run: it is answered with :class:`CallNotRun`
(a pass records that as the call's error: its ``executing`` mark was committed before it was
queued). Threads that outlive their calls are bounded too, by ``ceiling`` (all threads,
counted or not): past it a new call that finds no idle thread fails at once with
:class:`ConnectorThreadsExhausted`, which says why; the connector is not called.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import os
import select
import threading
from collections import deque
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from codemode_kernel import codec

# Their home is errors.py; importable from here too, where they were defined first.
from codemode_kernel.errors import CallNotRun as CallNotRun
from codemode_kernel.errors import ConnectorThreadsExhausted as ConnectorThreadsExhausted
from codemode_kernel.errors import clip

if TYPE_CHECKING:
    from codemode_kernel.catalog import Method

log = logging.getLogger(__name__)
DEFAULT_LIMIT = 32
#: Threads in all, stuck calls of ended scopes included, past which a new call is refused.
DEFAULT_CEILING = 4 * DEFAULT_LIMIT
#: Seconds the calling (loop) thread waits for a synchronous call's answer before it awaits it.
WAIT_ON_LOOP = 0.001
#: Calls of a callable that once outlasted :data:`WAIT_ON_LOOP` that are awaited at once.
SLOW_SKIP = 16
_MAX_REMEMBERED = 4096  # slow callables remembered (a heuristic: forgetting costs one wait)
#: What runs on the thread after a handed-off call: its result, or the exception it raised.
Then = Callable[[Any, BaseException | None], None]


class CallScope:
    """The calls of one pass (or one caller): :meth:`ConnectorThreads.end` lets go of them all."""

    __slots__ = ("ended", "jobs")

    def __init__(self) -> None:
        self.ended = False
        self.jobs: set[_Job] = set()  # queued or running, guarded by the threads' lock


class _Job:
    """One call: what to run, and how its caller hears back."""

    __slots__ = ("answer_fd", "args", "context", "error", "finished", "fn", "future", "lock", "loop", "result",
                 "scope", "then", "worker")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], context: contextvars.Context,
                 then: Then | None = None, scope: CallScope | None = None) -> None:
        self.scope = scope
        self.worker: _Worker | None = None  # the thread running it (None while queued)
        self.fn = fn
        self.args = args
        self.context = context
        self.then = then                   # set: the thread finishes the call itself (hand_off)
        self.lock = threading.Lock()       # orders "finished" against the caller detaching
        self.finished = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.future: asyncio.Future[Any] | None = None  # set: the caller awaits (detached)
        self.answer_fd = -1                # else: the caller waits on this pipe for one byte

    def outcome(self) -> Any:
        if self.error is not None:
            raise future_safe(self.error)
        return self.result


class _Worker:
    """One thread and the pipe it waits on for its next job."""

    __slots__ = ("job", "stray", "wake_r", "wake_w")

    def __init__(self) -> None:
        self.job: _Job | None = None
        self.stray = False  # its call's scope ended: it no longer counts, and exits after the call
        self.wake_r, self.wake_w = os.pipe()


class _Answer:
    """The pipe one calling thread waits on (one wait at a time: the caller is blocked in it)."""

    def __init__(self) -> None:
        self.r, self.w = os.pipe()
        os.set_blocking(self.r, False)
        self.poll = select.poll()
        self.poll.register(self.r, select.POLLIN)

    def wait(self, timeout: float | None) -> bool:
        """True once the byte came (and was read); False after ``timeout`` seconds without it."""
        if not self.poll.poll(None if timeout is None else timeout * 1000):
            return False
        os.read(self.r, 1)
        return True

    def __del__(self) -> None:  # the calling thread ended
        for fd in (self.r, self.w):
            with contextlib.suppress(OSError):
                os.close(fd)


_answers = threading.local()


def _answer_pipe() -> _Answer:
    answer: _Answer | None = getattr(_answers, "pipe", None)
    if answer is None:
        answer = _answers.pipe = _Answer()
    return answer


class ConnectorThreads:
    """A bounded set of reused threads for synchronous connector calls.

    ``wait_on_loop`` (seconds, 0 to never wait) is how long the calling thread waits for an
    answer itself before it awaits it on the loop (see the module docstring). ``limit`` threads
    run calls of live scopes; ``ceiling`` bounds all threads, those still stuck in calls of ended
    scopes included (default: four times ``limit``).
    """

    def __init__(self, limit: int = DEFAULT_LIMIT, name: str = "codemode-connector",
                 wait_on_loop: float = WAIT_ON_LOOP, ceiling: int | None = None) -> None:
        if limit < 1:
            raise ValueError(f"ConnectorThreads needs a limit of at least 1 thread (got {limit})")
        if not wait_on_loop >= 0:
            raise ValueError(f"ConnectorThreads needs wait_on_loop >= 0 seconds (got {wait_on_loop!r})")
        ceiling = 4 * limit if ceiling is None else ceiling
        if ceiling < limit:
            raise ValueError(f"ConnectorThreads needs a ceiling of at least its limit, {limit} (got {ceiling})")
        self.limit = limit
        self.ceiling = ceiling
        self.wait_on_loop = wait_on_loop
        self._name = name
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._queued: deque[_Job] = deque()
        self._threads = 0   # alive: counted ones and strays
        self._counted = 0   # idle or running a call of a live scope: at most ``limit``
        self._started = 0   # ever (names the threads)
        self._slow: dict[Hashable, int] = {}

    @property
    def threads(self) -> int:
        """How many threads are alive (kept for later calls, or finishing a call of an ended scope)."""
        return self._threads

    @property
    def stray(self) -> int:
        """How many threads still run a call whose scope ended (they exit when it returns)."""
        with self._lock:
            return self._threads - self._counted

    @staticmethod
    def scope() -> CallScope:
        """A new scope for the calls of one pass (see :meth:`end`)."""
        return CallScope()

    def end(self, scope: CallScope) -> None:
        """``scope``'s caller is gone: its running calls stop counting against ``limit``, and its
        queued calls are dropped, answered with :class:`CallNotRun`. Idempotent; thread-safe."""
        with self._lock:
            scope.ended = True
            jobs = list(scope.jobs)
            scope.jobs.clear()
            dropped = [job for job in jobs if self._let_go(job)]
            starts = self._fill()
        self._start(starts)
        for job in dropped:
            self._not_run(job)

    def hand_off(self, fn: Callable[..., Any], args: tuple[Any, ...], then: Then,
                 scope: CallScope | None = None) -> None:
        """Run ``fn(*args)`` in one of the threads, then ``then(result, error)`` on that thread; return at once.

        Nobody waits: ``then`` delivers the outcome itself (a pass's reply, issue 12), and must
        not raise (what it raises is logged and dropped). A call queued behind busy threads
        runs when one frees, as with :meth:`run`; one dropped because ``scope`` ended first gets
        ``then(None, CallNotRun(...))``, on the thread that ended it. Raises
        :class:`ConnectorThreadsExhausted` (``fn`` not called) past :attr:`ceiling`, and
        :class:`CallNotRun` if ``scope`` has ended already.
        """
        self._dispatch(_Job(fn, args, contextvars.copy_context(), then, scope), None)

    async def run(self, fn: Callable[..., Any], *args: Any, scope: CallScope | None = None) -> Any:
        """``fn(*args)`` in one of the threads, in a copy of the caller's context; its result or exception.

        A caller cancelled while the call is queued or runs lets go of it (as :meth:`end` does).
        """
        job = _Job(fn, args, contextvars.copy_context(), None, scope)
        wait = self.wait_on_loop > 0 and self._quick(fn)
        answer = _answer_pipe() if wait else None
        self._dispatch(job, answer)
        if job.future is None:
            assert answer is not None
            if answer.wait(self.wait_on_loop):
                return job.outcome()
            with job.lock:
                if not job.finished:
                    self._detach(job)
            if job.future is None:  # it finished between the timeout and the lock: its byte is coming
                answer.wait(None)
                return job.outcome()
            self._note_slow(fn)
        assert job.future is not None
        try:
            return await job.future
        except asyncio.CancelledError:
            with self._lock:
                if job.scope is not None:
                    job.scope.jobs.discard(job)
                self._let_go(job)  # a queued job is never run (nobody waits for its answer)
                starts = self._fill()
            self._start(starts)
            raise

    def _dispatch(self, job: _Job, answer: _Answer | None) -> None:
        """Give ``job`` to an idle thread, a new one (below the limit and the ceiling) or the queue.

        A job with a ``then`` delivers its own outcome; any other job is answered on ``answer``'s
        pipe when it runs at once, else through a future its caller awaits (detached).
        """
        start = False
        with self._lock:
            if job.scope is not None:
                if job.scope.ended:
                    raise CallNotRun()
                job.scope.jobs.add(job)
            worker = self._idle.pop() if self._idle else None
            if worker is None and self._counted < self.limit:
                if self._threads >= self.ceiling:
                    if job.scope is not None:
                        job.scope.jobs.discard(job)
                    raise self._exhausted()
                start = True
                worker = self._new_worker()
            if job.then is None:
                if worker is None or answer is None:  # queued behind busy threads, or slow: awaited
                    self._detach(job)
                else:
                    job.answer_fd = answer.w
            if worker is None:
                self._queued.append(job)
            else:
                worker.job = job
                job.worker = worker
        if worker is not None:
            if start:
                self._start([worker])
            else:
                os.write(worker.wake_w, b"\0")  # lets go of the GIL before the thread wakes

    def _exhausted(self) -> ConnectorThreadsExhausted:
        return ConnectorThreadsExhausted(self._threads, self.ceiling, self._threads - self._counted)

    def _new_worker(self) -> _Worker:
        """A worker for a new thread (lock held): it counts against ``limit`` and the ceiling."""
        self._threads += 1
        self._counted += 1
        self._started += 1
        return _Worker()

    def _start(self, workers: list[_Worker]) -> None:
        for worker in workers:
            threading.Thread(target=self._work, args=(worker,), name=f"{self._name}-{self._started}",
                             daemon=True).start()

    def _let_go(self, job: _Job) -> bool:
        """(Lock held.) Nobody waits for ``job`` any more: a running one's thread stops counting; a
        queued one leaves the queue. True if it was queued (it never runs)."""
        worker = job.worker
        if worker is not None:
            if worker.job is job and not worker.stray:
                worker.stray = True
                self._counted -= 1
            return False
        try:
            self._queued.remove(job)
        except ValueError:
            return False
        return True

    def _fill(self) -> list[_Worker]:
        """(Lock held.) New threads for queued calls, now that some stopped counting."""
        workers = []
        while self._queued and self._counted < self.limit and self._threads < self.ceiling:
            job = self._queued.popleft()
            worker = self._new_worker()
            worker.job = job
            job.worker = worker
            workers.append(worker)
        return workers

    @staticmethod
    def _not_run(job: _Job) -> None:
        """A dropped call's answer: :class:`CallNotRun` (its function never ran)."""
        error = CallNotRun()
        if job.then is not None:
            try:
                job.then(None, error)
            except BaseException:
                log.exception("a connector call's 'not run' outcome could not be delivered")
        elif job.future is not None:
            assert job.loop is not None
            job.error = error
            _settle(job.loop, job.future, job)

    @staticmethod
    def _detach(job: _Job) -> None:
        job.loop = asyncio.get_running_loop()
        job.future = job.loop.create_future()

    def _quick(self, fn: Callable[..., Any]) -> bool:
        """Whether a call of ``fn`` is worth waiting for on the calling thread."""
        try:
            skip = self._slow.get(fn)  # type: ignore[call-overload]
        except TypeError:  # an unhashable callable: no history
            return True
        if not skip:
            return True
        if skip > 1:
            self._slow[fn] = skip - 1  # type: ignore[index]
        else:
            self._slow.pop(fn, None)  # type: ignore[call-overload]
        return False

    def _note_slow(self, fn: Callable[..., Any]) -> None:
        if len(self._slow) >= _MAX_REMEMBERED:
            self._slow.clear()
        with contextlib.suppress(TypeError):
            self._slow[fn] = SLOW_SKIP  # type: ignore[index]

    def _work(self, worker: _Worker) -> None:
        job = worker.job
        while job is not None:
            try:
                job.result = job.context.run(job.fn, *job.args)
            except BaseException as exc:  # handed to the caller, whatever it is
                job.error = exc
            if job.then is None:
                with job.lock:
                    job.finished = True
            # Idle (or on to a queued call) before the caller hears back: its next call must
            # find this thread, not start another. A stray thread (its call's scope ended) exits.
            starts: list[_Worker] = []
            with self._lock:
                if job.scope is not None:
                    job.scope.jobs.discard(job)
                following = None
                if worker.stray:
                    self._threads -= 1
                    starts = self._fill()
                else:
                    following = self._queued.popleft() if self._queued else None
                    if following is None:
                        self._idle.append(worker)
                    else:
                        following.worker = worker
                worker.job = following
            self._start(starts)
            self._answer(job)
            if following is None and worker.stray:
                for fd in (worker.wake_r, worker.wake_w):
                    with contextlib.suppress(OSError):
                        os.close(fd)
                return
            job = following
            if job is None:
                os.read(worker.wake_r, 1)
                job = worker.job
                assert job is not None

    @staticmethod
    def _answer(job: _Job) -> None:
        """Tell ``job``'s caller its outcome (the thread that ran it), then keep nothing of it."""
        if job.then is not None:  # handed off: the thread delivers the outcome (a call given meanwhile waits)
            try:
                job.then(job.result, job.error)
            except BaseException:
                log.exception("a connector thread failed to deliver a call's outcome")
            job.result = job.error = None
        elif job.future is not None:
            assert job.loop is not None
            _settle(job.loop, job.future, job)
        else:
            os.write(job.answer_fd, b"\0")
        job.fn = _gone
        job.args = ()
        job.worker = None


def _gone(*_args: Any) -> None:
    """What a finished job holds instead of its function."""


class ConnectorBaseException(Exception):
    """Connector code raised a ``BaseException`` that is not an ``Exception``: ``SystemExit`` (a
    CLI wrapper's ``sys.exit(2)``), ``KeyboardInterrupt``, ``GeneratorExit`` or a bare one.

    Raised as it is, it would end the host's event loop (asyncio lets ``SystemExit`` and
    ``KeyboardInterrupt`` out of ``run_forever``) or a pass's conversation; as this, it is the
    call's error like any other, named by :attr:`original`'s type. Interrupts do not come this
    way: the kernel turns SIGINT into an interrupt of the pass, asyncio's runner into a
    cancellation, and ``asyncio.CancelledError`` stays itself.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


def error_name(exc: BaseException) -> str:
    """The type name a call's error is reported and journaled by."""
    return type(exc.original if isinstance(exc, ConnectorBaseException) else exc).__name__


def future_safe(exc: BaseException) -> BaseException:
    """What the caller of a connector sees of ``exc``: a StopIteration cannot cross a future, and a
    BaseException that is not an Exception is contained (:class:`ConnectorBaseException`)."""
    if isinstance(exc, StopIteration):  # a future cannot hold one (it would end the awaiting coroutine)
        return RuntimeError(f"the connector raised StopIteration: {exc}")
    if not isinstance(exc, (Exception, asyncio.CancelledError)):
        return ConnectorBaseException(exc)
    return exc


def _settle(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], job: _Job) -> None:
    def resolve() -> None:
        if future.done():  # the caller was cancelled (a timeout, an interrupt): nobody waits
            return
        if job.error is not None:
            future.set_exception(future_safe(job.error))
        else:
            future.set_result(job.result)

    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for this call any more
        loop.call_soon_threadsafe(resolve)


_shared = ConnectorThreads()


def shared() -> ConnectorThreads:
    """The process's threads for synchronous connector calls."""
    return _shared


async def invoke(fn: Callable[..., Any], *args: Any, scope: CallScope | None = None,
                 coroutine: bool | None = None) -> Any:
    """Call connector code: a coroutine function on the loop, anything else in these threads
    (belonging to ``scope``: see :meth:`ConnectorThreads.end`). ``coroutine``: whether ``fn`` is a
    coroutine function, when the caller knows already (None: asked here).

    A synchronous function that returns an awaitable (a sync wrapper around async code) has
    that awaited on the loop.
    """
    try:
        if inspect.iscoroutinefunction(fn) if coroutine is None else coroutine:
            return await fn(*args)
        result = await _shared.run(fn, *args, scope=scope)
        if inspect.isawaitable(result):
            return await result
        return result
    except (Exception, asyncio.CancelledError):
        raise
    except BaseException as exc:  # SystemExit, KeyboardInterrupt, GeneratorExit: the call's error
        raise ConnectorBaseException(exc) from exc


# -- a call's arguments, before any connector code runs (the runtime's passes and the code tool) --


class ArgumentsRefused(Exception):
    """A call's arguments are refused: :attr:`reply` answers the sandbox (an error the code can
    catch, or the ``abort`` its ``fail`` made: the pass cannot go on)."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__(reply)
        self.reply = reply


Fail = Callable[[str, str], dict[str, Any]]


def decoded_arguments(method: Method, encoded_args: Any, fail: Fail, where: str | None = None) -> dict[str, Any]:
    """The keyword arguments of a call to ``method`` from their encoded form; :class:`ArgumentsRefused`
    if they are not valid data (``fail``: the pass ends) or not keywords. ``where``: the text naming
    them in an error, when the caller has it made already (``the arguments of <method.path>``)."""
    try:
        args = codec.decode(encoded_args, where if where is not None else f"the arguments of {method.path}")
    except codec.DecodeError as exc:
        raise ArgumentsRefused(fail("CodecError", str(exc))) from None
    if not isinstance(args, dict):
        raise ArgumentsRefused({"raise": {"type": "ArgumentError",
                                          "message": f"{method.path}: arguments must be keywords"}})
    return args


def check_schema(method: Method, args: dict[str, Any], fail: Fail) -> None:
    """:class:`ArgumentsRefused` unless ``args`` fit ``method``'s input schema. A check that fails on
    the host's side (OverflowError, RecursionError, a bug) ends the pass through ``fail``."""
    refused = method.validator.problem
    if refused is not None:
        raise ArgumentsRefused({"raise": {"type": "SchemaError", "message": refused}})
    try:
        problem = method.validator.errors(args)
    except Exception as exc:
        log.warning("checking the arguments of %s failed", method.path, exc_info=True)
        raise ArgumentsRefused(fail("HostError", (
            f"the host could not check the arguments of {method.path} against its input schema "
            f"({type(exc).__name__}: {clip(str(exc))}). The connector "
            f"was not called. Pass ordinary values (see codemode.describe('{method.path}')); if they are, the "
            "connector's schema is at fault."))) from None
    if problem is not None:
        raise ArgumentsRefused({"raise": {"type": "ArgumentError", "message": (
            f"{method.path}: {problem}. The connector was not called. "
            f"See codemode.describe('{method.path}') for its arguments.")}})

