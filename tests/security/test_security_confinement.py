"""The second line: a worker whose language layer has been bypassed still cannot reach the host.

A real process is confined exactly as a worker confines itself (``confinement.confine``), then
runs *unrestricted* Python probes, as code would after a RestrictedPython escape. Each probe
must fail; where this OS cannot provide the feature a probe relies on, that probe is
skipped with the reason the worker reported (degrading gracefully is the design).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.launcher import zygote_supported
from codemode_kernel.executor.pool import EmptyRoot, worker_command
from tests.security.security_support import SECRET_ENV, HostSecrets

HARNESS = r'''
import json, os, sys
sys.path[:0] = sys.argv[1:]
import ctypes, resource, signal, socket, subprocess, threading  # loaded before the root disappears
from codemode_kernel.executor import confinement
config = json.loads(sys.stdin.readline())
probes = json.loads(sys.stdin.readline())
confinement.preload()
report = confinement.confine(config) if config.get("confine", True) else {}
results = {}
for name, source in probes.items():
    scope = {"os": os, "socket": socket, "subprocess": subprocess, "threading": threading, "ctypes": ctypes,
             "resource": resource, "signal": signal}
    try:
        exec(source, scope)
        results[name] = "ALLOWED: " + repr(scope.get("result"))[:300]
    except BaseException as exc:
        results[name] = "blocked: " + type(exc).__name__ + ": " + str(exc)[:200]
sys.stdout.write(json.dumps({"report": report, "results": results}) + "\n")
sys.stdout.flush()
os._exit(0)
'''

# probe name -> (source, the confinement features any one of which must block it)
PROBES: dict[str, tuple[str, tuple[str, ...]]] = {
    "read-secret-file": ("result = open(SECRET_FILE).read()", ("filesystem_hidden", "uid")),
    "read-host-environ": ("result = open(f'/proc/{HOST_PID}/environ', 'rb').read()", ("filesystem_hidden", "uid")),
    "read-host-memory-map": ("result = open(f'/proc/{HOST_PID}/maps').read()", ("filesystem_hidden", "uid")),
    "list-root": ("result = os.listdir('/')\nassert result, 'empty'", ("filesystem_hidden",)),
    "write-canary": ("open(CANARY, 'w').write('pwned')", ("seccomp", "filesystem_hidden")),
    "append-canary": ("open(CANARY, 'a').write('pwned')", ("seccomp", "filesystem_hidden")),
    "truncate-canary": ("os.truncate(CANARY, 0)", ("seccomp", "filesystem_hidden")),
    "unlink-canary": ("os.unlink(CANARY)", ("seccomp", "filesystem_hidden")),
    "create-file": ("open(os.path.join(FOLDER, 'created.txt'), 'w').write('x')", ("seccomp", "filesystem_hidden")),
    "make-directory": ("os.mkdir(os.path.join(FOLDER, 'made'))", ("seccomp", "filesystem_hidden")),
    "connect-to-host-listener": ("s = socket.create_connection(('127.0.0.1', PORT), timeout=2)\nresult = s.fileno()",
                                 ("network_isolated", "seccomp")),
    "udp-socket": ("s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b'x', ('127.0.0.1', PORT))",
                   ("network_isolated", "seccomp")),
    "fork": ("pid = os.fork()\nif pid == 0:\n    os._exit(0)\nresult = pid", ("seccomp", "nproc")),
    "thread": ("t = threading.Thread(target=lambda: None)\nt.start()\nt.join()", ("seccomp", "nproc")),
    "subprocess": ("result = subprocess.run(['/bin/true']).returncode", ("seccomp", "filesystem_hidden")),
    "exec": ("os.execv('/bin/sh', ['sh', '-c', 'true'])", ("seccomp", "filesystem_hidden")),
    "signal-the-host": ("os.kill(HOST_PID, 0)", ("seccomp", "uid")),
    "ptrace-the-host": ("libc = ctypes.CDLL(None, use_errno=True)\n"
                        "assert libc.ptrace(16, HOST_PID, 0, 0) == 0, 'ptrace refused'", ("seccomp", "uid")),
    "become-root-again": ("os.setuid(0)", ("uid",)),
    "chroot-escape": ("os.chroot('.')", ("seccomp", "uid")),
    "new-namespace": ("libc = ctypes.CDLL(None, use_errno=True)\n"
                      "assert libc.unshare(0x10000000) == 0, 'unshare refused'", ("seccomp",)),
    "raise-memory-limit": ("resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)", ("rlimits",)),
    "allocate-2-GiB": ("result = len(bytearray(2 << 30))", ("rlimits",)),
    "open-many-files": ("result = [os.pipe() for _ in range(64)]", ("rlimits",)),
}


# The same probes in a child forked by the real zygote: the zygote's code confines the child,
# then the "pass" (this runner, injected as the zygote's run_pass) runs them unrestricted.
ZYGOTE_HARNESS = r'''
import json, os, sys
sys.path[:0] = sys.argv[1:]
import ctypes, resource, signal, socket, subprocess, threading  # loaded before the root disappears
from codemode_kernel.executor import zygote

def run_probes(code, namespaces, inputs, channel, **options):
    try:
        probes = json.loads(code)
    except ValueError:  # a warm-up (the zygote's, or the child's while idle after ready)
        return {"op": "done", "result": None, "variables": {}}
    results = {}
    for name, source in probes.items():
        scope = {"os": os, "socket": socket, "subprocess": subprocess, "threading": threading, "ctypes": ctypes,
                 "resource": resource, "signal": signal}
        try:
            exec(source, scope)
            results[name] = "ALLOWED: " + repr(scope.get("result"))[:300]
        except BaseException as exc:
            results[name] = "blocked: " + type(exc).__name__ + ": " + str(exc)[:200]
    return {"op": "done", "result": results, "variables": {}}

zygote.main(run_pass=run_probes)
'''

MODES = ["spawned", "zygote"]


async def _refuse(message: dict[str, Any]) -> dict[str, Any]:
    return {"abort": "the probes make no requests"}


def run_probes_in_zygote_child(limits: Limits, probes: dict[str, str], folder: Path) -> dict[str, Any]:
    """Run ``probes`` unrestricted in a child of a real zygote; its isolation report and the results."""
    import asyncio
    import shlex
    import sys

    harness = folder / "zygote_harness.py"
    harness.write_text(ZYGOTE_HARNESS)
    wrapper = folder / "python"
    paths = " ".join(shlex.quote(path) for path in worker_command()[-2:])
    # env -i: sh adds PWD to the environment; the real zygote is started with none at all.
    python = shlex.quote(sys.executable)
    wrapper.write_text(f"#!/bin/sh\nexec env -i {python} -I -S {shlex.quote(str(harness))} {paths}\n")
    wrapper.chmod(0o755)
    executor = SubprocessExecutor(limits, python=str(wrapper), zygote=True, warm=0)

    async def run() -> Any:
        try:
            return await executor.execute(json.dumps(probes), {}, host=_refuse)
        finally:
            await executor.aclose()

    out = asyncio.run(run())
    assert out.error is None, out.error
    return {"report": executor.isolation, "results": out.result}


def probe_in(mode: str, limits: Limits, probes: dict[str, str], folder: Path) -> dict[str, Any]:
    """The probes in a spawned worker (``confinement.confine``) or in a zygote's child."""
    if mode == "zygote":
        return run_probes_in_zygote_child(limits, probes, folder)
    return run_probes({"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
                       "limits": limits.worker_config()}, probes)


def run_probes(config: dict[str, Any], probes: dict[str, str]) -> dict[str, Any]:
    proc = subprocess.run(
        [*worker_command()[:3], "-c", HARNESS, *worker_command()[-2:]],
        input=(json.dumps(config) + "\n" + json.dumps(probes) + "\n").encode(),
        capture_output=True, env={}, cwd="/", timeout=120, start_new_session=True)
    assert proc.stdout, proc.stderr.decode()[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


class Listener:
    """A TCP listener on 127.0.0.1 that counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.sock.close()


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


def _sources(host: HostSecrets, port: int) -> dict[str, str]:
    prelude = (f"SECRET_FILE = {str(host.secret_file)!r}\nCANARY = {str(host.canary)!r}\n"
               f"FOLDER = {str(host.folder)!r}\nHOST_PID = {os.getpid()}\nPORT = {port}\n")
    return {name: prelude + source for name, (source, _) in PROBES.items()}


@pytest.fixture(scope="module", params=MODES)
def confined(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             listener: Listener) -> Iterator[tuple[dict[str, Any], HostSecrets]]:
    """The probes' outcome in a spawned worker and in a zygote's child (each probe runs in both)."""
    if request.param == "zygote" and not zygote_supported():
        pytest.skip("no zygote on this system")
    host = HostSecrets.create(tmp_path_factory.mktemp("host"))
    os.environ[SECRET_ENV] = host.secret
    try:
        yield probe_in(request.param, Limits(max_memory_bytes=512 << 20), _sources(host, listener.port),
                       tmp_path_factory.mktemp("harness")), host
    finally:
        del os.environ[SECRET_ENV]


def features(report: dict[str, Any]) -> set[str]:
    features = {k for k in ("filesystem_hidden", "network_isolated", "seccomp") if report.get(k)}
    if report.get("rlimits"):
        features.add("rlimits")
    if "nobody" in str(report.get("user", "")):
        features |= {"uid", "nproc"}
    return features


@pytest.mark.parametrize("probe", list(PROBES))
def test_probe_is_blocked(confined: tuple[dict[str, Any], HostSecrets], probe: str) -> None:
    """It is blocked by the confinement this OS provides; the host secret and files stay as they were."""
    outcome, host = confined
    needed = PROBES[probe][1]
    have = features(outcome["report"])
    if not have & set(needed):
        pytest.skip(f"this system provides none of {needed}: {outcome['report'].get('problems')}")
    assert outcome["results"][probe].startswith("blocked"), outcome["results"][probe]
    host.assert_untouched(outcome)


@pytest.mark.parametrize("mode", MODES)
def test_the_environment_is_empty(tmp_path: Path, mode: str) -> None:
    """The worker's environment holds nothing of the host's (the secret is in the host's environment)."""
    outcome = probe_in(mode, Limits(), {"environ": "result = sorted(k for k in os.environ if k not in ('LC_CTYPE',))"},
                       tmp_path)
    assert outcome["results"]["environ"] == "ALLOWED: []"


def test_no_connection_reached_the_host(confined: tuple[dict[str, Any], HostSecrets], listener: Listener) -> None:
    """The listener on 127.0.0.1 saw no connection from the confined worker."""
    if not {"network_isolated", "seccomp"} & features(confined[0]["report"]):
        pytest.skip("the network cannot be dropped on this system")
    assert listener.accepted == 0


def test_the_probes_can_detect_an_open_door(listener: Listener, tmp_path: Path) -> None:
    """Control: with the network allowed the same connect probe succeeds, so a pass above is a real refusal."""
    before = listener.accepted
    config = {"op": "config", "parent_pid": os.getpid(), "empty_root": EmptyRoot.get(),
              "limits": Limits(network=True).worker_config()}
    outcome = run_probes(config, {"connect": f"s = socket.create_connection(('127.0.0.1', {listener.port}), "
                                             "timeout=2)\nresult = 'connected'"})
    assert outcome["results"]["connect"] == "ALLOWED: 'connected'"
    for _ in range(50):
        if listener.accepted > before:
            break
        threading.Event().wait(0.02)
    assert listener.accepted == before + 1


def test_require_isolation_refuses_a_half_confined_worker() -> None:
    """With require_isolation, a confinement step that fails makes the worker refuse to run anything."""
    config = {"op": "config", "parent_pid": os.getpid(), "empty_root": "/nonexistent/codemode-root",
              "limits": Limits(require_isolation=True).worker_config()}
    outcome = run_probes(config, {"noop": "result = 1"})
    report = outcome["report"]
    if os.geteuid() != 0 and not report.get("network_isolated"):
        pytest.skip("no user namespaces here: chroot is not attempted")
    assert "Limits.require_isolation" in report["refused"]
    assert "chroot failed" in report["refused"]


@pytest.mark.parametrize("mode", MODES)
def test_this_machine_confines_fully(tmp_path: Path, mode: str) -> None:
    """Documents what this CI machine provides (Linux x86_64 with namespaces and seccomp)."""
    outcome = probe_in(mode, Limits(), {}, tmp_path)
    report = outcome["report"]
    if report["problems"]:
        pytest.skip(f"partly confined here: {report['problems']}")
    assert report["network_isolated"] and report["filesystem_hidden"] and report["seccomp"]
    assert report["pid_namespace"] is (mode == "zygote")


UNPRIVILEGED_PYTHON = "/usr/bin/python3.11"


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A folder every user can enter (pytest's tmp_path is private to root)."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="codemode-public-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


UNPRIVILEGED_HOST = r'''
import asyncio, json, sys
sys.path[:0] = sys.argv[2:]
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor

async def refuse(message):
    return {"abort": "the probes make no requests"}

async def main():
    executor = SubprocessExecutor(Limits(), python=sys.argv[1], zygote=True, warm=0)
    try:
        out = await executor.execute(sys.stdin.read(), {}, host=refuse)
    finally:
        await executor.aclose()
    print(json.dumps({"report": executor.isolation, "results": out.result, "error": str(out.error)}))

asyncio.run(main())
'''


def _as_nobody(command: list[str], stdin: str) -> dict[str, Any]:
    proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command],
                          input=stdin.encode(), capture_output=True, env={}, cwd="/", timeout=120)
    assert proc.stdout, proc.stderr.decode()[-2000:]
    outcome: dict[str, Any] = json.loads(proc.stdout)
    return outcome


@pytest.mark.parametrize("mode", MODES)
def test_an_unprivileged_host_gets_the_same_confinement(public_dir: Path, listener: Listener, mode: str) -> None:
    """Started by a non-root user, the worker uses a user namespace for the same steps (no root needed)."""
    import shlex
    import shutil

    if os.geteuid() != 0 or not shutil.which("setpriv") or not os.access(UNPRIVILEGED_PYTHON, os.X_OK):
        pytest.skip("needs root (to switch to an unprivileged user), setpriv and a world-readable python")
    root = public_dir / "empty-root"
    root.mkdir()
    root.chmod(0o555)
    readable = public_dir / "readable.txt"
    readable.write_text("anyone may read this")
    readable.chmod(0o644)
    probes = {
        "read-a-world-readable-file": f"result = open({str(readable)!r}).read()",
        "connect-to-host-listener": f"socket.create_connection(('127.0.0.1', {listener.port}), timeout=2)",
        "fork": "pid = os.fork()\nif pid == 0:\n    os._exit(0)\nresult = pid",
        "exec": "os.execv('/bin/sh', ['sh', '-c', 'true'])",
        "chroot-escape": "os.chroot('.')",
    }
    package = str(Path(__file__).resolve().parents[2])
    if mode == "spawned":
        config = {"op": "config", "parent_pid": os.getpid(), "empty_root": str(root),
                  "limits": Limits().worker_config()}
        outcome = _as_nobody([UNPRIVILEGED_PYTHON, "-I", "-S", "-c", HARNESS, package],
                             json.dumps(config) + "\n" + json.dumps(probes) + "\n")
    else:
        harness = public_dir / "zygote_harness.py"
        harness.write_text(ZYGOTE_HARNESS)
        wrapper = public_dir / "python"
        paths = " ".join(shlex.quote(path) for path in worker_command()[-2:])
        wrapper.write_text(f"#!/bin/sh\nexec env -i {UNPRIVILEGED_PYTHON} -I -S {harness} {paths}\n")
        for path in (harness, wrapper):
            path.chmod(0o755)
        site = str(Path(worker_command()[-1]))
        outcome = _as_nobody([UNPRIVILEGED_PYTHON, "-I", "-S", "-c", UNPRIVILEGED_HOST, str(wrapper), package, site],
                             json.dumps(probes))
    report = outcome["report"]
    if report["problems"]:
        pytest.skip(f"user namespaces or seccomp are not available to unprivileged users here: {report['problems']}")
    assert report["user"] == "uid 65534, no capabilities"
    assert report["network_isolated"] and report["filesystem_hidden"] and report["seccomp"]
    assert report["pid_namespace"] is (mode == "zygote")
    assert {name: result.split(":")[0] for name, result in outcome["results"].items()} == dict.fromkeys(
        probes, "blocked")
