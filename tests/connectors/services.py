"""Real services for the connector tests: the bundled demos, started as processes on 127.0.0.1."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import httpx

from codemode_kernel.demo.serving import READY_PREFIX

TOKEN = "s3cret-test-token"


@dataclass
class Service:
    """A demo process and the URL it announced."""

    url: str
    process: subprocess.Popen[str]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def requests(self) -> dict[str, int]:
        """Requests per operation as counted by the demo HTTP service."""
        data: dict[str, int] = httpx.get(self.url + "/_debug/requests", timeout=10).json()
        return data


def start(module: str, args: Sequence[str] = (), env: Mapping[str, str] | None = None,
          timeout: float = 30.0) -> Service:
    """Run ``python -m module --port 0 ...`` and wait for its "listening on" line."""
    process = subprocess.Popen(
        [sys.executable, "-m", module, "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, **(env or {})})
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            line = process.stdout.readline()
            if line.startswith(READY_PREFIX):
                service = Service(line[len(READY_PREFIX):].strip(), process)
                _wait_until_answering(service.url)
                return service
        if process.poll() is not None:
            break
    process.kill()
    err = process.stderr.read() if process.stderr else ""
    raise RuntimeError(f"{module} did not start: {err[-2000:]}")


def _wait_until_answering(url: str) -> None:
    root = url.removesuffix("/mcp")
    for _ in range(100):
        try:
            httpx.get(root + "/health", timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
