"""The teaching notebooks run clean under the other ways people run notebooks: papermill and nbconvert.

Both are run as their users run them, from the command line, in a fresh copy of
``examples/notebooks``, without the notebook path JupyterLab gives the kernel. papermill fails
a run on *any* error output (it ignores the ``raises-exception`` tag), so a notebook passes
only if none of its cells failed; nbconvert's executor would stop at the first failed cell.
Every code cell must have run, and the lessons about errors must still show their errors.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from tests.examples.notebook_run import CELL_TIMEOUT, errors, make_workspace, notebook_names, processes_in, text

pytestmark = pytest.mark.timeout(300)

BIN = Path(sys.executable).parent
# Variables of the developer's shell that would change what the kernel reads.
_UNSET = ("CODEMODE_CONFIG", "CODEMODE_STORE", "JPY_SESSION_NAME")
# Cells whose lesson is an error: what each must still show (caught and printed, not failed).
ERROR_LESSONS = {
    "01_tour": ("tour-refused", "ImportError: module 'os' is not available in Code Mode."),
    "02_approvals_and_replay": ("diverge-approve", "status: error\nReplayDivergence: Replay divergence"),
    "03_rollback": ("rollback-rollback", "RollbackError:"),
    "06_openapi": ("openapi-no-os", "ImportError: module 'os' is not available in Code Mode."),
}


def _command(runner: str, source: Path, target: Path) -> list[str]:
    if runner == "papermill":
        return [str(BIN / "papermill"), str(source), str(target), "--cwd", str(source.parent),
                "--execution-timeout", str(CELL_TIMEOUT), "--no-progress-bar"]
    return [str(BIN / "jupyter"), "nbconvert", "--to", "notebook", "--execute", str(source),
            "--output", str(target), f"--ExecutePreprocessor.timeout={CELL_TIMEOUT}"]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _UNSET}
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    return env


def _port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.parametrize("runner", ["papermill", "nbconvert"])
@pytest.mark.parametrize("name", notebook_names())
def test_a_teaching_notebook_runs_clean(tmp_path: Path, name: str, runner: str) -> None:
    if name == "06_openapi" and not _port_is_free(8765):
        pytest.fail("port 8765 is in use (a running `make demo`?): notebook 06 starts its own demo API there")
    folder = make_workspace(tmp_path)
    source, target = folder / f"{name}.ipynb", folder / f"{name}.{runner}.ipynb"
    done = subprocess.run(_command(runner, source, target), env=_env(), cwd=folder, capture_output=True,
                          text=True, timeout=280, check=False)
    assert done.returncode == 0, f"{runner} failed on {name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    nb = nbformat.read(target, as_version=4)
    assert errors(nb) == []
    unrun = [c.id for c in nb.cells if c.cell_type == "code" and c.execution_count is None]
    assert unrun == [], f"cells that did not run: {unrun}"
    if name in ERROR_LESSONS:
        cell_id, shown = ERROR_LESSONS[name]
        assert shown in text(nb, cell_id)
    deadline = time.monotonic() + 10
    while processes_in(folder) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_in(folder) == [], "the kernel's MCP servers and demo API stop with it"
