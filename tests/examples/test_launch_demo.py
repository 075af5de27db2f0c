"""``make demo`` (``python -m codemode_kernel.launch_demo``) serves the notebooks and cleans up.

Real processes on 127.0.0.1: the launcher, JupyterLab, the demo API and a Code Mode kernel
started through JupyterLab's REST API, all stopped by one Ctrl-C (SIGINT to the launcher).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.launch_demo import http_status
from tests.examples.notebook_run import make_workspace, processes_in

pytestmark = pytest.mark.timeout(180)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def post_json(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


class Launcher:
    """The launcher as a child process, its stdout collected line by line."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log.open("wb")
        self.process = subprocess.Popen([sys.executable, "-m", "codemode_kernel.launch_demo", *args], env=env,
                                        stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def wait_for(self, prefix: str, timeout: float = 90) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if line.strip().startswith(prefix):
                    return line.strip()
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"no line starting with {prefix!r}; stdout: {self.lines}; exit: {self.process.poll()}")

    def close(self) -> None:
        if self.process.poll() is None:  # a failed test: let the launcher stop what it started
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.reader.join(5)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log.close()


@pytest.fixture
def demo_env(tmp_path: Path) -> dict[str, str]:
    # Jupyter's runtime and config folders in the test's scratch space, not in $HOME.
    env = {k: v for k, v in os.environ.items() if k not in ("CODEMODE_CONFIG", "CODEMODE_STORE")}
    env.update(JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"), CODEMODE_DEMO_TOKEN="test-api-token")
    return env


def test_demo_serves_jupyterlab_and_the_api_then_stops_everything_on_ctrl_c(tmp_path: Path,
                                                                          demo_env: dict[str, str]) -> None:
    root = make_workspace(tmp_path)
    lab_port, api_port = free_port(), free_port()
    launcher = Launcher(["--lab-port", str(lab_port), "--api-port", str(api_port), "--root", str(root)], demo_env,
                        tmp_path / "launcher.log")
    try:
        line = launcher.wait_for("JupyterLab ")
        url = line.split()[-1]
        assert url.startswith(f"http://127.0.0.1:{lab_port}/lab?token=")
        token = url.split("token=", 1)[1]
        assert len(token) >= 32
        base = f"http://127.0.0.1:{lab_port}"
        assert http_status(f"{base}/api/status") == 403  # the token is required
        assert "codemode" in get_json(f"{base}/api/kernelspecs?token={token}")["kernelspecs"]
        listing = [item["name"] for item in get_json(f"{base}/api/contents?token={token}")["content"]]
        assert "01_tour.ipynb" in listing and "codemode.toml" in listing
        # The demo API, with the token JupyterLab's kernels inherit.
        api = f"http://127.0.0.1:{api_port}"
        assert http_status(f"{api}/health") == 200
        assert http_status(f"{api}/pets") == 401
        assert http_status(f"{api}/pets", {"Authorization": "Bearer test-api-token"}) == 200
        # A Code Mode kernel for a notebook, as opening it in JupyterLab would start.
        session = post_json(f"{base}/api/sessions?token={token}",
                            {"path": "01_tour.ipynb", "type": "notebook", "kernel": {"name": "codemode"}})
        assert session["kernel"]["name"] == "codemode"
        # (Its execution state stays "starting" until a frontend connects, so look for the process.)
        deadline = time.monotonic() + 30
        while not any("-m codemode_kernel -f" in cmd for cmd in processes_in(root)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert any("-m codemode_kernel -f" in cmd for cmd in processes_in(root)), processes_in(root)

        launcher.process.send_signal(signal.SIGINT)
        assert launcher.process.wait(60) == 0
        launcher.reader.join(5)
        assert launcher.lines[-1] == "Stopped the demo services."
        assert not answers(lab_port) and not answers(api_port)
        deadline = time.monotonic() + 10
        while processes_in(root) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert processes_in(root) == []  # the kernel went with JupyterLab
    finally:
        launcher.close()


def test_demo_refuses_a_taken_port_and_says_which(tmp_path: Path, demo_env: dict[str, str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "codemode_kernel.launch_demo", "--lab-port", str(port),
                               "--api-port", str(free_port()), "--root", str(make_workspace(tmp_path))],
                              env=demo_env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"port {port} on 127.0.0.1 is taken, so JupyterLab cannot start" in done.stderr


def test_demo_needs_a_folder_with_codemode_toml(tmp_path: Path, demo_env: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-m", "codemode_kernel.launch_demo", "--root", str(tmp_path)],
                          env=demo_env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "has no codemode.toml" in done.stderr


ENSURE = """
import os, sys
from codemode_kernel.launch_demo import ensure_petstore, http_status
port = int(sys.argv[1])
print(ensure_petstore(port))
token = os.environ["CODEMODE_DEMO_TOKEN"]
print(http_status(f"http://127.0.0.1:{port}/pets", {"Authorization": "Bearer " + token}))
print(ensure_petstore(port))
"""


def test_ensure_petstore_starts_the_api_for_its_process_and_stops_it_at_exit(demo_env: dict[str, str]) -> None:
    """What notebook 06 does when it was opened without make demo."""
    env = {k: v for k, v in demo_env.items() if k != "CODEMODE_DEMO_TOKEN"}
    port = free_port()
    done = subprocess.run([sys.executable, "-c", ENSURE, str(port)], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    started, status, again = done.stdout.splitlines()
    assert started.startswith(f"Started the demo API at http://127.0.0.1:{port}")
    assert status == "200"  # a fresh token was made and put where the connector reads it
    assert again == f"Using the demo API already running at http://127.0.0.1:{port}."
    assert not answers(port)


KILLED = """
import os, signal, sys
from codemode_kernel.launch_demo import ensure_petstore
print(ensure_petstore(int(sys.argv[1])), flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # no atexit, no cleanup: as when a kernel is killed
"""


def test_the_api_stops_by_itself_when_the_process_that_started_it_is_killed(demo_env: dict[str, str]) -> None:
    env = {k: v for k, v in demo_env.items() if k != "CODEMODE_DEMO_TOKEN"}
    port = free_port()
    done = subprocess.run([sys.executable, "-c", KILLED, str(port)], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert done.stdout.startswith(f"Started the demo API at http://127.0.0.1:{port}")
    deadline = time.monotonic() + 15
    while answers(port) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not answers(port)
