"""``make demo``: start the demo HTTP service and JupyterLab on the teaching notebooks (issue 7).

::

    python -m codemode_kernel.launch_demo [--lab-port 8888] [--api-port 8765] [--root examples/notebooks]

It starts, all on 127.0.0.1:

- the demo pets API (:mod:`codemode_kernel.demo.http_service`) on ``--api-port``, the port
  ``examples/notebooks/codemode.toml`` points the ``petstore`` connector at, with a fresh
  bearer token in ``CODEMODE_DEMO_TOKEN``;
- JupyterLab with a fresh login token, its root at the notebooks, and that variable in its
  environment, so kernels (the host side) can authenticate while sandboxed cells never see it.

The MCP servers of the notebooks are stdio servers: each kernel starts its own from
``codemode.toml`` when it starts, and stops them when it shuts down.

It prints the JupyterLab URL with its token (no browser is opened) and runs until Ctrl-C or
SIGTERM, then stops every process it started. :func:`ensure_petstore` is the same service
start for a notebook opened without ``make demo`` (notebook 06 calls it from a ``%%host`` cell).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codemode_kernel.demo.http_service import DEFAULT_TOKEN_ENV
from codemode_kernel.demo.serving import READY_PREFIX

HOST = "127.0.0.1"
DEFAULT_LAB_PORT = 8888
DEFAULT_API_PORT = 8765
TOKEN_ENV = DEFAULT_TOKEN_ENV
START_TIMEOUT = 60.0


class DemoError(RuntimeError):
    """The demo cannot start; the message says what to do."""


@dataclass
class Service:
    """A process this module started, and the URL it serves."""

    name: str
    process: subprocess.Popen[bytes]
    url: str

    def stop(self, grace: float = 5.0) -> None:
        """Terminate the process (and its process group) and wait for it; kill it if it lingers."""
        if self.process.poll() is None:
            _signal_group(self.process, signal.SIGTERM)
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                _signal_group(self.process, signal.SIGKILL)
                self.process.wait(grace)
        if self.process.stdout is not None:
            self.process.stdout.close()


def _signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    # Each service runs in its own session (start_new_session), so its group id is its pid
    # and the signal also reaches what it started (JupyterLab's kernels and their MCP servers).
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


# Runs a module as ``__main__`` in a process that stops itself when the process that started
# it goes away, even if that one was killed (SIGKILL runs no cleanup): the launcher, or the
# kernel of notebook 06. Polling the parent pid works for any parent; PR_SET_PDEATHSIG was
# rejected because it fires when the *thread* that started the child ends, and kernels
# start things from short-lived threads.
_WATCHED = """
import os, runpy, signal, sys, threading, time

parent, module = int(sys.argv[1]), sys.argv[2]

def watch():
    while os.getppid() == parent:
        time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGTERM)  # a graceful stop first (uvicorn and Jupyter handle it)
    time.sleep(10)
    os._exit(1)

threading.Thread(target=watch, name="codemode-demo-parent-watch", daemon=True).start()
sys.argv = [module, *sys.argv[3:]]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def watched_command(module: str, args: Sequence[str], python: str | None = None) -> list[str]:
    """``python -m module args``, stopping by itself when this process ends."""
    return [python or sys.executable, "-c", _WATCHED, str(os.getpid()), module, *args]


def default_root() -> Path:
    """``examples/notebooks`` of the source tree this package runs from."""
    return Path(__file__).resolve().parents[1] / "examples" / "notebooks"


def port_is_free(port: int, host: str = HOST) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def http_status(url: str, headers: Mapping[str, str] | None = None, timeout: float = 2.0) -> int | None:
    """The HTTP status of a GET, or ``None`` when nothing answers."""
    request = urllib.request.Request(url, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (urllib.error.URLError, OSError):
        return None


def start_http_service(port: int, token: str, *, python: str | None = None) -> Service:
    """Start the demo pets API on 127.0.0.1:``port`` accepting ``token``; return once it listens."""
    env = {**os.environ, TOKEN_ENV: token}
    command = watched_command("codemode_kernel.demo.http_service", ["--host", HOST, "--port", str(port)], python)
    process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               start_new_session=True)
    assert process.stdout is not None
    found: list[str] = []

    def read_ready() -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith(READY_PREFIX):
                found.append(line[len(READY_PREFIX):])
                break

    reader = threading.Thread(target=read_ready, name="codemode-demo-ready", daemon=True)
    reader.start()
    reader.join(START_TIMEOUT)
    if not found:
        service = Service("demo API", process, "")
        service.stop()
        raise DemoError(f"the demo API did not start on {HOST}:{port} within {START_TIMEOUT:g} s (exit status "
                        f"{process.returncode}). Is the port taken? Try --api-port with another port and change "
                        "base_url in codemode.toml to match.")
    return Service("demo API", process, found[0])


def ensure_petstore(port: int = DEFAULT_API_PORT) -> str:
    """Make sure the demo pets API answers on ``port`` for this process's token; say how.

    Under ``make demo`` the service is already running and this kernel inherited its token.
    Otherwise a service is started now, with a fresh token put in this process's environment
    (where the ``petstore`` connector reads it), and stopped when this process exits.
    """
    url = f"http://{HOST}:{port}"
    token = os.environ.get(TOKEN_ENV)
    if http_status(f"{url}/health") == 200:
        if not token:
            raise DemoError(f"a demo API already runs at {url}, but {TOKEN_ENV} is not set here, so its token is "
                            "unknown. Start JupyterLab with `make demo`, or stop the other service.")
        status = http_status(f"{url}/pets", {"Authorization": f"Bearer {token}"})
        if status != 200:
            raise DemoError(f"the demo API at {url} refused this kernel's {TOKEN_ENV} (HTTP {status}); it was "
                            "started by someone else. Stop it, or start JupyterLab with `make demo`.")
        return f"Using the demo API already running at {url}."
    if not token:
        token = secrets.token_urlsafe(18)
        os.environ[TOKEN_ENV] = token
    service = start_http_service(port, token)
    atexit.register(service.stop)
    return f"Started the demo API at {service.url} for this kernel; it stops when the kernel shuts down."


def lab_command(port: int, token: str, root: Path) -> list[str]:
    return watched_command("jupyterlab", ["--no-browser", "--allow-root", f"--ip={HOST}", f"--port={port}",
                                          "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
                                          f"--ServerApp.root_dir={root}"])


def lab_environment(api_token: str) -> dict[str, str]:
    """The environment of JupyterLab and its kernels: the API token, and this venv first on PATH.

    ``codemode.toml`` starts MCP servers by command name (``python``, ``mcp-server-time``):
    with the virtualenv's ``bin`` first on ``PATH`` they resolve to the interpreter that has
    this package installed, as in an activated virtualenv.
    """
    env = {**os.environ, TOKEN_ENV: api_token}
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([bin_dir, *[p for p in env.get("PATH", "").split(os.pathsep) if p != bin_dir]])
    return env


def check_kernelspec() -> None:
    from jupyter_client.kernelspec import KernelSpecManager

    if "codemode" not in KernelSpecManager().find_kernel_specs():
        raise DemoError("the `codemode` kernel is not installed in this environment; run `make install` (or "
                        "`pip install -e .`), or `python -m codemode_kernel install --sys-prefix`.")


def start_lab(port: int, token: str, root: Path, env: Mapping[str, str]) -> Service:
    """Start JupyterLab and wait until it answers with this token."""
    process = subprocess.Popen(lab_command(port, token, root), env=dict(env), stdin=subprocess.DEVNULL,
                               start_new_session=True)
    service = Service("JupyterLab", process, f"http://{HOST}:{port}/lab?token={token}")
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise DemoError(f"JupyterLab exited with status {process.returncode}; its output is above.")
        if http_status(f"http://{HOST}:{port}/api/status?token={token}") == 200:
            return service
        time.sleep(0.2)
    service.stop()
    raise DemoError(f"JupyterLab did not answer on port {port} within {START_TIMEOUT:g} s.")


def banner(lab: Service, api: Service, root: Path) -> str:
    return "\n".join([
        "",
        "Code Mode demo is running.",
        f"  JupyterLab   {lab.url}",
        f"  Notebooks    {root} (start with 01_tour.ipynb)",
        f"  Demo API     {api.url} (OpenAPI document at {api.url}/openapi.yaml; bearer token in ${TOKEN_ENV})",
        "  MCP servers  started by each kernel from codemode.toml (stdio)",
        "Press Ctrl-C to stop everything.",
        "",
    ])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codemode_kernel.launch_demo",
                                     description="Start the demo services and JupyterLab on the teaching notebooks.")
    parser.add_argument("--lab-port", type=int, default=DEFAULT_LAB_PORT, help="JupyterLab port (default 8888)")
    parser.add_argument("--api-port", type=int, default=DEFAULT_API_PORT,
                        help="demo API port (default 8765, the base_url in examples/notebooks/codemode.toml)")
    parser.add_argument("--root", type=Path, default=None, help="notebook folder (default: examples/notebooks)")
    args = parser.parse_args(argv)
    root = (args.root or default_root()).resolve()
    services: list[Service] = []
    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        if not (root / "codemode.toml").is_file():
            raise DemoError(f"{root} has no codemode.toml; pass --root with the examples/notebooks folder.")
        check_kernelspec()
        for what, port in (("JupyterLab", args.lab_port), ("the demo API", args.api_port)):
            if not port_is_free(port):
                raise DemoError(f"port {port} on {HOST} is taken, so {what} cannot start. Is another `make demo` "
                                "running? Stop it, or pass --lab-port / --api-port.")
        api_token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(18)
        services.append(start_http_service(args.api_port, api_token))
        lab_token = secrets.token_hex(16)
        services.append(start_lab(args.lab_port, lab_token, root, lab_environment(api_token)))
        print(banner(services[1], services[0], root), flush=True)
        if args.api_port != DEFAULT_API_PORT:
            print(f"Note: codemode.toml points the petstore connector at port {DEFAULT_API_PORT}; change its "
                  f"base_url to use port {args.api_port}.", flush=True)
        while not stopping.wait(0.5):
            for service in services:
                if service.process.poll() is not None:
                    print(f"{service.name} exited (status {service.process.returncode}); stopping the demo.",
                          file=sys.stderr, flush=True)
                    stopping.set()
        return 0
    except DemoError as exc:
        print(f"make demo: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        for service in reversed(services):
            service.stop()
        if services:
            print("Stopped the demo services.", flush=True)


if __name__ == "__main__":
    sys.exit(main())
