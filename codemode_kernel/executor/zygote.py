"""The zygote: a clean interpreter that forks one confined, single-use worker per pass (issue 12).

Process side: this module runs in the zygote and in its children, never in the host, and
imports nothing from the host side of the package. The host side is
:mod:`codemode_kernel.executor.launcher`.

What runs where::

    host (kernel)            the launcher: control socket, one reader thread per zygote
     └─ Z   python -I -S     reads its config, imports the sandbox, unshares the network
            (empty env)      (and the user namespace when not root), makes the processes it
            forks next start a PID namespace, chroots, installs the zygote's seccomp layer,
            │                forks Z' and then only waits for it (its exit ends them all)
            └─ Z' pid 1 of A  the zygote proper: runs the warm-up (constant code of ours),
                │             then answers ``fork`` requests and reports exits
                └─ child      pid 1 of its own PID namespace B (one per pass): new session,
                              its three pipes only, random re-seeded, rlimits, nobody / no
                              capabilities, its own seccomp layer (no fork, no rlimits, no
                              user switch, no namespaces) - then it says ready, warms
                              up while idle and reads the pass.

The zygote never runs pass code, never receives code, inputs or a connector, and holds no
secret: its whole configuration is the worker limits and the empty root's path. The host
sends it nothing but ``fork`` requests that carry the three pipe ends of the next child.

Control protocol (a ``SOCK_SEQPACKET`` socket pair, one JSON document per message; file
descriptors travel as ``SCM_RIGHTS``)::

    host -> Z    {"op": "config", "parent_pid", "empty_root", "limits"}
    Z'   -> host {"op": "ready", "isolation": {...}}             (the part the zygote did)
    host -> Z'   {"op": "fork", "id", "warm"}  + [stdin, stdout, stderr] of the child
                                                 ("warm": false - it skips its idle warm-up)
    Z'   -> host {"op": "forked", "id"} + [pidfd of the child]   or {"op": "error", "id", "message"}
    Z'   -> host {"op": "exit", "id", "returncode", "cpu"}        (when the child has been reaped)

From there on the child speaks the worker protocol of ``worker.py``: confined, it says
``ready`` with ``"pid": 0`` (it is pid 1 of its own namespace; the host records the pid it sees,
``pool.WorkerProcess.ready``) and reads its pass.

Design log (how a pass gets a fresh confined process quickly):

- fork of the host (the kernel), or ``multiprocessing`` fork/forkserver: rejected; a fork
  carries the host's memory (credentials, clients) into the sandbox, and multiprocessing
  pickles over its pipe.
- a fresh ``python -I -S`` per pass (issue 3's design, still the fallback: ``zygote=False``
  and systems without pidfds): ~50-90 ms of CPU per pass, 15-18 passes/s back to back, and a
  refill that slows the pass running meanwhile on a small machine.
- a pool of long-lived workers reused across passes: rejected; a pass could leave state (a
  patched module, a thread, a file descriptor) for the next one. Single use is the promise.
- snapshot/restore of a warm process (CRIU): needs privileges and a large dependency.
- a zygote that forks children directly into its own network namespace, with the per-child
  PID namespace from ``clone(CLONE_NEWPID)`` through a raw syscall: rejected; a raw clone skips
  CPython's and glibc's fork bookkeeping (locks, thread state). Instead the zygote calls
  ``unshare(CLONE_NEWPID)`` before each ``os.fork()`` and ``setns()`` back afterwards. Going
  back needs capabilities over the zygote's own PID namespace, which an unprivileged zygote
  has only inside a namespace it created: hence Z' (pid 1 of A) under Z.
- one network namespace per child: creating and destroying network namespaces costs
  milliseconds of kernel time each and serialises on a global lock. The children share the
  zygote's (only a loopback, down) and seccomp refuses ``socket()``, so there is nothing in
  it for one pass to leave for another.
- this module: a zygote per executor, replaced when it dies, misbehaves, or has forked
  ``ZYGOTE_MAX_CHILDREN`` children (which bounds how many passes share what a fork shares).
- a child that runs its warm-up before it says ready: back to back every pass waited for a
  fork and a whole warm-up (~6 ms here). Now the zygote runs the warm-up itself before it
  forks (a child's first run then copies ~100 fewer pages), a child says ready once
  confined and warms up in slices while idle, and when passes come back to back the pool
  keeps one more child forked ahead and its children skip the warm-up.
- no warm-up in the children at all: passes 200 ms apart then pay the copy-on-write faults
  of a first run themselves (~2.5 ms instead of ~1.1 ms).
- ``os.fork()`` in Z': in each child CPython repaired threads and locks Z' never had and ran
  ``threading``'s and ``random``'s at-fork handlers, ~190 copy-on-write faults (~0.4 ms) before
  any code of ours. Z' calls glibc's ``fork()`` itself (:func:`fork`); the child reseeds ``random``.
- a child that words and encodes its own ``ready`` report and works out its pass's fixed
  messages: a ``ready`` line is the same for every child whose own steps succeed but for its
  pid and priority, so Z' encodes it once as a template (:meth:`Zygote._ready_line`; a child
  whose step failed still builds its report from what failed), and ``worker.ServePlan`` holds
  the limits, the out-of-memory hint and the out-of-memory ``done`` line. The rlimits keep the
  C ``signal`` function they set SIGXCPU with (``importlib`` at each child was ~40 faults) and
  seccomp is installed with two prepared ``prctl()`` calls (no ``ctypes`` objects made in the
  child). Copy-on-write faults per back-to-back child 583-593 -> 531-536 and the worker's CPU
  per pass 2.93 -> 2.65 ms (median of 6 alternating runs of 300 passes, load 3-6; lower in
  6 of 6 pairs). What is left in a child, by step (``getrusage`` between steps, 100 children):
  ~50 faults from the fork to its pipes in place (the first touches of the stack, the thread
  state and the interpreter's own pages), 26 re-seeding ``random``, ~50 confinement, ~50 the
  ``hello`` line (gone since, below) and the ``ready`` line, ~50 reading the pass and setting it up, ~110 compiling
  ``1 + 1`` (parse 31, RestrictedPython's checks 38, our rewrites 6, locations 16, compile 11),
  30 the globals, ~30 running and encoding the result: no step stands out, each is the
  reference counts of the objects it touches.
- the host writing each child its pid as the host sees it (``{"op": "config", "pid"}``), which
  the child read byte by byte (it must not buffer past it) before it could say ``ready``: only
  the ``ready`` report used it. A child now says pid 0 and the host writes into the report the
  pid it sees (``pool.WorkerProcess.ready``; no worker is taken at its word). Paired with the
  code before it, 6 alternating runs of 300 back-to-back passes at load ~9-10: executor alone
  back to back 3.07 -> 2.60 ms (5 of 6 pairs), faults per worker 540 -> 533 (6 of 6),
  worker CPU per pass 2.88 -> 2.65 ms (5 of 6), host 0.84 -> 0.76 ms (4 of 6).
  Through the runtime the pairs go both ways: 4 rounds gave back to back 3.39 -> 2.84 ms (4 of
  4), 50 ms apart 3.33 -> 3.34 ms; 8 later rounds (load 6-7) gave back to back 2.39 -> 2.58 ms
  and 50 ms apart 2.90 -> 3.14 ms (each faster in 2 of 8). A possible cost: the pool thread
  wrote the hello only when the host's GIL let it, which held a refill child's idle warm-up
  (~3 ms of CPU) back while the host worked on a pass; now it starts at once. Kept because it
  also closes a host bug (tests/security/test_review_confinement_host.py, its-own-pidfd: a
  failed hello write left the worker's pipes open and the zygote in use); delaying the idle
  warm-up of a refill child is the next thing to measure.
- a spaced pass's replacement forked 3 ms after the pass ends (``ZygoteLauncher.refill_after``;
  after 1 s if the pass runs on), not when its worker is handed out: forked at the take, the
  fork, the child's confinement and its idle warm-up (~4-5 ms of CPU) ran beside the pass on
  two cores. Passes that overtake the refill (a burst) still refill at once. Tried before
  through an older runtime (docs/isolation.md, third and fourth rounds: 1-3 ms after the end
  mixed, 5 ms after the take slower on a quiet machine); since then the runtime records a quiet
  pass after the sandbox's report, within ~0.6 ms of it, so a fork 3 ms on no longer meets it.
  Paired, two clean trees (f0f6f87 and it), 6 interleaved rounds of 60 passes (30 at 200 ms),
  ``1 + 1`` through CodemodeRuntime on SQLite and the executor alone (/tmp/s8/passes.py), medians
  of the rounds' medians. Load 0.2-0.6: executor alone 200 / 50 ms apart 2.46 -> 1.68 and
  2.25 -> 1.59 ms (6 of 6 each), back to back 2.80 -> 2.67 (4 of 6); through the runtime
  2.64 -> 2.33 (6 of 6), 3.72 -> 3.43 (4 of 6), 3.36 -> 3.21 ms (3 of 6). Load 1.6-2.2 (another
  engineer's benchmarks on both cores): executor alone 3.74 -> 1.70 and 2.29 -> 1.65 ms (6 of 6
  each); through the runtime 3.38 -> 2.40 (5 of 6), 4.98 -> 4.30 (4 of 6), back to back
  3.77 -> 3.18 ms (6 of 6). The loop thread's CPU per pass moved by less than the noise.
- a warm-up that ran only the code (``run_pass`` with a rehearsal channel): a child's first pass
  still touched for the first time everything around the code, reading and parsing the ``run``
  line (~5 faults), the pipe channel (~7), the output stream (~3) and its ``SIGALRM`` ticker's
  handler and timer (~20): of the ~42 copy-on-write faults a spaced ``1 + 1`` pass took after the
  take, ~35, and ~250 us of the worker's path from the run line to its code (per-step timestamps
  inside the worker, ``benchmarks/s12s_probe.py``, s12s). Each slice now goes through those steps
  (``worker.rehearse``: the line encoded and parsed, the channel made on the real pipes and never
  written to, the stream and ticker around the run), in Z' (8 rounds) and in each warmed child.
  Paired against 1749f68, 8 alternating rounds of 2 executors x 25 passes each (medians of the
  instances; load 4.6-6.5, other helpers' suites on both cores): 200 ms apart, faults after the
  take 41.5 -> 3 (8 of 8), the worker's CPU in the pass 600 -> 452 us (8 of 8), run line to report
  1,555 -> 1,000 us (6 of 8), the pass 2.74 -> 2.24 ms (5 of 8); 50 ms apart faults 41.5 -> 3 (7 of
  8), worker CPU 604 -> 446 us (5 of 8), run line to report 1,772 -> 1,544 us (4 of 8), the pass
  2.65 -> 2.99 ms (3 of 8); back to back (children forked in a burst skip the warm-up) the pass 4.17
  -> 4.89 ms (3 of 8), faults 287 -> 284: at that load the walls swing 1.5-13 ms between instances
  and resolve nothing; the faults and the worker's CPU are what the change moves. Again when the load
  fell (1749f68 against 50cf6f2, the same 8-round pairing): 200 ms apart (load 1.5-3.6) the pass 2.02
  -> 1.67 ms (6 of 8), run line to report 880 -> 666 us (8 of 8), worker CPU 649 -> 447 us (7 of 8);
  50 ms apart (load 1.0-1.5) 1.83 -> 1.70 ms (6 of 8), 890 -> 702 us (8 of 8), 638 -> 469 us (8 of 8);
  back to back (load 0.8-1.2) 4.25 -> 3.95 ms (6 of 8; the probe's /proc reads included), faults
  289 -> 286.
- Z' reading its requests and sending its replies with the control socket's own ``recvmsg``
  and ``sendmsg`` instead of ``socket.recv_fds``/``send_fds``: Z' faults per fork 113-115 ->
  121-125 (two alternating runs of 200 passes); not kept.
- re-seeding ``random`` through ``_random.Random.seed`` prepared in Z' (no Python frame of
  ``Random.seed``): 2-5 fewer faults a child, within the noise; not kept.
- rejected as still too slow to reach 2 ms per pass back to back on two cores: each fresh
  child costs ~1.2-1.5 ms of the zygote's CPU (``fork`` copying page tables, then the
  zygote's own copy-on-write faults) and ~2.5-3.7 ms in the child (half copy-on-write
  faults, half Python: confinement, the pass, the protocol), with ~1 ms of the host's.
  Bursts up to the pool's depth run at a warm pass's speed; a longer stream runs at the
  rate children can be made (docs/isolation.md, "Measured").

What the children share, and why it grants a pass nothing another pass left behind:

- memory: the zygote's pages, copy-on-write. A child's writes land in its own copies; the
  zygote never runs pass code, so what a child starts from is the same pristine image for
  every pass. No child can write into the zygote or a sibling: different processes, no
  shared mappings, ``ptrace``/``process_vm_writev`` refused, no file descriptor in common.
- the address-space layout (ASLR), glibc's stack and pointer guards, and CPython's string
  hash secret (``PYTHONHASHSEED`` is fixed at interpreter start and cached in every string,
  so a child cannot be given a new one). A pass can learn them, which only helps an
  exploit against a process it can already write to: itself. They are not secrets of the
  host (the zygote was never the host). Rotation after ``ZYGOTE_MAX_CHILDREN`` bounds how
  many passes share them.
- ``random``: re-seeded from ``os.urandom`` in every child; ``uuid.uuid4`` reads
  ``os.urandom`` each call. Neither repeats across passes.
- the network namespace (see above) and the empty root directory (read-only, empty).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import io
import json
import os
import random
import select
import signal
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from codemode_kernel.executor.confinement import (
    CLONE_NEWPID,
    CPU_LIMIT_EXIT,
    PR_SET_PDEATHSIG,
    USER_SWITCH,
    Libc,
    RlimitPlan,
    SeccompFilter,
    conclude,
    give_up_user,
    hide_filesystem,
    new_report,
    preload,
    report_user,
    set_parent_death_signal,
    unshare_network,
    unshare_pids,
)
from codemode_kernel.executor.worker import (
    ServePlan,
    announce_and_serve,
    dumps_line,
    loads_line,
    ready_message,
    rehearse,
    serve,
)

#: What the zygote's own seccomp layer lets through that a pass's layer refuses: forking a
#: child into a new PID namespace and returning, the pidfd that the host kills it with, and
#: the child's own rlimits (set after the fork).
ZYGOTE_NEEDS = ("clone", "clone3", "fork", "unshare", "setns", "pidfd_open", "setrlimit", "prlimit64")
_PROCESSES = ("clone", "clone3", "fork")


def child_layer(limits: Mapping[str, Any]) -> list[str]:
    """What a child's own seccomp layer refuses: what the zygote's allowed, and identity changes."""
    keep_forking = int(limits["max_processes"]) > 0
    return [name for name in ZYGOTE_NEEDS if not (keep_forking and name in _PROCESSES)] + list(USER_SWITCH)


MAX_MESSAGE = 1 << 16

# glibc's fork() itself, called with the GIL held (PyDLL), as os.fork() calls it.
_LIBC_FORK: Any = None
with contextlib.suppress(OSError, AttributeError):
    _LIBC_FORK = ctypes.PyDLL(None).fork  # no use_errno: a per-thread errno copy is more pages touched per fork
    _LIBC_FORK.restype = ctypes.c_int
    _LIBC_FORK.argtypes = ()


def fork() -> int:
    """Fork Z' (single-threaded) without CPython's at-fork work in the child.

    ``os.fork()`` runs, in every child, the interpreter's after-fork steps for the threads
    and locks of a multi-threaded parent and the handlers modules registered with
    ``os.register_at_fork`` (``threading`` rebuilds its thread table, ``random`` reseeds):
    ~190 copy-on-write faults and ~0.4 ms of CPU per child here, before any code of ours.
    Z' never starts a thread and holds no lock while it forks, so none of that has anything
    to repair; glibc's own fork handling still runs. What a child does need, a new seed for
    ``random``, :meth:`Zygote._child` does itself. Falls back to ``os.fork()`` where glibc's
    symbol is missing or a thread exists.
    """
    if _LIBC_FORK is None or _threads() > 1:
        return os.fork()
    pid = int(_LIBC_FORK())
    if pid < 0:  # failed (e.g. EAGAIN): os.fork() tries again and raises the OSError that says why
        return os.fork()
    return pid


def _prepared(libc: Libc, name: str, *args: int) -> Callable[[], int]:
    """``name(*args)`` from libc as a call without arguments to convert; it returns the result.

    Without errno (ctypes keeps a per-thread copy for that, more objects touched per call): on
    a failure the caller calls again through :meth:`Libc.call` for the reason.
    """
    fn = getattr(ctypes.CDLL(None), name, None) if libc.lib is not None else None
    if fn is None:
        return lambda: -1
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int] * len(args)
    values = tuple(args)
    return functools.partial(fn, *values)


def _threads() -> int:
    threading = sys.modules.get("threading")
    return threading.active_count() if threading is not None else 1

# The warm-up: constant code of ours, no pass data. A first pass in a forked process writes
# to thousands of pages it shares with the zygote (reference counts, caches), and each write
# copies a page. The zygote runs it ZYGOTE_WARM_ROUNDS times before it forks anything, so
# what every child would otherwise write once (specialised bytecode, attribute caches of
# types, interned names) is written once, into the image the children share. Each child
# then runs it again, slice by slice, while it waits for its pass (after it said ready),
# taking the copies that remain off the pass's clock; a pass that arrives meanwhile waits
# for the slice that is running at most (~1 ms), never for the rest. Children forked while
# passes come back to back skip it ("warm": false): there the pass comes before the warm-up
# could pay off, and its ~1 ms of CPU is taken from the passes and the next refill. No
# slice is JSON (the confinement suite's runner tells its probes from the warm-up that way).
WARM_UPS = (
    "1 + 1\n",
    """
values = [i * 2 for i in range(20)]
total = 0
for v in values:
    total += v
text = f"{total}: {', '.join(str(v) for v in values[:3])}"
print(text)
warm.up(n=1, items=[1.5, "two", None, {"k": (1, 2)}])
{"values": values, "text": text.upper(), "ok": total > 0 and isinstance(text, str)}
""",
)
ZYGOTE_WARM_ROUNDS = 8


class Zygote:
    """Z': forks children on request and reports how they ended."""

    def __init__(self, control: socket.socket, config: Mapping[str, Any], report: dict[str, Any], libc: Libc,
                 pid_namespace_fd: int | None, in_userns: bool, run_pass: Callable[..., dict[str, Any]],
                 layer_installed: bool) -> None:
        self.control = control
        self.config = config
        self.limits = config["limits"]
        self.report = report
        self.libc = libc
        self.pid_namespace_fd = pid_namespace_fd
        self.in_userns = in_userns
        self.run_pass = run_pass
        # Built once: every child is pid 1 of its namespace, so they all get the same filter.
        # On top of the zygote's layer a child needs only a small one of its own: refusing
        # what the zygote's layer let through (fork, namespaces, pidfds, rlimits) and every
        # change of identity. Without the zygote's layer it installs the whole policy, and
        # refuses identity changes in it too.
        self.child_filter = SeccompFilter(self.limits, self_pid=1 if pid_namespace_fd is not None else 0,
                                          layer=child_layer(self.limits) if layer_installed else None,
                                          also_deny=() if layer_installed else USER_SWITCH)
        self.rlimits = RlimitPlan(self.limits)  # the same for every child: worked out once, here
        self.serve_plan = ServePlan(config)
        self.root = os.geteuid() == 0
        self.ready = self._ready_line()
        self.children: dict[int, tuple[int, int]] = {}  # pidfd -> (request id, pid)
        # A child's ends of its pipes as Python objects, made once here on fds 0 and 1 (/dev/null
        # in Z'), where each child puts its pipes before it uses them (_child): made in every
        # child, they copied ~60 pages it shares with the zygote (issue 12).
        self.reader = _WarmingReader(io.FileIO(0, "rb", closefd=False), run_pass, ())
        self.writer = open(1, "wb", closefd=False)  # noqa: SIM115 - every child's, never closed
        self.reader.rehearsal = (self.writer, self.serve_plan)
        # The two calls around each fork, prepared once (see _fork).
        self._unshare = _prepared(libc, "unshare", CLONE_NEWPID)
        self._setns = _prepared(libc, "setns", pid_namespace_fd, CLONE_NEWPID) if pid_namespace_fd is not None else None

    def serve(self) -> None:
        """Answer fork requests and report exits until the host closes the control socket."""
        poller = select.poll()
        poller.register(self.control, select.POLLIN)
        while True:
            for fd, _events in poller.poll():
                if fd == self.control.fileno():
                    self._request(poller)
                else:
                    self._reap(poller, fd)

    def _request(self, poller: select.poll) -> None:
        message, fds, _flags, _addr = socket.recv_fds(self.control, MAX_MESSAGE, 3)
        if not message:
            os._exit(0)  # the host is gone or replaced us: our children die with us (pid 1 of A)
        request = loads_line(message)
        ident = request.get("id") if isinstance(request, dict) else None
        warm = request.get("warm", True) if isinstance(request, dict) else None
        if not (isinstance(request, dict) and request.get("op") == "fork" and type(ident) is int
                and type(warm) is bool and len(fds) == 3):
            for fd in fds:
                os.close(fd)
            raise SystemExit(f"zygote: a malformed request from the host: {message[:200]!r}")
        try:
            pid = self._fork(fds, warm)
        except OSError as exc:
            self._send({"op": "error", "id": ident, "message": f"fork failed: {exc}"})
            return
        finally:
            for fd in fds:
                os.close(fd)
        pidfd = os.pidfd_open(pid)
        self.children[pidfd] = (ident, pid)
        poller.register(pidfd, select.POLLIN)
        socket.send_fds(self.control, [b'{"op":"forked","id":%d}' % ident], [pidfd])

    def _fork(self, fds: list[int], warm: bool) -> int:
        # Everything Z' runs between two forks writes to pages it shares with the last child,
        # and each such page is copied (or at least faulted) again after every fork: this loop
        # keeps to prepared calls and preformatted replies (issue 12: ~155 -> ~95 faults a fork).
        if self.pid_namespace_fd is not None and self._unshare() != 0:
            problem = self.libc.call("unshare", ctypes.c_int(CLONE_NEWPID))  # again, for errno
            raise OSError(f"new PID namespace: {problem or 'unshare() failed'}")
        pid = fork()
        if pid == 0:
            try:
                self._child(fds, warm)
            finally:
                os._exit(70)
        if self._setns is not None and self._setns() != 0:  # the next child would land in this one's namespace: stop
            problem = self.libc.call("setns", ctypes.c_int(self.pid_namespace_fd or 0), ctypes.c_int(CLONE_NEWPID))
            sys.stderr.write(f"zygote: cannot return to its PID namespace: {problem or 'setns() failed'}\n")
            os._exit(71)
        return pid

    def _reap(self, poller: select.poll, pidfd: int) -> None:
        poller.unregister(pidfd)
        ident, pid = self.children.pop(pidfd)
        os.close(pidfd)
        _pid, status, usage = os.wait4(pid, 0)
        returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        cpu = usage.ru_utime + usage.ru_stime
        limit = self.limits.get("cpu_seconds")
        if self.pid_namespace_fd is not None and limit is not None and (
                returncode == CPU_LIMIT_EXIT or (returncode == -signal.SIGKILL and cpu >= 0.95 * int(limit))):
            # A namespace's init ends at its CPU limit by exit code (its SIGXCPU handler) or by
            # the hard limit's SIGKILL a second later (the CPU time the kernel reports here runs
            # a few percent short of the limit it enforced).
            returncode = -signal.SIGXCPU
        self.control.send(b'{"op":"exit","id":%d,"returncode":%d,"cpu":%.3f}' % (ident, returncode, cpu))

    def _send(self, message: dict[str, Any], fds: list[int] | None = None) -> None:
        data = json.dumps(message).encode()
        if fds:
            socket.send_fds(self.control, [data], fds)
        else:
            self.control.send(data)

    def _report(self, failed: Sequence[tuple[str, str]], user: str | None, seccomp: str | None) -> dict[str, Any]:
        """A child's isolation report: what the zygote did, and how the child's own steps went."""
        report = {**self.report, "problems": list(self.report["problems"])}
        self.rlimits.report(report, failed)
        report_user(report, user, root=self.root, in_userns=self.in_userns)
        self.child_filter.report(seccomp, report)
        conclude(self.limits, report)
        report["zygote"] = "forked from a clean zygote (never a fork of the host)"
        return report

    def _ready_line(self) -> bytes | None:
        """The ``ready`` line of a child whose steps all succeed, as a ``%`` template of (pid, priority, pid).

        Encoded once here: a child that built its report and encoded it touched every string of
        it, ~50 copy-on-write faults (issue 12). None if such a child would refuse to serve.
        """
        report = self._report((), None, None)
        if "refused" in report:
            return None
        pid, priority = 7_340_021_111, 7_340_022_222  # stand-ins, each found where it goes below
        line = dumps_line(ready_message(report, pid, priority)).replace(b"%", b"%%")
        if line.count(b"%d" % pid) != 2 or line.count(b"%d" % priority) != 1:
            return None
        return line.replace(b"%d" % pid, b"%d").replace(b"%d" % priority, b"%d")

    # -- in the child, after the fork
    def _child(self, fds: list[int], warm: bool) -> None:
        os.setsid()  # its own session and process group: nothing it does reaches the zygote's
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 20)  # the control socket, the namespace fd, the other children's pidfds
        random.seed()  # the zygote's generator state is every child's: draw a new seed (fork() does not)
        failed = self.rlimits.apply(namespace_init=self.pid_namespace_fd is not None)
        user = give_up_user(self.libc, in_userns=self.in_userns)
        seccomp = self.child_filter.install(self.libc)
        pid = 0  # the host fills in the pid it sees (pool.WorkerProcess.ready): no line to wait for
        if warm:
            self.reader.slices.extend(WARM_UPS)
        if self.ready is not None and not failed and user is None and seccomp is None:
            # Every step as the zygote expected: its report, encoded once (see _ready_line).
            self.writer.write(self.ready % (pid, os.getpriority(os.PRIO_PROCESS, 0), pid))
            self.writer.flush()
            serve(self.config, self.reader, self.writer, self.run_pass, self.serve_plan)
        else:
            announce_and_serve(self.config, self._report(failed, user, seccomp), pid, self.reader, self.writer,
                               self.run_pass, self.serve_plan)
        os._exit(0)


class _WarmingReader(io.BufferedReader):
    """The child's stdin: before the first line (its pass) is read, warm up while none is there.

    Each slice goes through the steps of a pass that :func:`worker.serve` takes (``worker.rehearse``:
    the ``run`` line parsed, the pipe channel made, the output stream and its ticker), on this
    reader and the child's writer, sending nothing.
    """

    def __init__(self, raw: io.FileIO, run_pass: Callable[..., dict[str, Any]], slices: Sequence[str]) -> None:
        super().__init__(raw)
        self.slices = list(slices)
        self._run_pass = run_pass
        self.rehearsal: tuple[IO[bytes], ServePlan] | None = None

    def readline(self, size: int | None = -1, /) -> bytes:
        # Nothing is buffered before the first line, so select() tells whether the pass is in.
        while self.slices and self.rehearsal is not None and not select.select((self.fileno(),), (), (), 0)[0]:
            writer, plan = self.rehearsal
            rehearse(self.slices.pop(0), self, writer, self._run_pass, plan)
        self.slices.clear()
        return super().readline(size)

    def warm_up(self, rounds: int) -> None:
        """The zygote's own warm-up (before it forks anything): every slice ``rounds`` times."""
        assert self.rehearsal is not None
        writer, plan = self.rehearsal
        for _round in range(rounds):
            for source in WARM_UPS:
                rehearse(source, self, writer, self._run_pass, plan)


def main(run_pass: Callable[..., dict[str, Any]] | None = None) -> None:
    """Entry point of the zygote process (Z), started by the launcher with the control socket as stdin.

    ``run_pass`` runs a child's pass (default: the sandbox's); the confinement suite passes
    one that runs unrestricted probes, as code would after escaping the language layer.
    """
    control = socket.socket(fileno=os.dup(0))
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # fd 0 stays taken: a later open() must not land there
    config = loads_line(control.recv(MAX_MESSAGE) or b"{}")
    libc = Libc()
    set_parent_death_signal(libc, int(config["parent_pid"]))
    if run_pass is None:
        from codemode_kernel.executor.sandbox import run_pass as sandbox_pass

        run_pass = sandbox_pass

    preload()
    limits = config["limits"]
    report = new_report()
    in_userns = unshare_network(libc, limits, report)
    privileged = os.geteuid() == 0 or in_userns
    namespace_fd = None
    layer = SeccompFilter(limits, self_pid=1, allow=ZYGOTE_NEEDS)
    if unshare_pids(libc, report, privileged=privileged):
        pid = os.fork()
        if pid:  # Z: hold nothing, wait for Z' and end as it ended (the host reaps us)
            control.close()
            hide_filesystem(config.get("empty_root"), {"problems": []}, privileged=privileged)
            layer.install(libc)
            _pid, status = os.waitpid(pid, 0)
            os._exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
        # Z' dies with Z. (Its parent is outside its PID namespace: getppid() says 0, so there
        # is no race check to make; if Z died first, the host closes the control socket.)
        libc.call("prctl", ctypes.c_int(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0),
                  ctypes.c_ulong(0), ctypes.c_ulong(0))
        # Our own PID namespace (A), opened while /proc is still there: Z' returns to it after
        # each fork. (Its pid_for_children link cannot be opened before A has a process.)
        namespace_fd = os.open("/proc/self/ns/pid", os.O_RDONLY)
    else:
        layer = SeccompFilter(limits, self_pid=0, allow=ZYGOTE_NEEDS)
    hide_filesystem(config.get("empty_root"), report, privileged=privileged)
    problem = layer.install(libc)
    if problem is not None:
        report["problems"].append(f"zygote seccomp: {problem}")
    zygote = Zygote(control, config, report, libc, namespace_fd, in_userns, run_pass, layer_installed=problem is None)
    zygote.reader.warm_up(ZYGOTE_WARM_ROUNDS)
    gc.collect()
    gc.freeze()  # what is left stays out of the collector: fewer pages copied per child
    zygote._send({"op": "ready", "isolation": report})
    zygote.serve()


if __name__ == "__main__":
    main()
