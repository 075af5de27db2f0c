"""The sandbox worker: one process, one pass, then exit (DESIGN §11, issue 3).

The host (:mod:`codemode_kernel.executor.isolated`) starts this module from a clean
interpreter (``python -I -S``, empty environment, only the three pipes open, a new
session, never a fork of the host) and talks to it in strict JSON lines::

    host -> worker   {"op": "config", "parent_pid", "empty_root", "limits": {...}}
    worker -> host   {"op": "ready", "pid", "isolation": {...}}      (after confinement)
    host -> worker   {"op": "run", "code", "namespaces", "inputs", "capture_variables", "replay"}
    worker -> host   requests of executor/base.py, each answered by one host line
                     {"op": "output", "text"}                         (notifications)
                     {"op": "done", "result"?, "error"?, "variables"}  (then the worker exits)

The worker confines itself *after* importing everything the sandbox language needs and
*before* it reads the pass: resource limits, a new network namespace, an empty root
directory, no root privileges, and a seccomp filter. Each step degrades gracefully where
the OS refuses it and says so in the ``isolation`` report, which the host exposes as
``SubprocessExecutor.isolation``.

Design log (isolation of the worker):
- fork of the host, or ``multiprocessing`` with the fork/forkserver start methods:
  rejected; a fork carries the host's memory (credentials, clients) into the sandbox and
  multiprocessing pickles over its pipe.
- a zygote (a clean interpreter that forks one child per pass): would start a worker in
  ~1 ms instead of ~60 ms, but every worker would share the zygote's ASLR layout, hash
  secret and random state, and the host would need the zygote to relay exit statuses.
  Rejected for now: the warm pool hides the start-up cost for interactive use.
- containers / gVisor / Firecracker: the right answer in production, not something a
  ``pip install`` can assume; the pipe protocol lets such a runner replace this module.
- this module: ``setrlimit`` + ``unshare(CLONE_NEWNET)`` (with ``CLONE_NEWUSER`` when not
  root) + ``chroot`` into an empty directory + dropping root + a seccomp deny list. All
  are plain syscalls through ``ctypes`` (no third-party dependency), each optional.

It imports nothing from the host side of the package; keep it that way (the tests check
the worker's imports with ``python -X importtime``).
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import json
import os
import resource
import select
import signal
import struct
import sys
import time
from collections.abc import Callable, Mapping
from typing import IO, Any

NOBODY = 65534

# ---------------------------------------------------------------------------------------
# Framing (shared with the host side: one JSON document per line, UTF-8, no NaN)


def dumps_line(message: Mapping[str, Any]) -> bytes:
    """Serialize one protocol message as a strict JSON line."""
    text = _ENCODER.encode(message)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates (e.g. chr(0xD800)) have no UTF-8 form; pair what pairs and
        # replace the rest with U+FFFD rather than sending bytes the other side rejects.
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        data = text.encode("utf-8")
    return data + b"\n"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not strict JSON")


# Built once: json.dumps/json.loads with options build a new encoder/decoder per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def loads_line(line: bytes) -> Any:
    """Parse one line as strict JSON (UTF-8, no NaN/Infinity)."""
    return _DECODER.decode(line.decode("utf-8"))


# ---------------------------------------------------------------------------------------
# Confinement


class _Libc:
    """The few libc calls the standard library does not offer on Python 3.11."""

    def __init__(self) -> None:
        self.lib: Any = None
        # dlopen(NULL): the interpreter's own symbols, libc included (ctypes.util.find_library
        # would import subprocess and cost the worker ~15 ms of start-up).
        with contextlib.suppress(OSError):
            self.lib = ctypes.CDLL(None, use_errno=True)

    def call(self, name: str, *args: Any) -> str | None:
        """Call ``name``; return None on success, else a short reason."""
        fn = getattr(self.lib, name, None) if self.lib is not None else None
        if fn is None:
            return f"{name}() is not available on {os.uname().sysname}"
        if fn(*args) != 0:
            err = ctypes.get_errno()
            return f"{name}() failed: {os.strerror(err)}"
        return None


CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2


def set_parent_death_signal(libc: _Libc, parent_pid: int) -> None:
    """Die with the host: SIGKILL when the thread that started us exits (Linux only)."""
    libc.call("prctl", ctypes.c_int(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL),
              ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    if os.getppid() != parent_pid:  # the host died before prctl took effect
        os._exit(70)


def _mib(n: int) -> str:
    return f"{n / (1 << 30):g} GiB" if n >= 1 << 30 else f"{n / (1 << 20):g} MiB"


def _set_rlimits(limits: Mapping[str, Any], report: dict[str, Any]) -> None:
    wanted: list[tuple[str, int, str]] = [
        ("RLIMIT_CORE", 0, "core dumps off"),
        ("RLIMIT_FSIZE", int(limits["max_file_size"]), f"file size {limits['max_file_size']} bytes"),
        ("RLIMIT_NOFILE", int(limits["max_open_files"]), f"open files {limits['max_open_files']}"),
        ("RLIMIT_NPROC", int(limits["max_processes"]), f"processes {limits['max_processes']}"),
    ]
    cpu = limits.get("cpu_seconds")
    if cpu is not None:
        wanted.append(("RLIMIT_CPU", int(cpu), f"CPU {cpu} s"))
    memory = limits.get("max_memory_bytes")
    if memory is not None:
        wanted.append(("RLIMIT_AS", int(memory), f"address space {_mib(int(memory))}"))
    applied: list[str] = []
    for name, value, label in wanted:
        res = getattr(resource, name, None)
        if res is None:
            report["problems"].append(f"{name} is not available on this OS")
            continue
        try:
            _soft, hard = resource.getrlimit(res)
            target = value if hard == resource.RLIM_INFINITY else min(value, hard)
            # RLIMIT_CPU: the soft limit sends SIGXCPU, which the host reports by name.
            resource.setrlimit(res, (target, target + 1 if name == "RLIMIT_CPU" else target))
            applied.append(label)
        except (ValueError, OSError) as exc:
            report["problems"].append(f"{name}: {exc}")
    report["rlimits"] = ", ".join(applied)


def _isolate(libc: _Libc, config: Mapping[str, Any], report: dict[str, Any]) -> None:
    """New network namespace, empty root directory, no root privileges."""
    limits = config["limits"]
    root = os.geteuid() == 0
    in_userns = False
    if limits["network"]:
        report["network"] = "allowed (Limits.network is True)"
    else:
        flags = CLONE_NEWNET if root else CLONE_NEWUSER | CLONE_NEWNET
        problem = libc.call("unshare", ctypes.c_int(flags))
        in_userns = problem is None and not root
        if problem is None:
            import _socket  # the C module: `socket` would add ~3 ms of start-up

            try:
                names = [name for _, name in _socket.if_nameindex()]
            except OSError:
                names = []
            report["network"] = f"isolated (new network namespace; interfaces: {', '.join(names) or 'none'})"
            report["network_isolated"] = True
        else:
            report["network"] = f"NOT isolated: {problem}"
            report["problems"].append(f"network: {problem}")
    empty_root = config.get("empty_root")
    if empty_root and (root or in_userns):
        try:
            os.chroot(empty_root)
            os.chdir("/")
            report["filesystem"] = "hidden (chroot into an empty directory)"
            report["filesystem_hidden"] = True
        except OSError as exc:
            report["filesystem"] = f"visible: chroot failed: {exc.strerror}"
            report["problems"].append(report["filesystem"])
    else:
        report["filesystem"] = "visible (chroot needs root or a user namespace)"
    if root:
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            report["user"] = f"nobody ({NOBODY}), switched from root"
        except OSError as exc:
            report["user"] = f"root: could not switch to nobody: {exc.strerror}"
            report["problems"].append(report["user"])
    else:
        report["user"] = f"uid {os.getuid()}"
        if in_userns:  # all capabilities inside the new namespace: give them up after the chroot
            problem = _drop_capabilities(libc)
            report["user"] += (", no capabilities" if problem is None
                               else f", capabilities inside its own user namespace ({problem})")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities(libc: _Libc) -> str | None:
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    return libc.call("capset", ctypes.byref(header), data)


# x86_64 system call numbers the worker never needs. The filter is a deny list (an allow
# list would break with every libc/CPython change); the namespace, the chroot and the uid
# switch are the first lines, this is the second.
_DENY_ALWAYS = {
    "execve": 59, "execveat": 322, "ptrace": 101, "kill": 62, "tkill": 200, "tgkill": 234,
    "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "pidfd_open": 434, "pidfd_send_signal": 424,
    "pidfd_getfd": 438, "process_vm_readv": 310, "process_vm_writev": 311, "process_madvise": 440,
    "kcmp": 312, "creat": 85, "truncate": 76, "ftruncate": 77, "rename": 82, "renameat": 264,
    "renameat2": 316, "mkdir": 83, "mkdirat": 258, "rmdir": 84, "link": 86, "linkat": 265,
    "unlink": 87, "unlinkat": 263, "symlink": 88, "symlinkat": 266, "chmod": 90, "fchmod": 91,
    "fchmodat": 268, "fchmodat2": 452, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
    "mknod": 133, "mknodat": 259, "utime": 132, "utimes": 235, "utimensat": 280, "futimesat": 261,
    "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198,
    "fremovexattr": 199, "openat2": 437, "open_by_handle_at": 304, "name_to_handle_at": 303,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250,
    "add_key": 248, "request_key": 249, "init_module": 175, "finit_module": 313, "delete_module": 176,
    "kexec_load": 246, "kexec_file_load": 320, "reboot": 169, "swapon": 167, "swapoff": 168,
    "acct": 163, "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159,
    "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173, "personality": 135,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "quotactl": 179,
    "setrlimit": 160, "prlimit64": 302, "fanotify_init": 300, "vhangup": 153, "uselib": 134,
    "syslog": 103, "lookup_dcookie": 212, "landlock_create_ruleset": 444,
    # Other processes' memory, memory policy and futex lists; capget answers for any pid.
    "migrate_pages": 256, "move_pages": 279, "get_robust_list": 274, "capget": 125, "process_mrelease": 448,
    # System V and POSIX IPC: objects outlive the pass and are shared by every process in the
    # IPC namespace (a channel between passes, and a view of the host's segments).
    "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67, "semget": 64, "semop": 65, "semctl": 66,
    "semtimedop": 220, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "mq_open": 240,
    "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244, "mq_getsetattr": 245,
}
# Calls that name a process: allowed only on the worker itself (pid 0 or its own pid), so a
# worker can neither change another process's priority, affinity or I/O class, read its
# state, nor learn which PIDs exist (refused alike for live and unused PIDs; issue 10, 7).
# name -> (number, the argument holding the pid, (argument, the only value allowed) checks).
_SELF_ONLY: dict[str, tuple[int, int, tuple[tuple[int, int], ...]]] = {
    "getpriority": (140, 1, ((0, 0),)), "setpriority": (141, 1, ((0, 0),)),  # which == PRIO_PROCESS
    "ioprio_set": (251, 1, ((0, 1),)), "ioprio_get": (252, 1, ((0, 1),)),     # which == IOPRIO_WHO_PROCESS
    "sched_setparam": (142, 0, ()), "sched_getparam": (143, 0, ()), "sched_setscheduler": (144, 0, ()),
    "sched_getscheduler": (145, 0, ()), "sched_rr_get_interval": (148, 0, ()), "sched_setaffinity": (203, 0, ()),
    "sched_getaffinity": (204, 0, ()), "sched_setattr": (314, 0, ()), "sched_getattr": (315, 0, ()),
    "getpgid": (121, 0, ()), "getsid": (124, 0, ()),
}
# read, write, select, poll, pselect6, futex, mmap, munmap, brk, mremap, madvise, getrandom
_HOT = (0, 1, 23, 7, 270, 202, 9, 11, 12, 25, 28, 318)
_FUTEX = 202
# futex operations on priority-inheritance locks look up the TID stored in the lock word:
# ESRCH or not tells whether a process exists, and the owner's priority can be boosted.
# CPython never uses them. LOCK_PI, UNLOCK_PI, TRYLOCK_PI, WAIT_REQUEUE_PI, CMP_REQUEUE_PI, LOCK_PI2.
_FUTEX_PI_OPS = (6, 7, 8, 11, 12, 13)
_FUTEX_CMD_MASK = 0x7F  # the op without FUTEX_PRIVATE_FLAG / FUTEX_CLOCK_REALTIME
_DENY_PROCESSES = {"clone": 56, "fork": 57, "vfork": 58, "clone3": 435}
_DENY_NETWORK = {"socket": 41, "socketpair": 53}
_OPEN_FLAGS_ARG = {2: 1, 257: 2}  # open(path, flags), openat(dirfd, path, flags)
_WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND

_AUDIT_ARCH_X86_64 = 0xC000003E
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO_EPERM = 0x00050000 | 1
_RET_KILL_PROCESS = 0x80000000
_LD_W_ABS, _JEQ_K, _JSET_K, _JGE_K, _RET_K, _AND_K = 0x20, 0x15, 0x45, 0x35, 0x06, 0x54


def _self_only(nr: int, pid_arg: int, checks: tuple[tuple[int, int], ...],
               self_pid: int) -> list[tuple[int, int, int, int]]:
    """Allow syscall ``nr`` only when every check holds and its pid is 0 or ``self_pid``.

    Arguments are compared on their low 32 bits: they are C ``int``s, and the kernel
    ignores the upper half of the register for them.
    """
    body: list[tuple[int, int, int, int]] = []
    for arg, value in checks:
        body += [(_LD_W_ABS, 0, 0, 16 + 8 * arg), (_JEQ_K, 0, 0, value)]  # jf patched below
    body += [(_LD_W_ABS, 0, 0, 16 + 8 * pid_arg), (_JEQ_K, 2, 0, 0), (_JEQ_K, 1, 0, self_pid),
             (_RET_K, 0, 0, _RET_ERRNO_EPERM), (_RET_K, 0, 0, _RET_ALLOW)]
    refuse = len(body) - 2
    for i, (code, jt, _jf, k) in enumerate(body):
        if code == _JEQ_K and i < refuse - 3:  # a failed check jumps to the refusal
            body[i] = (code, jt, refuse - i - 1, k)
    return [(_JEQ_K, 0, len(body), nr), *body]


def seccomp_program(deny_processes: bool, deny_network: bool, self_pid: int = 0) -> list[tuple[int, int, int, int]]:
    """The BPF program (code, jt, jf, k) of the worker's seccomp filter (x86_64)."""
    deny = dict(_DENY_ALWAYS)
    if deny_processes:
        deny.update(_DENY_PROCESSES)
    if deny_network:
        deny.update(_DENY_NETWORK)
    prog: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, 4),                     # A = arch
        (_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, 0),                     # A = syscall number
        (_JGE_K, 0, 1, 0x40000000),               # x32 ABI: refuse
        (_RET_K, 0, 0, _RET_ERRNO_EPERM),
    ]
    # The calls a pass makes all the time are allowed first, so they skip the deny list.
    for nr in _HOT:
        if nr != _FUTEX:
            prog += [(_JEQ_K, 0, 1, nr), (_RET_K, 0, 0, _RET_ALLOW)]
            continue
        n = len(_FUTEX_PI_OPS)
        prog += [(_JEQ_K, 0, n + 4, nr), (_LD_W_ABS, 0, 0, 16 + 8 * 1), (_AND_K, 0, 0, _FUTEX_CMD_MASK)]
        prog += [(_JEQ_K, n - i, 0, op) for i, op in enumerate(_FUTEX_PI_OPS)]
        prog += [(_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_ERRNO_EPERM)]
    for nr in sorted(set(deny.values())):
        prog += [(_JEQ_K, 0, 1, nr), (_RET_K, 0, 0, _RET_ERRNO_EPERM)]
    for nr, pid_arg, checks in _SELF_ONLY.values():
        prog += _self_only(nr, pid_arg, checks, self_pid)
    # open/openat: refuse any flag that writes, creates or truncates.
    for nr, arg in _OPEN_FLAGS_ARG.items():
        prog += [
            (_JEQ_K, 0, 4, nr),
            (_LD_W_ABS, 0, 0, 16 + 8 * arg),      # low 32 bits of args[arg]
            (_JSET_K, 0, 1, _WRITE_FLAGS),
            (_RET_K, 0, 0, _RET_ERRNO_EPERM),
            (_RET_K, 0, 0, _RET_ALLOW),
        ]
    prog.append((_RET_K, 0, 0, _RET_ALLOW))
    return prog


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _install_seccomp(libc: _Libc, limits: Mapping[str, Any], report: dict[str, Any]) -> None:
    problem = libc.call("prctl", ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), ctypes.c_ulong(0),
                        ctypes.c_ulong(0), ctypes.c_ulong(0))
    machine = os.uname().machine
    if machine != "x86_64" or struct.calcsize("P") != 8:
        problem = f"the seccomp filter is written for x86_64, not {machine}"
    if problem is None:
        prog = seccomp_program(deny_processes=int(limits["max_processes"]) == 0,
                               deny_network=not limits["network"], self_pid=os.getpid())
        filters = (_SockFilter * len(prog))(*(_SockFilter(*ins) for ins in prog))
        fprog = _SockFprog(len(prog), ctypes.cast(filters, ctypes.POINTER(_SockFilter)))
        problem = libc.call("prctl", ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER),
                            ctypes.byref(fprog), ctypes.c_ulong(0), ctypes.c_ulong(0))
    if problem is None:
        what = ["exec", "signals to other processes", "calls on other processes", "file writes",
                "mounts and namespaces"]
        if int(limits["max_processes"]) == 0:
            what.insert(0, "new processes and threads")
        if not limits["network"]:
            what.insert(0, "sockets")
        report["syscalls"] = "filtered (seccomp refuses " + ", ".join(what) + ")"
        report["seccomp"] = True
    else:
        report["syscalls"] = f"not filtered: {problem}"
        report["problems"].append(f"seccomp: {problem}")


def confine(config: Mapping[str, Any]) -> dict[str, Any]:
    """Apply every confinement step this OS allows; return what was done and what was not."""
    limits = config["limits"]
    libc = _Libc()
    report: dict[str, Any] = {"network_isolated": False, "filesystem_hidden": False, "seccomp": False,
                              "problems": []}
    _set_rlimits(limits, report)
    _isolate(libc, config, report)
    _install_seccomp(libc, limits, report)
    if not limits["network"] and not report["network_isolated"] and report["seccomp"]:
        # No namespace, but the filter refuses socket(): no network all the same.
        report["network"] = "blocked (seccomp refuses sockets); " + report["network"]
        report["network_isolated"] = True
    if limits.get("require_isolation"):
        missing = []
        if not limits["network"] and not report["network_isolated"]:
            missing.append("the network cannot be dropped")
        if not report["seccomp"]:
            missing.append("system calls cannot be filtered")
        if not report["filesystem_hidden"]:
            missing.append("the file system cannot be hidden")
        if missing:
            report["refused"] = ("Limits.require_isolation is set and this system cannot confine the worker: "
                                 + "; ".join(missing) + " (" + "; ".join(report["problems"]) + "). Run on "
                                 "Linux with user namespaces and seccomp, or set require_isolation=False.")
    return report


def _preload() -> None:
    """Load, before the root directory disappears, what the modules import lazily."""
    import importlib
    import time

    importlib.import_module("_strptime")  # datetime.strptime / time.strptime import it on first use

    time.localtime()  # glibc reads /etc/localtime once and caches it
    for name in ("ascii", "latin-1", "utf-16", "utf-32", "utf-8-sig", "cp1252", "idna", "unicode-escape",
                 "raw-unicode-escape", "punycode", "cp437", "utf-7", "hex", "base64", "zlib"):
        with contextlib.suppress(LookupError):
            codecs.lookup(name)


# ---------------------------------------------------------------------------------------
# The pass


class PipeChannel:
    """The sandbox's :class:`~codemode_kernel.executor.sandbox.Channel` over the worker's pipes."""

    #: Seconds to poll for the reply before blocking. A blocked worker woken on an idle
    #: (virtual) CPU takes tens of µs to run again, as long as the whole round trip; most
    #: replies come within this window. Costs at most this much CPU per slow call.
    SPIN = 0.0003

    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self.reader = reader
        self.writer = writer
        self.fd = reader.fileno()

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.notify(message)
        # Each reply is one line and nothing else arrives meanwhile, so the buffered reader
        # holds nothing here and the fd tells whether the reply is in.
        deadline = time.perf_counter() + self.SPIN
        while not select.select((self.fd,), (), (), 0)[0] and time.perf_counter() < deadline:
            pass
        line = self.reader.readline()
        if not line:  # the host is gone or ended the pass: nothing left to do
            os._exit(0)
        reply = loads_line(line)
        if not isinstance(reply, dict):
            raise ValueError("the host sent a reply that is not a JSON object")
        return reply

    def notify(self, message: dict[str, Any]) -> None:
        self.writer.write(dumps_line(message))
        self.writer.flush()


def _trim_variables(variables: dict[str, Any], budget: int) -> dict[str, Any]:
    """Keep carried-over variables within ``budget`` characters in total (first come first)."""
    out: dict[str, Any] = {}
    used = 0
    for name, value in variables.items():
        size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
        if used + size > budget:
            continue
        out[name] = value
        used += size
    return out


def serve(config: Mapping[str, Any], reader: IO[bytes], writer: IO[bytes],
          run_pass: Callable[..., dict[str, Any]]) -> None:
    """Read one ``run`` message, run the pass, write ``done``."""
    limits = config["limits"]
    line = reader.readline()
    if not line:
        return
    message = loads_line(line)
    channel = PipeChannel(reader, writer)
    memory = limits.get("max_memory_bytes")
    hint = (f"the worker's address space is limited to {_mib(int(memory))} (Limits.max_memory_bytes="
            f"{int(memory)}). Process less data at once, or raise the limit.") if memory else ""
    # Built before the pass, so that it can still be sent when memory has run out.
    fallback = dumps_line({"op": "done", "error": {
        "type": "LimitExceeded", "message": "the pass ran out of memory (MemoryError); " + hint,
        "lineno": None, "traceback": ""}, "variables": {}})
    try:
        done = run_pass(message["code"], message["namespaces"], message.get("inputs") or {}, channel,
                        max_output_chars=int(limits["max_output_chars"]), max_calls=int(limits["max_calls"]),
                        max_result_chars=int(limits["max_result_chars"]), out_of_memory_hint=hint,
                        capture_variables=bool(message.get("capture_variables", True)),
                        replay=message.get("replay") or ())
        done.pop("logs", None)  # the host keeps the streamed output itself
        done["variables"] = _trim_variables(done.get("variables") or {}, int(limits["max_result_chars"]))
        data = dumps_line(done)
    except MemoryError:
        data = fallback
    writer.write(data)
    writer.flush()


def main() -> None:
    """Entry point of the worker process."""
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    line = reader.readline()
    if not line:
        return
    config = loads_line(line)
    libc = _Libc()
    set_parent_death_signal(libc, int(config["parent_pid"]))
    # Start-up (imports, ~50 ms of CPU) runs in the background of the pass that is running
    # now and of the host: at low priority. The pass itself gets normal priority back where
    # that is allowed (root); elsewhere it keeps the lower one.
    priority = os.getpriority(os.PRIO_PROCESS, 0)
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, min(priority + 10, 19))
    from codemode_kernel.executor.sandbox import run_pass

    _preload()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, priority)
    report = confine(config)
    report["priority"] = f"nice {os.getpriority(os.PRIO_PROCESS, 0)}"
    report["pid"] = os.getpid()
    writer.write(dumps_line({"op": "ready", "pid": os.getpid(), "isolation": report}))
    writer.flush()
    if "refused" not in report:
        serve(config, reader, writer, run_pass)
    # Skip interpreter teardown: the pass is over and nothing needs to be cleaned up.
    os._exit(0)


if __name__ == "__main__":
    main()
