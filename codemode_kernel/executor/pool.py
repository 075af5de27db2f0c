"""Worker processes for the isolated executor: starting them, keeping some warm, reaping them.

A worker is started with :func:`worker_command` from a clean interpreter (never a fork of
the host: ``subprocess`` execs a new program) with an empty environment, ``cwd=/``, only
its three pipes (``close_fds``) and a new session. It is handed its configuration as the
first line on stdin right away, so it confines itself while it waits for a pass.

:class:`WarmPool` keeps ``size`` workers started ahead of need. Starting and reaping happen
on one pool thread: ``Popen`` occasionally takes 5-12 ms here (while other interpreters
are starting on the two cores) and must not stall the event loop in the middle of a pass.
Workers die with that thread (``PR_SET_PDEATHSIG``), so a crashed host leaves none behind.

A worker a zygote forked is reaped by the zygote, so retiring it after its pass leaves the pool
thread nothing to do until the refill is due (``Launcher.refill_after``): retired on the event
loop, the pool thread is woken then by a timer of the loop, not at once (s9_pass, issue 12).
Stamped through the runtime (``1 + 1``, 50 and 200 ms apart, 100 passes, load ~3.4), a pool
thread woken at the retire ran 170-240 us after the worker's report, inside the host's recording
of the pass in 85 of 95 and 95 of 100 passes, where it takes the GIL from the loop. Paired in one
process (two runtimes pass by pass, 150 pairs a run, 4 runs at load 1.7-3.9), the worker's report
to ``execute()`` returning: 699 -> 679, 696 -> 679, 680 -> 655, 669 -> 640 us (lower in 97, 94,
84, 97 of 150); the whole pass's wall moved within the noise.

The retire itself sits between the worker's report and the pass's end (the converse task's done
callback, ~95 us after the report and before the executor returns; s10p, executor alone 50 ms
apart, load ~6): it kills the worker and leaves the closing of our ends of its pipes to the pool
thread, which wakes for the refill anyway (``refill_after`` later). Its loop-thread CPU per pass,
6 alternating runs of 100 passes at load 6.6-9.8: 94/89/88/93/104/95 -> 57/67/67/66/61/59 us.
Tried and not kept (s10p): a take that does not wake the pool thread (it only recomputes its
deadline; a loop timer at ``refill_delay`` instead, cancelled at the retire), after a profile of
approvals at load ~7 put 5 ms of wall in the take's notify (the woken thread taking the CPU and
the GIL). Two executors pass by pass in one process, load 6.3-6.7: 50 ms apart 3.37 against 3.66
ms (faster in 74 of 150 pairs), 200 ms apart 6.69 against 7.80 (49 of 100), back to back 10.96
against 11.21 (77 of 150): no signal.

Where a spaced pass's time goes on the host (s11w, executor alone, ``1 + 1``, 50 and 200 ms apart,
60-100 passes, load ~5; each part wrapped and timed with the loop thread's CPU clock): the pass
1.92 / 1.98 ms (``benchmarks/pass_path.py``: execute() to the run line written 364-408 us, the run line
to the worker's report 926-1,401 us, the worker's own Python for it 42 us hot in one process). Of the
loop thread's CPU before the run line is written: :meth:`WarmPool.take` 63-72 us (the worker's
``alive()`` 22, the pool thread's wake 21, ``_said_something`` 5: cold code after the gap, each a few
us hot), ``isolated._Pass.__init__`` 165-180 us (``isinstance(host, LaterHost)``, a runtime-checkable
Protocol, 42 us hot for a plain function host and 18 for the runtime's handler; with ``getattr`` in its
place the constructor took 99-100 us against 133-171 in 3 of 3 runs), ``_run_line`` 40, the write 26;
after the report, :meth:`retire` 50 us (the child's SIGKILL through its pidfd 16, the refill timer 8).
A zygote's child costs 6 ms of its own CPU from fork to exit when spaced (its idle warm-up included)
and 3 ms back to back (the zygote's exit reports, 60 passes each). Nothing here was changed: the parts
of this module are each below what a paired run of whole passes resolves.

A take no longer wakes the pool thread when the refill is due later (s13p, issue 12): that wake only
had the thread compute its new deadline and sleep again, while the pass was being handed over. On
this VM (nested virtualization, idle vCPUs halted: ``haltpoll.guest_halt_poll_ns=0``) a futex wake of
a sleeping thread costs the waker ~30 us, and the woken thread then takes the GIL from the loop at
its next system call: strace of a spaced pass showed three futex wakes on the loop before the run
line was written (the notify, the GIL's two), ~12 futex calls a pass on the loop thread in all, ~3
after this change. A loop timer wakes it when the refill is due instead (the retire, which plans the
refill ``refill_after`` the pass's end, cancels it); a take in a burst (refill at once), off a loop or
before the pool thread runs still wakes it. Paired, 8 alternating rounds of 50 passes a gap per tree
(load 1.7-2.7): the loop thread's CPU per pass 200 ms apart 1,510 -> 1,379 us (lower in 7 of 8), 50 ms
apart 1,220 -> 1,049 us (6 of 8); the wall moved within the noise at that load.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from codemode_kernel.errors import ConfigurationError
from codemode_kernel.executor.worker import dumps_line

log = logging.getLogger(__name__)

#: A warm worker's replacement starts when its pass ends, or this many seconds after it
#: was handed out if the pass is still running. Starting an interpreter costs ~50 ms of
#: CPU; measured here (2 vCPUs), starting it during a pass slowed a compute loop in that
#: pass from ~85 to ~140 ms, even at low priority. Passes rarely follow each other closer
#: than a worker starts, so the replacement is ready anyway.
REFILL_DELAY = 1.0

_BOOT = "import sys; sys.path[:0] = sys.argv[1:]; from codemode_kernel.executor.{} import main; main()"


def worker_command(python: str | None = None, flags: Sequence[str] = (), module: str = "worker") -> list[str]:
    """The command line of a worker: a clean interpreter that imports only what it needs.

    ``-I`` ignores the environment and user site; ``-S`` skips site-packages, so the worker's
    ``sys.path`` is the standard library plus the two directories named here (this package
    and RestrictedPython). ``module="zygote"``: the same interpreter as a zygote.
    """
    executable = python or sys.executable
    if not executable:
        raise ConfigurationError("sys.executable is empty: pass python= to SubprocessExecutor.")
    paths = [str(Path(__file__).resolve().parents[2])]
    spec = importlib.util.find_spec("RestrictedPython")
    if spec is not None and spec.submodule_search_locations:
        paths.append(str(Path(next(iter(spec.submodule_search_locations))).parent))
    return [executable, "-I", "-S", *flags, "-c", _BOOT.format(module), *dict.fromkeys(paths)]


class EmptyRoot:
    """An empty, read-only directory the workers chroot into (one per host process)."""

    _path: str | None = None
    _lock = threading.Lock()

    @classmethod
    def get(cls) -> str:
        with cls._lock:
            if cls._path is None or not os.path.isdir(cls._path):
                cls._path = tempfile.mkdtemp(prefix="codemode-empty-root-")
                os.chmod(cls._path, 0o500)
                weakref.finalize(cls, shutil.rmtree, cls._path, True)
            return cls._path


class Process(Protocol):
    """What the executor uses of a worker process: ``subprocess.Popen`` or a zygote's child."""

    @property
    def pid(self) -> int: ...

    @property
    def stdin(self) -> IO[bytes] | None: ...

    @property
    def stdout(self) -> IO[bytes] | None: ...

    @property
    def stderr(self) -> IO[bytes] | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


class WorkerProcess:
    """One worker process, our ends of its pipes, and the bytes read from it so far."""

    def __init__(self, proc: Process) -> None:
        self.proc = proc
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.stdin_fd = proc.stdin.fileno()
        self.stdout_fd = proc.stdout.fileno()
        self.stderr_fd = proc.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)
        self.buffer = bytearray()
        self._ready: dict[str, Any] | None = None
        self.closed = False
        self.killed = False  # SIGKILL was sent: nothing more to send (kill() and close() come both)
        #: Its first line (``ready``) or its end was waiting to be read when a pass took it (WarmPool.take):
        #: the pass needs no clock for its start.
        self.said = False
        #: The loop timer that wakes the pool thread when this worker's refill is due (WarmPool.take),
        #: its callback and its loop; the retire cancels it.
        self.refill_kick: tuple[asyncio.TimerHandle, _Kick, asyncio.AbstractEventLoop] | None = None

    @property
    def ready(self) -> dict[str, Any] | None:
        """The worker's ``isolation`` report once it said ``ready`` (None before)."""
        return self._ready

    @ready.setter
    def ready(self, report: dict[str, Any] | None) -> None:
        # The report's pid is the one the host sees, whatever the worker said: a zygote's child
        # is pid 1 of its own namespace and says 0, and no worker is taken at its word.
        if report is not None:
            report["pid"] = self.pid
        self._ready = report

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        exited = getattr(self.proc, "exited", None)  # a zygote's child: its pidfd knows first
        if exited is not None:
            return not exited()
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL (thread-safe, idempotent, never signals a reaped pid).

        Sent once: a pass's worker is killed when the pass ends (isolated.py) and closed when the
        pool retires it right after, and SIGKILL cannot be caught or undone, so the second signal
        (a system call and the child's lock, on the loop, per pass) has nothing left to do."""
        if self.killed:
            return
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.killed = True

    def close(self) -> None:
        """Kill the process and close our ends of its pipes; reaping is the pool's job."""
        self.kill()
        if not self.closed:
            self.closed = True
            for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if f is not None:
                    with contextlib.suppress(OSError):
                        f.close()


def start_worker(command: Sequence[str], config: dict[str, Any]) -> WorkerProcess:
    """Start one worker and hand it its configuration."""
    proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={}, cwd="/", close_fds=True, start_new_session=True)
    try:
        worker = WorkerProcess(proc)
    except BaseException:
        proc.kill()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f is not None:
                f.close()
        proc.wait()
        raise
    # Small, into an empty pipe: never blocks. A worker that already died is reported by
    # the pass that reads its end of file (with its exit status), not here.
    with contextlib.suppress(BrokenPipeError):
        os.write(worker.stdin_fd, dumps_line(config))
    return worker


class StartDeferred(Exception):
    """Not an error: the pool should not start a worker now (a pass will ask, and be told why)."""


class Launcher(Protocol):
    """Starts worker processes for a pool (``launcher.py``: spawned, or forked by a zygote)."""

    #: Seconds a pool waits after handing out a worker before it starts the replacement (unless
    #: passes come back to back and the launcher has a ``burst``: then at once).
    refill_delay: float
    #: Seconds after a worker's pass ends that its replacement starts, if it has not yet (a
    #: launcher may leave it out: 0).
    refill_after: float
    #: Workers a pool keeps ready beyond its size while passes come faster than one refills.
    burst: int

    def start(self, config: dict[str, Any], *, for_pass: bool, warm: bool = True) -> WorkerProcess:
        """A started worker given ``config``; ``for_pass``: a pass waits for it (else a refill).

        ``warm=False``: passes come back to back, the worker should not spend CPU getting ready
        for a pass beyond what it must (a forked child skips its idle warm-up).
        """
        ...

    def close(self) -> None:
        """Stop whatever the launcher keeps running (it starts again when asked)."""
        ...


#: Seconds a pool keeps its extra workers (``Launcher.burst``) coming after a pass found its
#: worker not ready yet (passes back to back: agent loops, "Run All").
BURST_HOLD = 2.0


class WarmPool:
    """``size`` workers started ahead of need, filled and reaped by one pool thread.

    When a pass finds no worker left, or one that has not said ready yet, passes are coming
    faster than one worker refills: for :data:`BURST_HOLD` seconds the pool keeps ``burst`` more
    (a launcher that forks workers cheaply has one; spawning has none), so the next pass
    finds one ready while the one after it is being started.

    The first pass of a pool that was never filled (a runtime not warmed up) finds none too,
    but that is a cold start, not a burst (s11q, issue 12): a burst's refills skip the zygote
    child's idle warm-up, and passes spaced 50 ms apart in the 2 s after it took unwarmed
    children, kept two deep (each ~215 ms old at its take), with 170-301 copy-on-write faults
    in the pass against ~44 and code sent to report 1.43-1.85 ms against 0.75-0.93 for the
    executor alone (``benchmarks/s11q_sched.py --cold``, 6 of 6 rounds, load ~2.4).
    ``bench_runtime.pass_ms`` runs 50 passes from a cold runtime: 50 ms apart, ~3/4 of them
    fell in that burst.
    """

    def __init__(self, launcher: Launcher, config: Callable[[], dict[str, Any]], size: int) -> None:
        self.launcher = launcher
        self._config = config
        self.size = size
        self._cond = threading.Condition()
        self._idle: deque[WorkerProcess] = deque()
        self._dead: list[WorkerProcess] = []
        self._starting = 0
        self._lent = 0  # workers taken out by take_unready and not yet given back
        self._thread: threading.Thread | None = None
        self._closing = False
        self._due = 0.0  # the pool thread starts no worker before this time (monotonic)
        self._burst_until = 0.0  # keep Launcher.burst extra workers until then (monotonic)
        self._served = False  # a worker was handed out (a take that finds none after that is a burst)
        self._finalizer = weakref.finalize(self, _kill_all, self._idle, self._dead)

    def _start(self, for_pass: bool = False) -> WorkerProcess:
        with self._cond:
            bursting = time.monotonic() < self._burst_until
        return self.launcher.start(self._config(), for_pass=for_pass, warm=not bursting)

    def take(self) -> WorkerProcess:
        """A started worker: a warm one if alive, else a new one started here."""
        with self._cond:
            while self._idle:
                worker = self._idle.popleft()
                if worker.alive():
                    now = time.monotonic()
                    if worker.ready is None:
                        worker.said = _said_something(worker)
                        if not worker.said:
                            self._burst_until = now + BURST_HOLD
                    bursting = now < self._burst_until and getattr(self.launcher, "burst", 0) > 0
                    delay = 0.0 if bursting else self.launcher.refill_delay
                    self._due = now + delay
                    self._served = True
                    # A refill due later needs nothing of the pool thread now: a loop timer wakes it
                    # then (the retire cancels it; see the module's docstring, s13p).
                    loop = _running_loop() if delay > 0 and self._thread is not None and self._thread.is_alive() \
                        else None
                    if loop is None:
                        self._wake()
                    else:
                        kick = _Kick(self)
                        worker.refill_kick = (loop.call_later(delay, kick), kick, loop)
                    return worker
                worker.close()
                self._dead.append(worker)
            if self._served:  # none was left for this pass
                self._burst_until = time.monotonic() + BURST_HOLD
            # else a cold pool's first pass (none was ever started: a runtime not warmed up): not a
            # burst, and its refill is a warmed worker (s11q, issue 12: see the class's docstring)
            self._served = True
            self._wake()
        return self._start(for_pass=True)

    def retire(self, worker: WorkerProcess) -> None:
        """Kill a worker that served (or failed) its pass; the pool thread closes our ends of its pipes
        and reaps it (closing them here was ~30 us of the loop's time between the worker's report and
        the pass's end, issue 12)."""
        worker.kill()
        planned, worker.refill_kick = worker.refill_kick, None
        if planned is not None:  # the take's timer: the refill is planned below instead
            timer, kick, on = planned
            kick.drop()
            if on is _running_loop():
                timer.cancel()
        after = getattr(self.launcher, "refill_after", 0.0)
        loop = _running_loop() if after > 0 else None
        with self._cond:
            if self._closing or self._thread is None or not self._thread.is_alive():
                worker.close()  # no pool thread to do it (a retire after close())
            self._dead.append(worker)
            # The pass is over: refill now, or a moment later (Launcher.refill_after).
            self._due = min(self._due, time.monotonic() + after)
            # Corpses someone else reaps and a refill due later need nothing of the pool thread now:
            # retired on the event loop, it is woken when the refill is due, not while the host
            # records the pass (see the module's docstring).
            later = loop is not None and all(getattr(w.proc, "reaped_elsewhere", False) for w in self._dead)
            if not later:
                # Only wake a running pool thread: a retire that comes after close() must not
                # start a new one (close() reaps whatever is left).
                self._cond.notify_all()
        if later and loop is not None:
            loop.call_later(after, _Kick(self))

    def _kick(self) -> None:
        """Wake the pool thread (a refill is due)."""
        with self._cond:
            self._cond.notify_all()

    def take_unready(self) -> list[WorkerProcess]:
        """Take out the idle workers that have not been seen ready (to wait for them elsewhere)."""
        with self._cond:
            unready = [w for w in self._idle if w.ready is None]
            for worker in unready:
                self._idle.remove(worker)
            self._lent += len(unready)  # still counted as warm: the pool thread does not replace them
        return unready

    def give_back(self, worker: WorkerProcess, *, broken: bool = False) -> None:
        """Return a worker taken out with :meth:`take_unready`: handed out first, or retired if broken."""
        with self._cond:
            self._lent -= 1
            if not broken:
                self._idle.appendleft(worker)
                self._cond.notify_all()
        if broken:
            self.retire(worker)

    def fill(self, size: int | None = None) -> None:
        """Start the missing warm workers (up to ``size``, default the pool's) now, on this thread."""
        size = self.size if size is None else size
        while True:
            with self._cond:
                if len(self._idle) + self._lent >= size:
                    return
                if len(self._idle) + self._starting + self._lent >= size:
                    # Another thread is starting the missing ones: wait for them, so the
                    # caller (warm_up) finds them in the pool.
                    self._cond.wait(1.0)
                    continue
                self._starting += 1
            worker: WorkerProcess | None = None
            try:
                worker = self._start()
            except StartDeferred:
                return
            finally:
                with self._cond:
                    self._starting -= 1
                    if worker is not None:
                        self._idle.append(worker)
                    self._cond.notify_all()

    def ready_count(self) -> int:
        """Idle workers that have been seen ready."""
        with self._cond:
            return sum(1 for w in self._idle if w.ready is not None)

    def drain(self) -> None:
        """Retire the idle workers beyond the pool's size (after a fill past it)."""
        with self._cond:
            extra = [self._idle.pop() for _ in range(max(0, len(self._idle) - self.size))]
        for worker in extra:
            self.retire(worker)

    def _target(self) -> int:
        # Called with the lock held.
        burst = getattr(self.launcher, "burst", 0) if self.size else 0
        return self.size + (burst if time.monotonic() < self._burst_until else 0)

    def _wake(self) -> None:
        # Called with the lock held.
        if not self._closing and (self._thread is None or not self._thread.is_alive()):
            self._thread = threading.Thread(target=self._run, name="codemode-worker-pool", daemon=True)
            self._thread.start()
        self._cond.notify_all()

    def _run(self) -> None:
        failures = 0
        while True:
            with self._cond:
                while not self._closing and not self._dead:
                    if len(self._idle) + self._starting + self._lent < self._target():
                        delay = self._due - time.monotonic()
                        if delay <= 0:
                            break
                        self._cond.wait(min(delay, 3600.0))
                    else:
                        self._cond.wait()
                if self._closing:
                    return
                dead, self._dead[:] = list(self._dead), []
                start = (len(self._idle) + self._starting + self._lent < self._target()
                         and self._due <= time.monotonic())
                if start:
                    self._starting += 1
            if start:  # the next worker first: a pass may be waiting for it, nobody waits for a corpse
                failures = self._start_one(failures)
            for corpse in dead:
                corpse.close()
                if getattr(corpse.proc, "reaped_elsewhere", False):
                    continue  # a zygote's child: the zygote reaps it; waiting would hold up the next refill
                with contextlib.suppress(subprocess.TimeoutExpired, OSError):
                    corpse.proc.wait(timeout=5)

    def _start_one(self, failures: int) -> int:
        """Start one worker into the pool (``_starting`` was counted); the failures in a row after it."""
        worker: WorkerProcess | None = None
        deferred = False
        try:
            worker = self._start()
            failures = 0
        except StartDeferred:
            deferred = True
        except Exception:  # keep the thread alive; a pass will report the error itself
            failures += 1
            log.warning("isolated executor: could not start a warm worker", exc_info=failures == 1)
        finally:
            with self._cond:
                self._starting -= 1
                if worker is not None and self._closing:
                    self._dead.append(worker)  # started while closing: close() reaps it
                    worker.close()
                elif worker is not None:
                    self._idle.append(worker)
                    self._cond.notify_all()  # fill() may be waiting for it
                elif deferred and not self._closing:
                    self._due = float("inf")  # until a pass has asked (take() starts its own)
                elif not self._closing:
                    self._cond.wait(min(30.0, 0.5 * failures))  # back off, do not spin
        return failures

    def close(self) -> None:
        """Stop the pool thread, kill every idle and retired worker, and close the launcher."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)
        _kill_all(self._idle, self._dead)
        self.launcher.close()
        with self._cond:
            self._closing = False  # usable again: the next take() starts a new pool thread


class _Kick:
    """A loop timer's callback that wakes a pool's thread once: when the timer fires, or when the
    timer is dropped unrun. A loop that closes before the timer fires (``asyncio.run`` per pass)
    drops it, and the refill would wait for the pool thread's own deadline, the take's
    ``refill_delay``, so the next pass would find no worker ready: the dropped callback is freed at
    once (nothing else holds it), and kicks then. (A ``weakref.finalize`` on the timer did the same
    for ~3 us more a pass.)"""

    __slots__ = ("_pool",)

    def __init__(self, pool: WarmPool) -> None:
        self._pool: WarmPool | None = pool

    def __call__(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool._kick()

    def drop(self) -> None:
        """Kick nothing, ever (a timer cancelled because the refill is planned another way)."""
        self._pool = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter exit the pool may be half gone
            self()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _said_something(worker: WorkerProcess) -> bool:
    """Whether the worker's first line (``ready``) or its end is waiting to be read."""
    try:
        return bool(select.select((worker.stdout_fd,), (), (), 0)[0])
    except (OSError, ValueError):
        return True


def _kill_all(idle: deque[WorkerProcess], dead: list[WorkerProcess]) -> None:
    workers = [*idle, *dead]
    idle.clear()
    dead.clear()
    for worker in workers:
        worker.close()
    for worker in workers:
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            worker.proc.wait(timeout=5)
