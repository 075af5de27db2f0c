"""A notebook run headless with nbclient: it pauses, and `%approve last` approves it."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tests.kernel.kernel_harness import calls, notes, write_notebook_dir

CELLS = [
    "k = 2",
    "note = notes.add_note(text=f'headless {k}')\nprint('added', note['id'])\nnote['text']",
    "%approve last",
    "%journal last",
    "notes.list_notes()",
]


def notebook(cells: list[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "codemode", "display_name": "Code Mode", "language": "python"}
    return nb


def run(folder: Path, cells: list[str]) -> nbformat.NotebookNode:
    nb = notebook(cells)
    # As nbclient and papermill run notebooks: no JPY_SESSION_NAME, the notebook's folder as cwd.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "CODEMODE_"))}
    env["IPYTHONDIR"] = str(folder / ".ipython")
    client = NotebookClient(nb, timeout=60, kernel_name="codemode", resources={"metadata": {"path": str(folder)}})
    client.execute(env=env)
    return nb


def texts(cell: nbformat.NotebookNode) -> str:
    parts = []
    for out in cell.outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.data.get("text/plain", ""))
        elif out.output_type == "error":
            parts.append(f"{out.ename}: {out.evalue}")
    return "\n".join(parts)


def test_a_headless_notebook_pauses_and_is_approved_with_approve_last(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    nb = run(folder, CELLS)
    paused, approved, journal, listed = nb.cells[1], nb.cells[2], nb.cells[3], nb.cells[4]
    assert "Paused: execution" in texts(paused) and "notes.add_note(text='headless 2')" in texts(paused)
    assert "added" not in texts(paused)
    assert "added 1" in texts(approved) and "'headless 2'" in texts(approved)
    assert "completed, 2 pass(es)" in texts(journal)
    assert "headless 2" in texts(listed)
    assert calls(folder, "add_note") == 1 and notes(folder) == ["headless 2"]
    assert (folder / ".codemode" / "nb.codemode.db").is_file(), "no notebook name: the store is named after the folder"
    assert "widgets" in nb.metadata, "the approval card's widget state is saved in the notebook"


def test_a_failing_cell_stops_a_headless_run(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    with pytest.raises(CellExecutionError) as info:
        run(folder, ["x = 1", "notes.fail(message='stop here')", "notes.add_note(text='never')"])
    assert "ConnectorError" in str(info.value) and "stop here" in str(info.value)
    assert calls(folder, "add_note") == 0
