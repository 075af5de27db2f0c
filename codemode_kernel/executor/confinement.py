"""Confinement steps of a worker process: plain syscalls through ``ctypes``, each optional.

Process side (it runs in the worker and in the zygote, never in the host): it imports
nothing but the standard library. Every step degrades gracefully where the OS refuses it
and says so in the ``isolation`` report the host exposes as ``SubprocessExecutor.isolation``.

The steps, in the order a worker applies them (docs/isolation.md, "Confinement"):

1. :func:`set_rlimits` - core dumps off, file size, open files, processes, CPU, memory;
2. :func:`unshare_network` - a new network namespace (in a new user namespace when not root);
3. :func:`unshare_pids` - a new PID namespace for the processes forked next (zygote only:
   a process cannot enter one itself, its next child is pid 1 of it);
4. :func:`hide_filesystem` - ``chroot`` into an empty directory;
5. :func:`drop_user` - as root switch to ``nobody``; in a user namespace drop capabilities;
6. :class:`SeccompFilter` - ``no_new_privs`` and a deny list of system calls.

A spawned worker applies them all to itself (:func:`confine`). A zygote applies 2-4 once and
a seccomp layer of its own; each child it forks applies 1, 5 and 6 before it reads a pass.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import functools
import importlib
import os
import resource
import signal
import struct
from collections.abc import Iterable, Mapping
from typing import Any

NOBODY = 65534


class Libc:
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
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2


def new_report() -> dict[str, Any]:
    """An empty isolation report: nothing confined yet."""
    return {"network_isolated": False, "filesystem_hidden": False, "seccomp": False, "pid_namespace": False,
            "problems": []}


def set_parent_death_signal(libc: Libc, parent_pid: int) -> None:
    """Die with the parent: SIGKILL when the thread that started us exits (Linux only)."""
    libc.call("prctl", ctypes.c_int(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL),
              ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(70)


def mib(n: int) -> str:
    """Bytes as GiB or MiB, for messages."""
    return f"{n / (1 << 30):g} GiB" if n >= 1 << 30 else f"{n / (1 << 20):g} MiB"


def set_rlimits(limits: Mapping[str, Any], report: dict[str, Any], *, namespace_init: bool = False) -> None:
    """Lower the resource limits of this process (inherited by nothing: it forks no more).

    ``namespace_init``: this process is pid 1 of a PID namespace. The kernel does not deliver
    SIGXCPU to a namespace's init unless it has a handler: it gets one that exits with
    :data:`CPU_LIMIT_EXIT`, and the hard limit (a second later) kills it where a long C call
    keeps the handler from running. The zygote reports both as SIGXCPU.
    """
    apply_rlimits(RlimitPlan(limits), report, namespace_init=namespace_init)


class RlimitPlan:
    """The limits to set, worked out once (a zygote plans them for every child it forks).

    :meth:`apply` does the work and :meth:`report` says what it did, so that a child whose
    limits all took can skip the report (a zygote's child: issue 12).
    """

    def __init__(self, limits: Mapping[str, Any]) -> None:
        wanted: list[tuple[str, int, str]] = [
            ("RLIMIT_CORE", 0, "core dumps off"),
            ("RLIMIT_FSIZE", int(limits["max_file_size"]), f"file size {limits['max_file_size']} bytes"),
            ("RLIMIT_NOFILE", int(limits["max_open_files"]), f"open files {limits['max_open_files']}"),
            ("RLIMIT_NPROC", int(limits["max_processes"]), f"processes {limits['max_processes']}"),
        ]
        cpu = limits.get("cpu_seconds")
        self.cpu = cpu is not None
        if cpu is not None:
            wanted.append(("RLIMIT_CPU", int(cpu), f"CPU {cpu} s"))
        memory = limits.get("max_memory_bytes")
        if memory is not None:
            wanted.append(("RLIMIT_AS", int(memory), f"address space {mib(int(memory))}"))
        #: (name, resource, (soft, hard), label, why it cannot be set or None)
        self.steps: list[tuple[str, int, tuple[int, int], str, str | None]] = []
        for name, value, label in wanted:
            res = getattr(resource, name, None)
            if res is None:
                self.steps.append((name, -1, (0, 0), label, f"{name} is not available on this OS"))
                continue
            try:
                _soft, hard = resource.getrlimit(res)
            except (ValueError, OSError) as exc:
                self.steps.append((name, -1, (0, 0), label, f"{name}: {exc}"))
                continue
            target = value if hard == resource.RLIM_INFINITY else min(value, hard)
            # RLIMIT_CPU: the soft limit sends SIGXCPU, which the host reports by name.
            self.steps.append((name, res, (target, target + 1 if name == "RLIMIT_CPU" else target), label, None))
        self._settable = tuple((name, res, values) for name, res, values, _label, problem in self.steps
                               if problem is None)
        # The C function under signal.signal, looked up here: signal.signal's enum conversions, and
        # importlib's lookup, would copy pages a zygote's child shares with the zygote (issue 12).
        self._set_handler = importlib.import_module("_signal").signal
        self._sigxcpu = int(signal.SIGXCPU)

    def apply(self, *, namespace_init: bool = False) -> list[tuple[str, str]]:
        """Set the limits on this process; the ones that could not be set, as (name, why)."""
        if namespace_init and self.cpu:
            self._set_handler(self._sigxcpu, _cpu_limit_reached)
        failed: list[tuple[str, str]] = []
        for name, res, values in self._settable:
            try:
                resource.setrlimit(res, values)
            except (ValueError, OSError) as exc:
                failed.append((name, str(exc)))
        return failed

    def report(self, report: dict[str, Any], failed: Iterable[tuple[str, str]] = ()) -> None:
        """Say in ``report`` what :meth:`apply` did, given what it could not set."""
        not_set = dict(failed)
        applied: list[str] = []
        for name, _res, _values, label, problem in self.steps:
            if problem is not None:
                report["problems"].append(problem)
            elif name in not_set:
                report["problems"].append(f"{name}: {not_set[name]}")
                report.setdefault("rlimits_refused", []).append(name)
            else:
                applied.append(label)
        report["rlimits"] = ", ".join(applied)


def apply_rlimits(plan: RlimitPlan, report: dict[str, Any], *, namespace_init: bool = False) -> None:
    """Set the limits of ``plan`` on this process; say in ``report`` what was applied and what not."""
    plan.report(report, plan.apply(namespace_init=namespace_init))


#: How a namespace's init ends when its CPU limit is reached (128 + SIGXCPU, as a shell says it).
CPU_LIMIT_EXIT = 128 + signal.SIGXCPU


def _cpu_limit_reached(signum: int, frame: Any) -> None:
    os._exit(CPU_LIMIT_EXIT)  # not an exception: the pass cannot catch it


def unshare_network(libc: Libc, limits: Mapping[str, Any], report: dict[str, Any]) -> bool:
    """A new network namespace (only a loopback, down); True if we are now in a user namespace."""
    if limits["network"]:
        report["network"] = "allowed (Limits.network is True)"
        return False
    root = os.geteuid() == 0
    flags = CLONE_NEWNET if root else CLONE_NEWUSER | CLONE_NEWNET
    problem = libc.call("unshare", ctypes.c_int(flags))
    if problem is not None:
        report["network"] = f"NOT isolated: {problem}"
        report["problems"].append(f"network: {problem}")
        return False
    import _socket  # the C module: `socket` would add ~3 ms of start-up

    try:
        names = [name for _, name in _socket.if_nameindex()]
    except OSError:
        names = []
    report["network"] = f"isolated (new network namespace; interfaces: {', '.join(names) or 'none'})"
    report["network_isolated"] = True
    return not root


def unshare_pids(libc: Libc, report: dict[str, Any], *, privileged: bool) -> bool:
    """Make the processes this one forks next start a new PID namespace (and a new IPC one).

    ``privileged``: root, or all capabilities inside a new user namespace (needed here).
    """
    problem = (libc.call("unshare", ctypes.c_int(CLONE_NEWPID | CLONE_NEWIPC)) if privileged
               else "a PID namespace needs root or a user namespace")
    if problem is None:
        report["pid_namespace"] = True
        report["pids"] = "isolated (own PID namespace: the worker is pid 1 and sees no other process)"
        return True
    report["pids"] = f"shared with the host: {problem}"
    report["problems"].append(f"pids: {problem}")
    return False


def hide_filesystem(empty_root: str | None, report: dict[str, Any], *, privileged: bool) -> None:
    """``chroot`` into an empty directory (root, or inside a new user namespace)."""
    if not (empty_root and privileged):
        report["filesystem"] = "visible (chroot needs root or a user namespace)"
        return
    try:
        os.chroot(empty_root)
        os.chdir("/")
        report["filesystem"] = "hidden (chroot into an empty directory)"
        report["filesystem_hidden"] = True
    except OSError as exc:
        report["filesystem"] = f"visible: chroot failed: {exc.strerror}"
        report["problems"].append(report["filesystem"])


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def give_up_user(libc: Libc, *, in_userns: bool) -> str | None:
    """As root, become ``nobody``; inside our own user namespace, give up every capability.

    Returns None, or why it could not be done (:func:`report_user` words it for the report).
    """
    if os.geteuid() == 0 and not in_userns:
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        except OSError as exc:
            return exc.strerror or str(exc)
        return None
    if in_userns:  # all capabilities inside the new namespace: give them up after the chroot
        header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
        return libc.call("capset", ctypes.byref(header), (_CapData * 2)())
    return None


def report_user(report: dict[str, Any], problem: str | None, *, root: bool, in_userns: bool) -> None:
    """Say in ``report`` what :func:`give_up_user` did (``root``: the process was root before it)."""
    if root and not in_userns:
        if problem is None:
            report["user"] = f"nobody ({NOBODY}), switched from root"
        else:
            report["user"] = f"root: could not switch to nobody: {problem}"
            report["problems"].append(report["user"])
            report["privileges_kept"] = True
        return
    report["user"] = f"uid {os.getuid()}"
    if in_userns:
        report["user"] += (", no capabilities" if problem is None
                           else f", capabilities inside its own user namespace ({problem})")
        if problem is not None:
            report["privileges_kept"] = True


def drop_user(libc: Libc, report: dict[str, Any], *, in_userns: bool) -> None:
    """As root, become ``nobody``; inside our own user namespace, give up every capability."""
    root = os.geteuid() == 0
    report_user(report, give_up_user(libc, in_userns=in_userns), root=root, in_userns=in_userns)


# x86_64 system call numbers a worker never needs. The filter is a deny list (an allow
# list would break with every libc/CPython change); the namespaces, the chroot and the uid
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
# Changing identity: a forked child refuses these once it has dropped root (its own layer).
USER_SWITCH = {"setuid": 105, "setgid": 106, "setreuid": 113, "setregid": 114, "setgroups": 116,
               "setresuid": 117, "setresgid": 119, "setfsuid": 122, "setfsgid": 123, "capset": 126}
_DENY_NETWORK = {"socket": 41, "socketpair": 53}
_NUMBERS = {**_DENY_ALWAYS, **_DENY_PROCESSES, **_DENY_NETWORK, **USER_SWITCH}
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


def _check_arch() -> list[tuple[int, int, int, int]]:
    return [
        (_LD_W_ABS, 0, 0, 4),                     # A = arch
        (_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, 0),                     # A = syscall number
        (_JGE_K, 0, 1, 0x40000000),               # x32 ABI: refuse
        (_RET_K, 0, 0, _RET_ERRNO_EPERM),
    ]


def layer_program(names: Iterable[str]) -> list[tuple[int, int, int, int]]:
    """A filter that refuses exactly ``names`` (a layer on top of a filter already installed)."""
    prog = _check_arch()
    for nr in sorted({_NUMBERS[name] for name in names}):
        prog += [(_JEQ_K, 0, 1, nr), (_RET_K, 0, 0, _RET_ERRNO_EPERM)]
    prog.append((_RET_K, 0, 0, _RET_ALLOW))
    return prog


def seccomp_program(deny_processes: bool, deny_network: bool, self_pid: int = 0,
                    allow: Iterable[str] = (), also_deny: Iterable[str] = ()) -> list[tuple[int, int, int, int]]:
    """The BPF program (code, jt, jf, k) of a seccomp filter (x86_64).

    ``allow`` names calls of the deny list this filter lets through (the zygote's layer
    keeps what forking a child needs; the child's own layer refuses them again); ``also_deny``
    names more calls it refuses (a zygote's child without the zygote's layer: identity changes).
    """
    deny = dict(_DENY_ALWAYS)
    deny.update({name: _NUMBERS[name] for name in also_deny})
    if deny_processes:
        deny.update(_DENY_PROCESSES)
    if deny_network:
        deny.update(_DENY_NETWORK)
    for name in allow:
        deny.pop(name, None)
    prog = _check_arch()
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


class SeccompFilter:
    """A seccomp filter built once (a zygote builds its children's before it forks them).

    ``layer``: instead of the whole policy, refuse only these calls, on top of a filter
    this process already has (a zygote's child adds its own layer to the zygote's).
    """

    def __init__(self, limits: Mapping[str, Any], *, self_pid: int, allow: Iterable[str] = (),
                 layer: Iterable[str] | None = None, also_deny: Iterable[str] = ()) -> None:
        self.deny_processes = int(limits["max_processes"]) == 0
        self.deny_network = not limits["network"]
        machine = os.uname().machine
        self.problem: str | None = None
        if machine != "x86_64" or struct.calcsize("P") != 8:
            self.problem = f"the seccomp filter is written for x86_64, not {machine}"
            return
        prog = (seccomp_program(self.deny_processes, self.deny_network, self_pid, allow, also_deny) if layer is None
                else layer_program(layer))
        self._filters = (_SockFilter * len(prog))(*(_SockFilter(*ins) for ins in prog))
        self._fprog = _SockFprog(len(prog), ctypes.cast(self._filters, ctypes.POINTER(_SockFilter)))
        # The two prctl() calls with their arguments converted once: a zygote's child installs
        # the filter with two C calls and no ctypes objects made (each made one copies pages it
        # shares with the zygote: issue 12). On a failure, install() asks again for the reason.
        self._calls: tuple[Any, ...] = ()
        with contextlib.suppress(OSError, AttributeError):
            prctl = ctypes.CDLL(None).prctl  # no use_errno: its per-thread copy is more pages touched
            prctl.restype = ctypes.c_int
            prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
            self._calls = (functools.partial(prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
                           functools.partial(prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                                             ctypes.addressof(self._fprog), 0, 0))

    def install(self, libc: Libc) -> str | None:
        """Apply it to this process (and whatever it forks later); None, or why not."""
        if self.problem is not None:
            return self.problem
        if self._calls and all(call() == 0 for call in self._calls):
            return None
        problem = libc.call("prctl", ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), ctypes.c_ulong(0),
                            ctypes.c_ulong(0), ctypes.c_ulong(0))
        if problem is None:
            problem = libc.call("prctl", ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER),
                                ctypes.byref(self._fprog), ctypes.c_ulong(0), ctypes.c_ulong(0))
        return problem

    def report(self, problem: str | None, report: dict[str, Any]) -> None:
        """Say in ``report`` what :meth:`install` did."""
        if problem is None:
            what = ["exec", "signals to other processes", "calls on other processes", "file writes",
                    "mounts and namespaces"]
            if self.deny_processes:
                what.insert(0, "new processes and threads")
            if self.deny_network:
                what.insert(0, "sockets")
            report["syscalls"] = "filtered (seccomp refuses " + ", ".join(what) + ")"
            report["seccomp"] = True
        else:
            report["syscalls"] = f"not filtered: {problem}"
            report["problems"].append(f"seccomp: {problem}")


def conclude(limits: Mapping[str, Any], report: dict[str, Any]) -> None:
    """The verdict once every step ran: the network by seccomp alone, and ``require_isolation``."""
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
        if report.get("privileges_kept"):
            missing.append("the worker cannot give up its privileges")
        if report.get("rlimits_refused"):
            missing.append("the kernel refused the limits " + ", ".join(report["rlimits_refused"]))
        if missing:
            report["refused"] = ("Limits.require_isolation is set and this system cannot confine the worker: "
                                 + "; ".join(missing) + " (" + "; ".join(report["problems"]) + "). Run on "
                                 "Linux with user namespaces and seccomp, or set require_isolation=False.")


def confine(config: Mapping[str, Any]) -> dict[str, Any]:
    """Apply every step to this process (a spawned worker); return what was done and what was not."""
    limits = config["limits"]
    libc = Libc()
    report = new_report()
    set_rlimits(limits, report)
    root = os.geteuid() == 0
    in_userns = unshare_network(libc, limits, report)
    # A process cannot move itself into a new PID namespace; only a zygote's children get one.
    report["pids"] = "shared with the host (a spawned worker; seccomp refuses calls on other processes)"
    hide_filesystem(config.get("empty_root"), report, privileged=root or in_userns)
    drop_user(libc, report, in_userns=in_userns)
    seccomp = SeccompFilter(limits, self_pid=os.getpid())
    seccomp.report(seccomp.install(libc), report)
    conclude(limits, report)
    return report


def preload() -> None:
    """Load, before the root directory disappears, what the modules import lazily."""
    import importlib
    import time

    importlib.import_module("_strptime")  # datetime.strptime / time.strptime import it on first use
    # collections.Counter.most_common(n) (and statistics.mode through it) imports it on each call;
    # loaded here it stays out of the sandbox's reach all the same (not allow-listed, no attribute
    # of an allowed module; review 14x H6). Its import costs ~0.4 ms (python -X importtime, cold), paid
    # once by the zygote and by each spawned worker; bench_executor's start and pass figures, paired
    # against 9258742 (8-10 alternating rounds, load 1-4.3, and under 2 busy loops): the spawned
    # worker's start 1.006-1.048x, the zygote's fork 0.97-1.15x, passes 50 / 200 ms apart 0.94-1.09x /
    # 0.91-0.97x: the fork and pass ratios swing both ways from run to run (none resolved).
    importlib.import_module("heapq")

    time.localtime()  # glibc reads /etc/localtime once and caches it
    for name in ("ascii", "latin-1", "utf-16", "utf-32", "utf-8-sig", "cp1252", "idna", "unicode-escape",
                 "raw-unicode-escape", "punycode", "cp437", "utf-7", "hex", "base64", "zlib"):
        with contextlib.suppress(LookupError):
            codecs.lookup(name)
