"""A broken-out worker cannot touch or count other processes (issue 10, item 7).

The confinement harness of ``test_security_confinement`` runs unrestricted probes in a process
confined exactly as a worker is. Here they aim at a *victim*: another process of the user the
worker runs as (``nobody`` when the tests run as root), the case the red team used: it changed
the victim's priority and CPU affinity and learned which PIDs exist through ``getpriority``.
After the probes, the victim's scheduling state is read from the host side and must be as before.

A probe "is blocked" when it raises; probes that try to *learn* something assert that they did,
so a refusal that gives nothing away also counts as blocked.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits
from codemode_kernel.executor.launcher import zygote_supported
from tests.security.test_security_confinement import MODES, features, probe_in

NOBODY = 65534

# Shared by the probes: a raw syscall helper (the worker could load libc the same way).
PRELUDE = """
libc = ctypes.CDLL(None, use_errno=True)
def sys_call(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) for a in args))
    if r < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return r
def exists(pid, ask):
    try:
        ask(pid)
        return 'answered'
    except OSError as exc:
        return exc.errno
def learns(ask):
    # Whether `ask` tells a live process (the victim) from a PID nobody uses.
    seen = (exists(VICTIM, ask), exists(FREE_PID, ask))
    assert seen[0] != seen[1], f'no difference: {seen}'
    return seen
"""

# probe name -> source. Each must raise inside a confined worker.
PROBES: dict[str, str] = {
    # Acting on another process.
    "setpriority-another-process": "os.setpriority(os.PRIO_PROCESS, VICTIM, 19)",
    "setpriority-every-process-of-the-user": "os.setpriority(os.PRIO_USER, 0, 19)",
    "setpriority-a-process-group": "os.setpriority(os.PRIO_PGRP, 0, 19)",
    "sched_setaffinity-another-process": "os.sched_setaffinity(VICTIM, {0})",
    "sched_setscheduler-another-process": "os.sched_setscheduler(VICTIM, os.SCHED_IDLE, os.sched_param(0))",
    "sched_setparam-another-process": "os.sched_setparam(VICTIM, os.sched_param(0))",
    "ioprio_set-another-process": "sys_call(251, 1, VICTIM, 3 << 13)",  # IOPRIO_WHO_PROCESS, class idle
    "ioprio_set-every-process-of-the-user": "sys_call(251, 3, NOBODY, 3 << 13)",  # IOPRIO_WHO_USER
    "migrate_pages-another-process": (
        "mask = ctypes.c_ulong(1)\nsys_call(256, VICTIM, 64, ctypes.addressof(mask), ctypes.addressof(mask))"),
    "move_pages-another-process": "sys_call(279, VICTIM, 0, 0, 0, 0, 0)",
    "prlimit64-another-process": (
        "buf = (ctypes.c_ulong * 2)()\nsys_call(302, VICTIM, 7, 0, ctypes.addressof(buf))\nresult = list(buf)"),
    "process_vm_readv-another-process": "sys_call(310, VICTIM, 0, 0, 0, 0, 0)",
    "kcmp-another-process": "sys_call(312, VICTIM, VICTIM, 0, 0, 0)",
    "pidfd_open-another-process": "result = sys_call(434, VICTIM, 0)",
    # Reading another process's state.
    "getpriority-of-the-host": "result = os.getpriority(os.PRIO_PROCESS, HOST_PID)",
    "sched_getaffinity-of-the-host": "result = os.sched_getaffinity(HOST_PID)",
    "sched_getscheduler-of-the-host": "result = os.sched_getscheduler(HOST_PID)",
    "sched_getparam-of-the-host": "result = os.sched_getparam(HOST_PID)",
    "ioprio_get-of-the-host": "result = sys_call(252, 1, HOST_PID)",
    "getsid-of-the-host": "result = os.getsid(HOST_PID)",
    "getpgid-of-the-host": "result = os.getpgid(HOST_PID)",
    # Learning which PIDs exist.
    "getpriority-finds-pids": "result = learns(lambda p: os.getpriority(os.PRIO_PROCESS, p))",
    "sched_getaffinity-finds-pids": "result = learns(os.sched_getaffinity)",
    "sched_getscheduler-finds-pids": "result = learns(os.sched_getscheduler)",
    "sched_rr_get_interval-finds-pids": "result = learns(os.sched_rr_get_interval)",
    "getpgid-finds-pids": "result = learns(os.getpgid)",
    "getsid-finds-pids": "result = learns(os.getsid)",
    "ioprio_get-finds-pids": "result = learns(lambda p: sys_call(252, 1, p))",
    "get_robust_list-finds-pids": (
        "head, size = ctypes.c_ulong(), ctypes.c_ulong()\n"
        "result = learns(lambda p: sys_call(274, p, ctypes.addressof(head), ctypes.addressof(size)))"),
    "capget-finds-pids": (
        "def capget(p):\n"
        "    header = (ctypes.c_uint32 * 2)(0x20080522, p)\n"
        "    data = (ctypes.c_uint32 * 6)()\n"
        "    sys_call(125, ctypes.addressof(header), ctypes.addressof(data))\n"
        "result = learns(capget)"),
    "futex-pi-lock-finds-pids": (
        "def trylock(p):\n"
        "    word = ctypes.c_uint32(p)\n"
        "    sys_call(202, ctypes.addressof(word), 8, 0, 0, 0, 0)\n"  # FUTEX_TRYLOCK_PI on a word naming p
        "result = learns(trylock)"),
    # IPC objects outlive the pass and are shared with every process in the IPC namespace.
    "shmget-leaves-a-segment": "result = sys_call(29, 0, 4096, 0o1600)\nsys_call(31, result, 0, 0)",
    "shmctl-counts-the-host-segments": "info = (ctypes.c_ulong * 16)()\nresult = sys_call(31, 0, 14, "
                                       "ctypes.addressof(info))",  # SHM_INFO, as ipcs does
    "semget-leaves-a-semaphore": "result = sys_call(64, 0, 1, 0o1600)\nsys_call(66, result, 0, 0, 0)",
    "msgget-leaves-a-queue": "result = sys_call(68, 0, 0o1600)\nsys_call(71, result, 0, 0)",
    "mq_open-leaves-a-queue": ("name = ctypes.create_string_buffer(b'codemode-probe')\n"
                               "result = sys_call(240, ctypes.addressof(name), 0o102, 0o600, 0)\n"
                               "sys_call(241, ctypes.addressof(name))"),
}

# What the worker may still do to itself (a control: the filter is not a blanket refusal).
ON_ITSELF: dict[str, str] = {
    "getpriority-of-itself": "result = os.getpriority(os.PRIO_PROCESS, 0)",
    "setpriority-of-itself": "os.setpriority(os.PRIO_PROCESS, 0, 19)\nresult = os.getpriority(os.PRIO_PROCESS, 0)",
    "sched_getaffinity-of-itself": "result = sorted(os.sched_getaffinity(0))",
    "sched_yield": "result = os.sched_yield()",
}


def _free_pid() -> int:
    """A PID no process uses right now (probed from the top of the range, where PIDs are rarely handed out)."""
    with open("/proc/sys/kernel/pid_max") as f:
        top = int(f.read())
    for pid in range(top - 1, 300, -1):
        if not os.path.exists(f"/proc/{pid}"):
            return pid
    raise AssertionError("no free pid")


def _victim_state(pid: int) -> dict[str, Any]:
    libc = ctypes.CDLL(None, use_errno=True)
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return {"nice": int(fields[16]), "policy": int(fields[38]), "affinity": sorted(os.sched_getaffinity(pid)),
            "ioprio": libc.syscall(ctypes.c_long(252), ctypes.c_long(1), ctypes.c_long(pid))}


@pytest.fixture(scope="module")
def victim() -> Iterator[int]:
    """Another process of the user a confined worker runs as (nobody when the tests run as root)."""
    as_worker: dict[str, Any] = ({"user": NOBODY, "group": NOBODY, "extra_groups": []} if os.geteuid() == 0
                                 else {})
    proc = subprocess.Popen(["sleep", "600"], **as_worker)
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module", params=MODES)
def outcome(request: pytest.FixtureRequest, victim: int, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The probes in a spawned worker and in a zygote's child (two layers of seccomp there)."""
    if request.param == "zygote" and not zygote_supported():
        pytest.skip("no zygote on this system")
    before = _victim_state(victim)
    prelude = (f"VICTIM = {victim}\nFREE_PID = {_free_pid()}\nHOST_PID = {os.getpid()}\nNOBODY = {NOBODY}\n"
               + PRELUDE)
    result = probe_in(request.param, Limits(), {name: prelude + source
                                                for name, source in {**PROBES, **ON_ITSELF}.items()},
                      tmp_path_factory.mktemp("harness"))
    result["victim_before"], result["victim_after"] = before, _victim_state(victim)
    return result


def _needs_seccomp(outcome: dict[str, Any]) -> None:
    if "seccomp" not in features(outcome["report"]):
        pytest.skip(f"no seccomp filter on this system: {outcome['report'].get('problems')}")


@pytest.mark.parametrize("probe", list(PROBES))
def test_probe_on_another_process_is_blocked(outcome: dict[str, Any], probe: str) -> None:
    """It is an error for a confined worker to act on, read or find another process."""
    _needs_seccomp(outcome)
    assert outcome["results"][probe].startswith("blocked"), outcome["results"][probe]


def test_the_victim_is_as_before(outcome: dict[str, Any]) -> None:
    """The other process's nice value, scheduling policy, CPU affinity and I/O priority did not change."""
    _needs_seccomp(outcome)
    assert outcome["victim_after"] == outcome["victim_before"]


@pytest.mark.parametrize("probe", list(ON_ITSELF))
def test_the_worker_may_still_ask_about_itself(outcome: dict[str, Any], probe: str) -> None:
    """Scheduling calls on the worker itself still work (the filter limits the target, not the call)."""
    assert outcome["results"][probe].startswith("ALLOWED"), outcome["results"][probe]
