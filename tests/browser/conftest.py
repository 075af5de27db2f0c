"""A real JupyterLab server on 127.0.0.1 and Debian's chromium driven by playwright.

The server runs from this virtualenv with scratch config/runtime/workspace folders, so it
never touches the user's Jupyter setup; it serves a notebook folder with the kernel tests'
demo connector (calls counted in SQLite, so exactly-once is checked from outside).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.kernel.kernel_harness import write_notebook_dir

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
# Screenshots always land in tests/artifacts/; CODEMODE_UPDATE_SCREENSHOTS=1 writes the README's copies
# in docs/images/ instead, so an ordinary test run leaves the working tree clean.
SCREENSHOTS = ROOT / "docs" / "images" if os.environ.get("CODEMODE_UPDATE_SCREENSHOTS") else ARTIFACTS


def notebook(kernel_name: str, display_name: str, cells: list[str]) -> dict[str, Any]:
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": kernel_name, "display_name": display_name, "language": "python"}},
        "cells": [{"cell_type": "code", "id": f"cell{i}", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": src} for i, src in enumerate(cells)],
    }


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    folder: Path
    log: Path

    def api(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
        return json.loads(text) if text else None

    def page_url(self, path: str) -> str:
        return f"{self.url}/lab/tree/{path}?token={self.token}&reset"

    def close_sessions(self) -> None:
        """Every test starts with fresh kernels (a reused kernel keeps its state)."""
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is missing: run `make browser-deps` (apt-get install chromium)")
    if not (Path(sys.prefix) / "share/jupyter/labextensions/codemode-kernel/package.json").exists():
        pytest.fail("the Code Mode lab extension is not installed in this environment: run `make labextension`")
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    folder = write_notebook_dir(root / "work", executor="")  # the product's isolated executor
    (folder / "approvals.ipynb").write_text(json.dumps(notebook("codemode", "Code Mode", [
        "seen = notes.list_notes()\nmade = notes.add_note(text='written from the browser')\n"
        "[len(seen), made['text']]",
    ])), encoding="utf-8")
    (folder / "actions.ipynb").write_text(json.dumps(notebook("codemode", "Code Mode", [
        "notes.list_notes()", "notes.add_note(text='never written')",
    ])), encoding="utf-8")
    (folder / "plain.ipynb").write_text(json.dumps(notebook("python3", "Python 3 (ipykernel)", ["1 + 1"])),
                                        encoding="utf-8")
    config = base / "config"
    (config / "labconfig").mkdir(parents=True)
    # The news toast would cover the notebook in screenshots.
    (config / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}), encoding="utf-8")
    token = secrets.token_hex(16)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "CODEMODE_"))}
    env.update(JUPYTER_CONFIG_DIR=str(config), JUPYTER_RUNTIME_DIR=str(base / "runtime"),
               JUPYTER_DATA_DIR=str(base / "data"), IPYTHONDIR=str(base / "ipython"))
    log = base / "lab.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
             f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
             f"--LabApp.workspaces_dir={base / 'workspaces'}", "--ServerApp.port_retries=0"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    lab = Lab(f"http://127.0.0.1:{port}", token, root, folder, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                lab.api("GET", "/api/status")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.2)
        yield lab
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        # The server's log (kernels' stderr included) is kept for the failures' post-mortem.
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log, ARTIFACTS / "lab.log")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope, not session: while sync_playwright() is open its event loop is registered as
    # running in the main thread, and every async test collected after this module would fail with
    # "Cannot run the event loop while another loop is running".
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@dataclass
class UI:
    """A browser page on the lab, and the console errors it logged."""

    page: Any
    errors: list[str]


@pytest.fixture
def ui(browser: Any, lab: Lab, request: pytest.FixtureRequest) -> Iterator[UI]:
    lab.close_sessions()
    context = browser.new_context(viewport={"width": 1440, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield UI(page, errors)
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()
    lab.close_sessions()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    # Keep the call phase's report on the test item so the page fixture can save a
    # screenshot of a failure (tests/artifacts/ is gitignored).
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
