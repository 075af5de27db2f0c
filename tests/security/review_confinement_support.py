"""A zygote whose children run unrestricted probes, and a host that looks at them from outside.

Used by the ``test_review_confinement_*`` specs (a review of the confinement path of issue 12).
The zygote is the real one (``zygote.main``): only its ``run_pass`` is replaced by
:data:`PROBE_PASS`, which runs as code would after escaping the language layer. While that
"pass" runs, it asks the host (one ``probe.look`` call) to read its ``/proc`` entries from
outside: what the kernel says about the process at the moment pass code runs, not what the
process says about itself.

``faults`` injects a fault into the zygote's process before ``zygote.main`` runs, so that a
confinement step of a child really fails (the kernel refuses it), as on a less capable OS:

- ``"built-report"``: no ``ready`` template, every child builds its report step by step;
- ``"bad-layer"``: the child's seccomp layer is a program the kernel refuses (EINVAL);
- ``"zygote-layer-refused"``: the zygote's own seccomp layer is refused (simulated: its
  ``install`` says what the kernel says for a bad program), so each child installs the whole policy;
- ``"cpu-hard=N"``: the zygote's hard RLIMIT_CPU is N, so a child cannot set (N, N + 1)
  without CAP_SYS_RESOURCE (pair it with ``drop_caps=("sys_resource",)``).

``drop_caps`` removes capabilities from the zygote's bounding set with ``setpriv`` (root
only): the kernel then refuses the child what needs them.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.pool import EmptyRoot, worker_command

PROBE_PASS = r'''
import ctypes, hashlib, json, os, random, resource, socket, sys, threading, traceback, uuid
FAULTS = __FAULTS__
sys.path[:0] = sys.argv[1:]
from codemode_kernel.executor import confinement, zygote

_child = zygote.Zygote._child


def _child_telling(self, fds, warm):
    try:
        _child(self, fds, warm)
    except BaseException:
        os.write(2, traceback.format_exc().encode())
        raise


zygote.Zygote._child = _child_telling
for fault in FAULTS:
    if fault == "built-report":
        zygote.Zygote._ready_line = lambda self: None
    elif fault == "bad-layer":
        confinement.layer_program = lambda names: [(0xFFFF, 0, 0, 0)]  # no such BPF instruction
    elif fault == "zygote-layer-refused":  # as if the kernel refused the zygote's own layer (simulated)
        _init, _install = confinement.SeccompFilter.__init__, confinement.SeccompFilter.install

        def _init_noting(self, limits, *, self_pid, allow=(), layer=None, **more):
            allow = tuple(allow)
            _init(self, limits, self_pid=self_pid, allow=allow, layer=layer, **more)
            self.zygote_layer = bool(allow)

        def _install_refused(self, libc):
            return "prctl() failed: Invalid argument" if self.zygote_layer else _install(self, libc)

        confinement.SeccompFilter.__init__ = _init_noting
        confinement.SeccompFilter.install = _install_refused
    elif fault.startswith("cpu-hard="):
        n = int(fault.split("=")[1])
        resource.setrlimit(resource.RLIMIT_CPU, (n, n))


def attempt(source, scope):
    try:
        exec(source, scope)
        return "ALLOWED: " + repr(scope.get("result"))[:200]
    except BaseException as exc:
        return "blocked: " + type(exc).__name__ + ": " + str(exc)[:200]


def the_zygote():
    """Z's Zygote object, from the frames of this child (its copy, after the fork)."""
    frame = sys._getframe()
    while frame is not None:
        candidate = frame.f_locals.get("self")
        if type(candidate).__name__ == "Zygote":
            return candidate
        frame = frame.f_back
    return None


def prepared(z):
    """A digest of everything Z' prepared once for its children, as this child's copy holds it."""
    f = z.child_filter
    parts = [z.ready, sorted(vars(z.serve_plan).items()), z.rlimits.steps, z.rlimits._settable,
             json.dumps(z.report, sort_keys=True), zygote.WARM_UPS, len(f._calls),
             bytes(f._filters) if hasattr(f, "_filters") else b"", z.config]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def mutate(z):
    """Everything a pass could change in its copy of what Z' prepared."""
    z.ready = b'{"op":"ready","pid":%d,"isolation":{"left-by-a-pass":%d,"pid":%d}}\n'
    z.serve_plan.max_calls = 0
    z.serve_plan.hint = "left by a pass"
    z.serve_plan.fallback = b"left by a pass\n"
    z.rlimits._settable = ()
    z.rlimits.steps.clear()
    z.child_filter._calls = ()
    if hasattr(z.child_filter, "_filters"):
        ctypes.memset(ctypes.addressof(z.child_filter._filters), 0, ctypes.sizeof(z.child_filter._filters))
    z.report["problems"].append("left by a pass")
    z.report["seccomp"] = "left by a pass"
    zygote.WARM_UPS = ("left by a pass",)
    random.seed(1234)


def probe_pass(code, namespaces, inputs, channel, **options):
    try:
        task = json.loads(code)
    except ValueError:  # a warm-up (the zygote's, or the child's while idle after ready)
        return {"op": "done", "result": None, "variables": {}}
    try:
        return probes(task, channel)
    except BaseException:
        return {"op": "done", "result": {"probe-failed": traceback.format_exc()[-2000:]}, "variables": {}}


def probes(task, channel):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(15, task["nonce"].encode(), 0, 0, 0)  # PR_SET_NAME: the host finds this process by it
    channel.request({"op": "call", "connector": "probe", "method": "look", "args": {"nonce": task["nonce"]}})
    z = the_zygote()
    digest = prepared(z) if z is not None else None
    out = {"found_zygote": z is not None, "prepared": digest}
    out["seccomp_mode"] = libc.prctl(21, 0, 0, 0, 0)  # PR_GET_SECCOMP
    out["no_new_privs"] = libc.prctl(39, 0, 0, 0, 0)  # PR_GET_NO_NEW_PRIVS
    out["uid"] = [os.getuid(), os.geteuid(), os.getgid(), os.getegid()]
    out["groups"] = os.getgroups()
    out["random"] = [random.getrandbits(64), uuid.uuid4().hex, os.urandom(8).hex(),
                     hashlib.sha256(repr(random.getstate()).encode()).hexdigest()]
    scope = {"os": os, "socket": socket, "threading": threading, "ctypes": ctypes, "resource": resource,
             "libc": libc}
    out["attempts"] = {
        "fork": attempt("pid = os.fork()\nif pid == 0:\n    os._exit(0)\nresult = pid", scope),
        "thread": attempt("t = threading.Thread(target=lambda: None)\nt.start()\nt.join()", scope),
        # Lowering a limit is always allowed by the kernel: only the seccomp layer refuses it.
        "lower-rlimit": attempt("resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))", scope),
        # getrlimit is prlimit64(0, ...) in glibc, which the layer refuses too (the host reads /proc instead).
        "getrlimit": attempt("result = resource.getrlimit(resource.RLIMIT_NOFILE)", scope),
        "raise-rlimit": attempt("resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)", scope),
        # Setting the ids a process already has is always allowed by the kernel: only the layer refuses it.
        "setuid-same": attempt("os.setuid(os.getuid())", scope),
        "setgid-same": attempt("os.setgid(os.getgid())", scope),
        "setgroups-same": attempt("os.setgroups(os.getgroups())", scope),
        "setuid-root": attempt("os.setuid(0)", scope),
        "unshare-user": attempt("assert libc.unshare(0x10000000) == 0, os.strerror(ctypes.get_errno())", scope),
        "unshare-net": attempt("assert libc.unshare(0x40000000) == 0, os.strerror(ctypes.get_errno())", scope),
        "socket": attempt("result = socket.socket(socket.AF_INET, socket.SOCK_STREAM).fileno()", scope),
        "socketpair": attempt("result = [s.fileno() for s in socket.socketpair()]", scope),
    }
    if task.get("mutate") and z is not None:
        mutate(z)
        out["mutated"] = prepared(z)
    return {"op": "done", "result": out, "variables": {}}

zygote.main(run_pass=probe_pass)
'''


class Looker:
    """The host's ``probe.look`` handler: reads the calling worker's /proc entries from outside."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, Any]] = {}

    async def __call__(self, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("op") != "call" or message.get("method") != "look":
            return {"abort": "the probes make no other request"}
        nonce = message["args"]["nonce"]
        self.seen[nonce] = look_at(find(nonce))
        return {"value": None}


def find(comm: str) -> int:
    """The pid of the one process named ``comm``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as f:
                    if f.read().strip() == comm:
                        found.append(int(entry))
            except OSError:
                continue
    assert len(found) == 1, (comm, found)
    return found[0]


def look_at(pid: int) -> dict[str, Any]:
    """What the kernel says about ``pid``: its status, its limits, its fds, its root."""
    with open(f"/proc/{pid}/status") as f:
        status = {key: value.strip() for key, value in (line.split(":", 1) for line in f.read().splitlines())}
    with open(f"/proc/{pid}/limits") as f:
        limits = {line[:26].strip(): line[26:].split()[:2] for line in f.read().splitlines()[1:]}
    return {"pid": pid, "status": status, "limits": limits, "fds": sorted(os.listdir(f"/proc/{pid}/fd")),
            "root": os.readlink(f"/proc/{pid}/root"), "net": os.readlink(f"/proc/{pid}/ns/net")}


NO_CAPS = "0000000000000000"


def assert_confined(seen: dict[str, Any], limits: Limits) -> None:
    """What the kernel says about a worker: the seccomp layers, no capabilities, nobody, its limits, its root."""
    status = seen["status"]
    assert status["Seccomp"] == "2" and status["Seccomp_filters"] == "2", status  # the zygote's layer and its own
    assert status["NoNewPrivs"] == "1"
    for caps in ("CapEff", "CapPrm", "CapInh", "CapAmb"):
        assert status[caps] == NO_CAPS, (caps, status[caps])
    if os.geteuid() == 0:
        assert status["Uid"].split() == ["65534"] * 4 and status["Gid"].split() == ["65534"] * 4
        assert status["Groups"] == ""
    assert status["NSpid"].split()[-1] == "1"  # pid 1 of its own PID namespace
    assert seen["limits"]["Max cpu time"] == [str(limits.cpu_seconds), str(limits.cpu_seconds + 1)]
    assert seen["limits"]["Max address space"] == [str(limits.max_memory_bytes)] * 2
    assert seen["limits"]["Max open files"] == [str(limits.max_open_files)] * 2
    assert seen["limits"]["Max processes"] == [str(limits.max_processes)] * 2
    assert seen["limits"]["Max file size"] == [str(limits.max_file_size)] * 2
    assert seen["limits"]["Max core file size"] == ["0", "0"]
    assert seen["fds"] == ["0", "1", "2"]
    assert seen["root"] == EmptyRoot.get()
    assert seen["net"] != os.readlink("/proc/self/ns/net")


def assert_refuses_everything(result: dict[str, Any]) -> None:
    """What the child itself finds: in filter mode, no_new_privs, nobody, and every attempt refused."""
    assert "probe-failed" not in result, result.get("probe-failed")
    assert result["seccomp_mode"] == 2 and result["no_new_privs"] == 1
    if os.geteuid() == 0:
        assert result["uid"] == [65534] * 4 and result["groups"] == []
    allowed = {name: outcome for name, outcome in result["attempts"].items() if not outcome.startswith("blocked")}
    assert allowed == {}


class ProbeZygote:
    """A ``SubprocessExecutor`` whose zygote (the real one) runs :data:`PROBE_PASS` in its children."""

    def __init__(self, folder: Path, limits: Limits | None = None, *, warm: int = 0, faults: Sequence[str] = (),
                 drop_caps: Sequence[str] = ()) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        harness = folder / "probe_zygote.py"
        harness.write_text(PROBE_PASS.replace("__FAULTS__", repr(list(faults))))
        wrapper = folder / "python"
        paths = " ".join(shlex.quote(path) for path in worker_command()[-2:])
        prefix = ""
        if drop_caps:
            setpriv = shutil.which("setpriv")
            assert setpriv is not None and os.geteuid() == 0
            prefix = f"{setpriv} --bounding-set={','.join('-' + c for c in drop_caps)} "
        # env -i: sh adds PWD to the environment; the real zygote is started with none at all.
        wrapper.write_text(f"#!/bin/sh\nexec {prefix}env -i {shlex.quote(sys.executable)} -I -S "
                           f"{shlex.quote(str(harness))} {paths}\n")
        wrapper.chmod(0o755)
        self.limits = limits or Limits()
        self.executor = SubprocessExecutor(self.limits, python=str(wrapper), zygote=True, warm=warm)
        self.looker = Looker()

    async def probe(self, *, mutate: bool = False) -> dict[str, Any]:
        """One pass of probes; its result, what the host saw of it, and the executor's isolation report."""
        nonce = "rv" + secrets.token_hex(6)
        out = await self.executor.execute(json.dumps({"nonce": nonce, "mutate": mutate}), {"probe": ["look"]},
                                          host=self.looker)
        return {"error": out.error, "result": out.result, "seen": self.looker.seen.get(nonce),
                "report": self.executor.isolation}

    async def aclose(self) -> None:
        await self.executor.aclose()


def run(coro: Any) -> Any:
    """Run a coroutine to its end (the specs are plain functions: one event loop each)."""
    return asyncio.run(coro)
