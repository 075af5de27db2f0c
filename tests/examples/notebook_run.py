"""Run a teaching notebook headless with nbclient, the way `make test` does, and read its outputs.

Each notebook runs in a scratch copy of ``examples/notebooks`` (so its notes store, MCP data
and journals start empty and the working tree is not touched). ``codemode.toml`` names the
demo OpenAPI document as ``../../codemode_kernel/demo/petstore.yaml``, so the copy sits at
``<tmp>/examples/notebooks`` beside a ``<tmp>/codemode_kernel`` link to the package.
"""

from __future__ import annotations

import ast
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "examples" / "notebooks"
KERNEL_NAME = "codemode"
CELL_TIMEOUT = 120
# Variables of the developer's shell that would change what the kernel reads.
_UNSET = ("CODEMODE_CONFIG", "CODEMODE_STORE", "JPY_SESSION_NAME")


def notebook_names() -> list[str]:
    return sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))


def make_workspace(tmp: Path) -> Path:
    """A scratch copy of the notebooks folder, laid out like the repository."""
    folder = tmp / "examples" / "notebooks"
    shutil.copytree(NOTEBOOKS, folder, ignore=shutil.ignore_patterns(
        "*.codemode.db*", ".codemode", "notes.sqlite*", "memo.json", "memo.tmp", ".ipynb_checkpoints",
        "__pycache__"))
    (tmp / "codemode_kernel").symlink_to(REPO / "codemode_kernel", target_is_directory=True)
    return folder


def kernel_env(notebook: Path) -> dict[str, str]:
    """The kernel's environment: as JupyterLab gives it (the notebook's path), venv first on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in _UNSET}
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([bin_dir, env.get("PATH", "")])
    # jupyter_server names the notebook this way; nbclient does not, so say it ourselves: the
    # kernel then keeps its journal beside the notebook, named after it.
    env["JPY_SESSION_NAME"] = str(notebook)
    return env


def run_notebook(folder: Path, name: str) -> nbformat.NotebookNode:
    """Execute ``name``.ipynb top to bottom in ``folder``; a cell that fails unexpectedly raises."""
    path = folder / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=KERNEL_NAME,
                            resources={"metadata": {"path": str(folder)}})
    client.execute(env=kernel_env(path))
    nbformat.write(nb, path)  # left in the scratch folder, for a look after a failure
    return nb


def cell(nb: nbformat.NotebookNode, cell_id: str) -> nbformat.NotebookNode:
    for c in nb.cells:
        if c.get("id") == cell_id:
            return c
    raise KeyError(f"no cell {cell_id!r} in the notebook")


def text(nb: nbformat.NotebookNode, cell_id: str) -> str:
    """Everything the cell showed as text: streams, plain-text displays and results, errors."""
    parts: list[str] = []
    for out in cell(nb, cell_id).outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type == "error":
            parts.append(f"{out.ename}: {out.evalue}\n")
        else:
            parts.append(str(out.get("data", {}).get("text/plain", "")) + "\n")
    return "".join(parts)


def result(nb: nbformat.NotebookNode, cell_id: str) -> Any:
    """The cell's result (its last ``execute_result``), read back from its Python repr."""
    results = [o for o in cell(nb, cell_id).outputs if o.output_type == "execute_result"]
    if not results:
        raise AssertionError(f"cell {cell_id!r} has no result; it showed:\n{text(nb, cell_id)}")
    return ast.literal_eval(results[-1].data["text/plain"])


def error(nb: nbformat.NotebookNode, cell_id: str) -> tuple[str, str]:
    """The cell's error as (name, message); fails when the cell did not fail."""
    errors = [o for o in cell(nb, cell_id).outputs if o.output_type == "error"]
    if not errors:
        raise AssertionError(f"cell {cell_id!r} did not fail; it showed:\n{text(nb, cell_id)}")
    return errors[-1].ename, errors[-1].evalue


def errors(nb: nbformat.NotebookNode) -> list[tuple[str, str, str]]:
    """Every error output of the notebook, as (cell id, name, message)."""
    return [(str(c.get("id")), o.ename, o.evalue) for c in nb.cells if c.cell_type == "code"
            for o in c.outputs if o.output_type == "error"]


def journal_rows(nb: nbformat.NotebookNode, cell_id: str) -> list[dict[str, str]]:
    """The rows of a ``%journal`` table: call, state and pass of each entry."""
    rows = []
    for out in cell(nb, cell_id).outputs:
        plain = str(out.get("data", {}).get("text/plain", ""))
        lines = plain.splitlines()
        if not lines or not lines[0].startswith("seq "):
            continue
        for line in lines[2:]:
            fields = line.split()
            rows.append({"seq": fields[0], "call": fields[1] if fields[1] != "step" else f"step {fields[2]}",
                         "state": fields[-2], "pass": fields[-1]})
    return rows


def processes_in(folder: Path) -> list[str]:
    """Command lines of live processes whose working directory is ``folder`` (Linux /proc)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cwd = Path(os.readlink(proc / "cwd"))
            if cwd == folder or folder in cwd.parents:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
                state = next((ln for ln in (proc / "status").read_text().splitlines() if ln.startswith("State:")),
                             "")
                if cmdline and "zombie" not in state:
                    found.append(cmdline)
        except OSError:
            continue
    return found
