"""Starting worker processes, host side: spawned one by one, or forked by a zygote (issue 12).

:class:`SpawnLauncher` starts each worker as a new ``python -I -S`` (issue 3's way: ~50-90 ms
of CPU each). :class:`ZygoteLauncher` asks a zygote (:mod:`codemode_kernel.executor.zygote`,
started the same clean way) to fork each worker: about a millisecond, with every promise of
docs/isolation.md kept (one confined, single-use process per pass, never a fork of the host).

The launcher keeps a zygote per executor and replaces it when it dies, breaks its protocol,
stops answering, or has forked :data:`ZYGOTE_MAX_CHILDREN` workers. A zygote that dies is
reported to the first pass that asks for a worker after it (``WorkerStartFailed`` with the
reason); the next pass gets a new zygote. A zygote being replaced stops forking at once but
lives until its last child has ended (its children die with it: they are in its PID
namespace), and until the last fork it was chosen for has given its child or failed: the
launcher reserves that fork (:meth:`ZygoteProcess.reserve`) under the lock where it retires
zygotes. Before s12z a fork still on its way did not count, so when the pool thread and a pass
started workers at once and one of them found the quota reached, the zygote was closed as idle
and the other's child died with it: the pass ended as "the zygote process ... was killed by
SIGKILL" or "the worker process was killed (SIGKILL) from outside the executor" (3 of 17 runs
of test_the_children_of_zygotes_rotated_after_their_quota_are_confined at load 7-8).

The zygote reports each child's exit as it reaps it, and a pass's worker exits as its report comes
in: read at once, that report woke the host's reader thread while the host recorded the pass, and
the thread took the GIL from the event loop (strace of a spaced pass: its recvmsg returning, then
the loop's futex calls for the GIL, between the worker's report and the pass's commit). The reader
now reads only while a message it has not read is awaited (a fork's reply, a child's exit for a
``wait()``, or for ``poll()`` once the child's pidfd says it ended), or the zygote retires or closes
(s13p, issue 12); exit reports wait in the socket meanwhile and are read with the next fork's reply,
which comes after them. A zygote that dies while nothing is read is found by the next fork (its
request cannot be sent, or the reply's wait reads the socket's end), as a death while reading was.
Paired pass by pass (two runtimes in two processes, passes alternating, 150 pairs a gap, load 3.1-4.2),
against the parent: 50 ms apart 2.13 -> 1.87 ms (median ratio 0.952, faster in 88 of 150), 200 ms apart
2.72 -> 2.41 ms (0.959, 78 of 150), back to back 2.64 -> 2.93 ms (1.059, 71 of 150; the loop thread's
CPU 838 -> 770 us): a small gain spaced, none resolved back to back.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from codemode_kernel.executor.pool import (
    REFILL_DELAY,
    Launcher,
    StartDeferred,
    WorkerProcess,
    start_worker,
    worker_command,
)

log = logging.getLogger(__name__)

#: Workers one zygote forks before it is replaced: bounds how many passes share what a fork
#: shares (the address-space layout, CPython's string hash secret). A new zygote costs
#: ~60 ms of CPU, so this adds well under 0.1 ms per pass.
ZYGOTE_MAX_CHILDREN = 1000

class WorkerStartFailed(Exception):
    """No worker could be started for a pass; the message says why and what happens next."""


def zygote_supported() -> bool:
    """Linux with pidfds (5.3+) and SCM_RIGHTS: what the zygote needs."""
    return (sys.platform == "linux" and hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal")
            and hasattr(socket, "send_fds") and hasattr(socket, "SOCK_SEQPACKET"))


def make_launcher(python: str | None = None, *, zygote: bool | None = None,
                  startup_timeout: float = 30.0) -> Launcher:
    """A zygote launcher where supported (``zygote=None``), else one that spawns each worker.

    With ``python=`` the default is to spawn: a custom command is how a worker is wrapped (a
    container runner, a test double speaking the worker protocol), and such a command must
    start per pass. ``zygote=True`` forks workers from a zygote run by that interpreter.
    """
    if zygote is None:
        zygote = python is None and zygote_supported()
    if zygote:
        return ZygoteLauncher(python, startup_timeout=startup_timeout)
    return SpawnLauncher(worker_command(python))


class SpawnLauncher:
    """Each worker a new clean interpreter (no zygote)."""

    refill_delay = REFILL_DELAY
    refill_after = 0.0
    #: No extra worker in bursts: each costs ~50 ms of CPU, taken from the passes running.
    burst = 0

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)

    def start(self, config: dict[str, Any], *, for_pass: bool, warm: bool = True) -> WorkerProcess:
        return start_worker(self.command, config)

    def close(self) -> None:
        pass


def zygote_command(python: str | None = None) -> list[str]:
    """The command line of a zygote: the worker's clean interpreter with the zygote's entry point."""
    return worker_command(python, module="zygote")


class _Pipes:
    """Three pipes for a child: its ends are sent to the zygote, ours stay here."""

    def __init__(self) -> None:
        self.stdin_r, self.stdin_w = os.pipe()
        self.stdout_r, self.stdout_w = os.pipe()
        self.stderr_r, self.stderr_w = os.pipe()

    def theirs(self) -> list[int]:
        return [self.stdin_r, self.stdout_w, self.stderr_w]

    def close_theirs(self) -> None:
        for fd in self.theirs():
            os.close(fd)

    def close_ours(self) -> None:
        for fd in (self.stdin_w, self.stdout_r, self.stderr_r):
            os.close(fd)


class ZygoteChild:
    """A worker forked by a zygote, with the parts of ``subprocess.Popen`` the executor uses."""

    #: The zygote reaps it and its reader thread records how it ended: the pool need not wait.
    reaped_elsewhere = True

    def __init__(self, pidfd: int, pipes: _Pipes,
                 want: Callable[[], contextlib.AbstractContextManager[None]] = contextlib.nullcontext,
                 ask: Callable[[], None] = lambda: None) -> None:
        self.pid = _pid_of(pidfd)
        # The zygote's reader thread reads its exit report while ``want()`` lasts (a wait), or from ``ask()`` on.
        self._want = want
        self._ask = ask
        self.args = ["<forked by the zygote>"]
        self.returncode: int | None = None
        self.stdin: IO[bytes] | None = open(pipes.stdin_w, "wb", buffering=0)  # noqa: SIM115
        self.stdout: IO[bytes] | None = open(pipes.stdout_r, "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = open(pipes.stderr_r, "rb", buffering=0)  # noqa: SIM115
        self._pidfd: int | None = pidfd
        self._lock = threading.Lock()
        self._exited = threading.Event()

    def poll(self) -> int | None:
        """How it ended, once the zygote's report is in (None before): a child its pidfd says has ended has
        the reader thread read that report, for the next call."""
        if self.returncode is None and self.exited():
            self._ask()
        return self.returncode

    def exited(self) -> bool:
        """Whether the process has ended, by its pidfd: known before the zygote's report comes in."""
        with self._lock:
            if self.returncode is not None or self._pidfd is None:
                return True
            import select

            try:
                return bool(select.select((self._pidfd,), (), (), 0)[0])
            except (OSError, ValueError):
                return True

    def wait(self, timeout: float | None = None) -> int:
        with self._want():
            exited = self._exited.wait(timeout)
        if not exited:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        """SIGKILL through the pidfd: never signals another process that reused the pid."""
        with self._lock:
            if self._pidfd is not None:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def terminate(self) -> None:
        self.kill()

    def ended(self, returncode: int) -> None:
        """The zygote reaped it (or died, taking it along)."""
        with self._lock:
            if self.returncode is None:
                self.returncode = returncode
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
        self._exited.set()

    def wait_gone(self, timeout: float) -> None:
        """Block until the process no longer runs (its pidfd turns readable), up to ``timeout``."""
        with self._lock:
            pidfd = self._pidfd
            if pidfd is not None:
                import select

                with contextlib.suppress(OSError, ValueError):
                    select.select([pidfd], [], [], timeout)


def _pid_of(pidfd: int) -> int:
    """The pid (as this process sees it) a pidfd refers to.

    Read with two plain system calls, not a text file object (its decoder and line iteration
    were ~2/3 of the ~25 us this took on the pool thread for every worker: issue 12).
    """
    fd = os.open(f"/proc/self/fdinfo/{pidfd}", os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = b"\n" + os.read(fd, 4096)
    finally:
        os.close(fd)
    start = data.find(b"\nPid:")
    if start < 0:
        raise OSError("a pidfd without a Pid line in /proc/self/fdinfo")
    end = data.find(b"\n", start + 5)
    return int(data[start + 5:end if end >= 0 else len(data)])


class ZygoteProcess:
    """One zygote: the process, its control socket, and the thread that reads it.

    The reader thread also started the process, so the zygote's parent-death signal fires
    when that thread ends, which is after the zygote has gone, or when the host dies.
    """

    def __init__(self, command: Sequence[str], config: dict[str, Any], startup_timeout: float) -> None:
        self.config_key = _config_key(config)
        self.config = copy.deepcopy(config)  # compared with each worker's config (cheaper than its key)
        self.timeout = startup_timeout
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc: subprocess.Popen[bytes] | None = None
        self.forked = 0
        self.retiring = False
        self.death: str | None = None   # why it is gone, once it is
        self.reported = False           # a pass was told
        self.report: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._fork_lock = threading.Lock()
        self._children: dict[int, ZygoteChild | None] = {}  # request id -> child (None: not forked yet)
        self._exits: dict[int, int] = {}                    # exits that came before "forked" was handled
        self._replies: dict[int, tuple[dict[str, Any], list[int]]] = {}
        self._replied = threading.Condition(self._lock)
        # The reader thread reads the control socket only while a reply or a child's exit report it has
        # not read yet is awaited (by request id: how many wait for each), or the zygote retires or is
        # closed: read eagerly, each pass's exit report woke it while the host recorded that pass
        # (s13p). Exit reports wait in the socket meanwhile, and are read at the next fork (one a
        # pass, its reply comes after them) or wait.
        self._awaited: dict[tuple[str, int], int] = {}
        self._asked: set[int] = set()  # children whose exit report ZygoteChild.poll asked for
        self._closing = False
        self._wanting = threading.Condition(self._lock)
        started = threading.Event()
        self._start_error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(list(command), theirs, started),
                                       name="codemode-zygote", daemon=True)
        self.thread.start()
        started.wait()
        theirs.close()
        if self._start_error is not None:
            raise WorkerStartFailed(f"could not start the zygote process: {self._start_error}")
        self.control.send(json.dumps(config).encode())
        reply, _fds = self._await_reply(0, startup_timeout, "to start")
        report = reply.get("isolation")
        self.report = report if isinstance(report, dict) else {}

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def dead(self) -> bool:
        return self.death is not None

    # -- forking (any thread)
    def reserve(self) -> int:
        """Count a fork to come (its request id): from now on the zygote is not ended for being idle.

        The launcher reserves a fork while it holds its lock, where it also decides to retire a
        zygote, so a zygote is never retired and closed as idle between being chosen for a
        fork and that fork (a pass's worker, killed with it: s12z)."""
        with self._lock:
            if self.death is not None:
                raise WorkerStartFailed(self.death)
            self.forked += 1
            ident = self.forked
            self._children[ident] = None
        return ident

    def fork(self, ident: int | None = None, *, warm: bool = True) -> ZygoteChild:
        """Fork a child (``warm``: it warms up while idle); ``WorkerStartFailed`` if the zygote is gone or broken.

        ``ident``: a fork counted by :meth:`reserve` (else it is counted here)."""
        with self._fork_lock:
            if ident is None:
                ident = self.reserve()
            try:
                return self._fork(ident, warm)
            except BaseException:  # no child: the fork no longer holds a retiring zygote
                self._release(ident)
                raise

    def _fork(self, ident: int, warm: bool) -> ZygoteChild:
        """:meth:`fork`'s work, for a reserved fork; the caller releases it if no child comes of it."""
        if self.death is not None:
            raise WorkerStartFailed(self.death)
        pipes = _Pipes()
        try:
            socket.send_fds(self.control, [json.dumps({"op": "fork", "id": ident, "warm": warm}).encode()],
                            pipes.theirs())
        except OSError as exc:
            pipes.close_theirs()
            pipes.close_ours()
            # Most often it has just died: its reader thread finds out how, give it a moment.
            self.close()
            self.join(5.0)
            self._poisoned(f"the zygote stopped reading requests ({exc})")
            raise WorkerStartFailed(self.death or "the zygote is gone") from None
        pipes.close_theirs()
        try:
            reply, fds = self._await_reply(ident, self.timeout, "to fork a worker")
        except WorkerStartFailed:
            pipes.close_ours()
            raise
        problem = None
        if reply.get("op") != "error":  # 'forked' must carry exactly one pidfd
            problem = (f"the zygote answered a fork with {len(fds)} descriptors instead of one pidfd"
                       if len(fds) != 1 else None)
            if problem is None:
                try:
                    child = ZygoteChild(fds[0], pipes, functools.partial(self._want, "exit", ident),
                                        functools.partial(self._ask, ident))
                except OSError as exc:
                    problem = f"the zygote answered a fork with a descriptor that is not a pidfd ({exc})"
        if reply.get("op") == "error" or problem is not None:
            for fd in fds:
                os.close(fd)
            pipes.close_ours()
            if problem is not None:  # a broken zygote: stopped, and replaced for the next pass
                self._poisoned(problem)
                raise WorkerStartFailed(self.death or problem)
            raise WorkerStartFailed(f"the zygote could not fork a worker: {str(reply.get('message'))[:300]}")
        with self._lock:
            rc = self._exits.pop(ident, None)
            if rc is None:
                self._children[ident] = child
        if rc is not None:  # it ended before we got here
            child.ended(rc)
            self._release(ident)
        return child

    def _release(self, ident: int) -> None:
        """A reserved fork that gave no child, or whose child has ended: a retiring zygote ends with its last."""
        with self._lock:
            self._children.pop(ident, None)
            done = self.retiring and not self._children
        if done:
            self.close()

    @contextlib.contextmanager
    def _want(self, kind: str, ident: int) -> Iterator[None]:
        """While this lasts, the reader thread reads the control socket until the ``kind`` (``reply`` or
        ``exit``) message of request ``ident`` is in."""
        key = (kind, ident)
        with self._lock:
            self._awaited[key] = self._awaited.get(key, 0) + 1
            self._wanting.notify_all()
        try:
            yield
        finally:
            with self._lock:
                left = self._awaited.pop(key) - 1
                if left:
                    self._awaited[key] = left

    def _ask(self, ident: int) -> None:
        """Have the reader thread read on until child ``ident``'s exit report is in (ZygoteChild.poll)."""
        with self._lock:
            if ident in self._children and ident not in self._asked:
                self._asked.add(ident)  # until the report is in (_exited)
                self._wanting.notify_all()

    def _reading(self) -> bool:
        """Whether the reader thread reads on (called with the lock held): see ``_awaited``."""
        if self._asked:
            self._asked &= self._children.keys()  # a child released another way is not waited for
        if self.retiring or self._closing or self._asked:
            return True
        for kind, ident in self._awaited:
            if ident not in self._replies if kind == "reply" else ident in self._children:
                return True
        return False

    def _await_reply(self, ident: int, timeout: float, what: str) -> tuple[dict[str, Any], list[int]]:
        deadline = time.monotonic() + timeout
        with self._want("reply", ident), self._lock:
            while ident not in self._replies and self.death is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._replied.wait(left)
            if ident in self._replies:
                return self._replies.pop(ident)
            death = self.death
        if death is None:
            self._poisoned(f"the zygote did not answer within {timeout:g} s {what} (the machine may be overloaded)")
        raise WorkerStartFailed(self.death or "the zygote is gone")

    # -- retiring
    def retire(self) -> None:
        """Fork no more; end the zygote once its last child has ended (and no fork it was chosen for is pending)."""
        with self._lock:
            self.retiring = True
            idle = not self._children  # a pending fork (None) counts: its child is a pass's worker
            self._wanting.notify_all()  # it reads each exit report now: the last child's ends it
        if idle:
            self.close()

    def close(self) -> None:
        """Close the control socket: the zygote exits, and with it every child it forked."""
        with self._lock:
            self._closing = True  # the reader reads on to the socket's end
            self._wanting.notify_all()
        with contextlib.suppress(OSError):
            self.control.shutdown(socket.SHUT_RDWR)
        if self.proc is not None:
            with contextlib.suppress(OSError):
                self.proc.kill()

    def join(self, timeout: float) -> None:
        if self.thread is not threading.current_thread():
            self.thread.join(timeout)

    def _poisoned(self, why: str) -> None:
        with self._lock:
            if self.death is None:
                self.death = why
            self._replied.notify_all()
        self.close()

    # -- the reader thread
    def _run(self, command: list[str], theirs: socket.socket, started: threading.Event) -> None:
        try:
            self.proc = subprocess.Popen(command, stdin=theirs.fileno(), stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, env={}, cwd="/", close_fds=True,
                                         start_new_session=True)
        except BaseException as exc:  # reported by __init__
            self._start_error = exc
            started.set()
            return
        started.set()
        try:
            self._read()
        except ConnectionResetError:  # it died with a request of ours unread: reported below, by how it ended
            pass
        except Exception as exc:  # a malformed message: the zygote is not to be trusted any more
            with self._lock:
                if self.death is None:
                    self.death = f"the zygote broke the protocol ({exc}) and was stopped"
        try:  # it exits by itself when the socket closes; give it a moment to say why it ended
            rc = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.close()
            rc = self.proc.wait()
        self.close()
        stderr = b""
        if self.proc.stderr is not None:
            with contextlib.suppress(OSError):
                stderr = self.proc.stderr.read()[-1500:]
            self.proc.stderr.close()
        self.control.close()
        with self._lock:
            if self.death is None:
                how = (f"was killed by {_signal_name(-rc)}" if rc < 0 else f"was killed by {_signal_name(rc - 128)}"
                       if rc > 128 else f"exited (exit code {rc})")
                tail = stderr.decode("utf-8", "replace").strip()
                self.death = (f"the zygote process (the clean interpreter that forks workers) {how}"
                              + (f"; its last words: {tail}" if tail else ""))
            children = [c for c in self._children.values() if c is not None]
            self._children.clear()
            self._replied.notify_all()
        for child in children:  # they were in its PID namespace: the kernel kills them with it
            child.wait_gone(2.0)
            child.ended(-signal.SIGKILL)

    def _read(self) -> None:
        while True:
            with self._lock:
                while not self._reading():
                    self._wanting.wait()
            data, fds, _flags, _addr = socket.recv_fds(self.control, 1 << 16, 2)
            if not data:
                for fd in fds:
                    os.close(fd)
                return
            try:
                message = json.loads(data)
                op = message["op"]
                ident = message.get("id", 0)
                if not isinstance(op, str) or type(ident) is not int:
                    raise ValueError("bad op or id")
            except (ValueError, KeyError, TypeError) as exc:
                for fd in fds:
                    os.close(fd)
                raise ValueError(f"an unreadable message: {exc}") from None
            if op == "exit":
                if fds:
                    raise ValueError("file descriptors with an exit report")
                log.debug("zygote child %s ended: returncode %s, CPU %s s", ident, message.get("returncode"),
                          message.get("cpu"))
                self._exited(ident, message.get("returncode"))
                continue
            if op not in ("ready", "forked", "error"):
                raise ValueError(f"unexpected message {op!r}")
            with self._lock:
                self._replies[ident] = (message, fds)
                self._replied.notify_all()

    def _exited(self, ident: int, returncode: Any) -> None:
        if type(returncode) is not int:
            raise ValueError("an exit report without a return code")
        with self._lock:
            if ident not in self._children:
                raise ValueError(f"an exit report for an unknown child {ident}")
            child = self._children.pop(ident)
            self._asked.discard(ident)
            if child is None:
                self._exits[ident] = returncode
                self._children[ident] = None
            done = self.retiring and not self._children
        if child is not None:
            child.ended(returncode)
        if done:
            self.close()


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def _config_key(config: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in config.items() if k != "op"}, sort_keys=True)


class ZygoteLauncher:
    """Forks every worker from a zygote; replaces a zygote that died, misbehaved or aged out."""

    #: A child forked while a pass runs takes the CPU from it (the fork, the child's confinement
    #: and its idle warm-up, ~4-5 ms of CPU on two cores): a spaced pass's replacement is forked
    #: :attr:`refill_after` its end (the host records the pass meanwhile), or this long after
    #: its worker was handed out if it runs on. Back to back (a burst) the pool refills at once.
    #: Paired runs in the zygote.py design log (s8_pass).
    refill_delay = REFILL_DELAY
    refill_after = 0.003
    #: Back to back, one more child forked ahead: a pass finds one ready while the next is forked.
    burst = 1

    def __init__(self, python: str | None = None, *, startup_timeout: float = 30.0,
                 max_children: int = ZYGOTE_MAX_CHILDREN) -> None:
        self.command = zygote_command(python)
        self.startup_timeout = startup_timeout
        self.max_children = max_children
        self._lock = threading.Lock()
        self._zygote: ZygoteProcess | None = None
        self._retired: list[ZygoteProcess] = []

    @property
    def zygote(self) -> ZygoteProcess | None:
        """The current zygote (None before the first worker, after close or a death)."""
        return self._zygote

    def start(self, config: dict[str, Any], *, for_pass: bool, warm: bool = True) -> WorkerProcess:
        zygote, ident = self._current(config, for_pass)
        try:
            child = zygote.fork(ident, warm=warm and not for_pass)
        except WorkerStartFailed as exc:
            if not zygote.dead:  # it answered, and refused (e.g. the kernel's process limit)
                raise
            with self._lock:
                if for_pass:
                    zygote.reported = True
                    if self._zygote is zygote:
                        self._zygote = None
            raise WorkerStartFailed(f"{exc}. A new zygote is started for the next pass.") from None
        # No first line for the child: its pid as the host sees it is filled in by
        # WorkerProcess.ready when it says ready (issue 12: reading that line cost a child ~26
        # copy-on-write faults and a system call a byte).
        return WorkerProcess(child)

    def _current(self, config: dict[str, Any], for_pass: bool) -> tuple[ZygoteProcess, int | None]:
        """The zygote to fork from, and the fork reserved on it (None: it died meanwhile, fork() says so).

        Chosen and reserved under the lock where another thread would retire it for its quota:
        a zygote retired between the two was closed as idle, with the fork on its way (s12z)."""
        with self._lock:
            zygote = self._zygote
            if zygote is not None and zygote.dead:
                if not zygote.reported:
                    if not for_pass:
                        raise StartDeferred("the zygote died; the next pass is told and starts a new one")
                    zygote.reported = True
                    self._zygote = None
                    raise WorkerStartFailed(f"{zygote.death}. A new zygote is started for the next pass.")
                self._zygote = zygote = None
            if zygote is not None and (zygote.forked >= self.max_children or (
                    zygote.config != config and zygote.config_key != _config_key(config))):
                self._retire(zygote)
                self._zygote = zygote = None
            if zygote is None:
                # Started under the lock: two passes at once must not start two zygotes.
                zygote = self._zygote = ZygoteProcess(self.command, config, self.startup_timeout)
            try:
                return zygote, zygote.reserve()
            except WorkerStartFailed:
                return zygote, None

    def _retire(self, zygote: ZygoteProcess) -> None:
        zygote.retire()
        self._retired = [z for z in self._retired if z.thread.is_alive()] + [zygote]

    def close(self) -> None:
        with self._lock:
            zygotes = [z for z in (self._zygote, *self._retired) if z is not None]
            self._zygote = None
            self._retired = []
        for zygote in zygotes:
            zygote.close()
        for zygote in zygotes:
            zygote.join(10)

