"""A notebook's journal follows it through renames and moves; a copy starts its own (issue 16, items 2 and 7).

Each test drives a real kernel over jupyter_client. The lab extension's side of a rename is
the ``codemode.notebook`` comm, opened here as JupyterLab opens it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from codemode_kernel.journal_files import read_identity
from tests.kernel.kernel_harness import Kernel, Run, write_notebook_dir


def journal(folder: Path, stem: str) -> Path:
    return folder / ".codemode" / f"{stem}.codemode.db"


def executions(db: Path) -> list[str]:
    c = sqlite3.connect(db)  # closed at once: an open connection would keep the journal from moving
    try:
        return [code for (code,) in c.execute("select code from codemode_executions order by created_at, id")]
    finally:
        c.close()


def shown(run: Run) -> str:
    """The text of everything the cell displayed."""
    return "\n".join(str(c["data"].get("text/plain", "")) for c in run.of("display_data") + run.of("execute_result"))


def write_notebook(path: Path, journal_id: str | None) -> None:
    """A notebook file as JupyterLab saves it after the extension kept the journal id in its metadata."""
    metadata: dict[str, Any] = {"kernelspec": {"name": "codemode", "display_name": "Code Mode"}}
    if journal_id:
        metadata["codemode"] = {"journal": journal_id}
    path.write_text(json.dumps({"cells": [], "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}))


def tell_path(kernel: Kernel, path: str, previous: str | None = None, comm: str | None = None) -> tuple[str, dict]:
    """Open (or reuse) the notebook comm, send the path, and return the kernel's answer."""
    data = {"type": "path", "path": path, "previous": previous}
    if comm is None:
        comm = kernel.open_comm("codemode.notebook", data)
    else:
        kernel.comm_msg(comm, data)
    answers: list[dict[str, Any]] = []

    def answered() -> bool:
        return bool(answers)

    def grab(msg: dict[str, Any]) -> None:
        if msg["msg_type"] == "comm_msg" and msg["content"]["comm_id"] == comm:
            answers.append(msg["content"]["data"])

    original = kernel.widgets.feed
    kernel.widgets.feed = lambda msg: (grab(msg), original(msg))  # type: ignore[method-assign]
    try:
        kernel.wait_until(answered, what="the kernel's journal answer")
    finally:
        kernel.widgets.feed = original  # type: ignore[method-assign]
    return comm, answers[0]


def test_journals_live_in_a_hidden_folder_named_after_the_notebook(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    kernel = Kernel(folder, notebook="analysis.ipynb")
    try:
        kernel.ok("1 + 1")
    finally:
        kernel.shutdown()
    assert executions(journal(folder, "analysis")) == ["1 + 1"]
    assert not list(folder.glob("*.codemode.db*")), "nothing but the notebook's own files in the file browser"


def test_an_older_journal_beside_the_notebook_is_moved_into_the_hidden_folder(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    legacy = folder / "analysis.codemode.db"
    old = Kernel(folder, notebook="analysis.ipynb", env={"CODEMODE_STORE": f"sqlite:///{legacy}"})
    try:
        old.ok("40 + 2")
    finally:
        old.shutdown()
    assert legacy.is_file()
    kernel = Kernel(folder, notebook="analysis.ipynb")
    try:
        first = kernel.ok("%executions")
        assert "Moved the journal analysis.codemode.db into .codemode/" in first.stdout
        assert "40 + 2" in shown(first)
    finally:
        kernel.shutdown()
    assert not legacy.exists() and executions(journal(folder, "analysis")) == ["40 + 2"]


def test_an_older_journal_another_program_holds_open_is_read_where_it_is(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    legacy = folder / "analysis.codemode.db"
    old = Kernel(folder, notebook="analysis.ipynb", env={"CODEMODE_STORE": f"sqlite:///{legacy}"})
    try:
        old.ok("40 + 2")
        kernel = Kernel(folder, notebook="analysis.ipynb")  # the old kernel still has the file open
        try:
            run = kernel.ok("%executions")
            assert "The journal stays at analysis.codemode.db for now" in run.stdout
            assert "40 + 2" in shown(run)
        finally:
            kernel.shutdown()
    finally:
        old.shutdown()
    assert legacy.is_file() and not journal(folder, "analysis").exists()


def test_a_rename_while_the_kernel_runs_moves_the_journal_and_a_restart_finds_it(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "root" / "work")
    write_notebook(folder / "Untitled.ipynb", None)
    kernel = Kernel(folder, notebook="Untitled.ipynb")
    try:
        comm, answer = tell_path(kernel, "work/Untitled.ipynb")
        assert answer["note"] is None and answer["journal"] == str(journal(folder, "Untitled"))
        kernel.ok("notes.list_notes()")
        (folder / "Untitled.ipynb").rename(folder / "analysis.ipynb")  # what JupyterLab's rename does on disk
        _, renamed = tell_path(kernel, "work/analysis.ipynb", "work/Untitled.ipynb", comm)
        assert renamed["note"] is None, renamed
        assert renamed["journal"] == str(journal(folder, "analysis"))
        assert renamed["journal_id"] == answer["journal_id"], "the notebook keeps its journal id"
        run = kernel.ok("%executions")
        assert "notes.list_notes()" in shown(run)
        kernel.ok("1 + 2")
    finally:
        kernel.shutdown()
    assert not journal(folder, "Untitled").exists()
    assert executions(journal(folder, "analysis")) == ["notes.list_notes()", "1 + 2"]
    identity = read_identity(journal(folder, "analysis"))
    assert identity is not None and identity.notebook == str(folder / "analysis.ipynb")
    restarted = Kernel(folder, notebook="analysis.ipynb")
    try:
        run = restarted.ok("%executions")
        assert "notes.list_notes()" in shown(run)
    finally:
        restarted.shutdown()


def test_a_move_to_another_folder_takes_the_journal_along(tmp_path: Path) -> None:
    root = tmp_path / "root"
    folder = write_notebook_dir(root / "a")
    other = write_notebook_dir(root / "b")
    kernel = Kernel(folder, notebook="nb.ipynb")
    try:
        comm, _ = tell_path(kernel, "a/nb.ipynb")
        kernel.ok("2 * 21")
        _, moved = tell_path(kernel, "b/nb.ipynb", "a/nb.ipynb", comm)
        assert moved["journal"] == str(journal(other, "nb")) and moved["note"] is None
        kernel.ok("3 * 3")
    finally:
        kernel.shutdown()
    assert executions(journal(other, "nb")) == ["2 * 21", "3 * 3"]
    assert not journal(folder, "nb").exists()


def test_a_path_from_the_browser_that_leaves_the_server_root_is_refused(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    kernel = Kernel(folder, notebook="analysis.ipynb")
    try:
        comm, _ = tell_path(kernel, "analysis.ipynb")
        kernel.ok("7")
        _, refused = tell_path(kernel, "../elsewhere/x.ipynb", "analysis.ipynb", comm)
        assert "refusing the path" in refused["note"] and refused["journal_id"] is None
        assert "7" in shown(kernel.ok("%executions"))
    finally:
        kernel.shutdown()
    assert journal(folder, "analysis").is_file()


def _journal_id_after_one_cell(folder: Path, stem: str) -> str:
    kernel = Kernel(folder, notebook=f"{stem}.ipynb")
    try:
        _, answer = tell_path(kernel, f"{stem}.ipynb")
        kernel.ok("6 * 7")
    finally:
        kernel.shutdown()
    write_notebook(folder / f"{stem}.ipynb", answer["journal_id"])  # the extension put it in the metadata
    return str(answer["journal_id"])


def test_a_notebook_renamed_while_no_kernel_ran_finds_its_journal_by_its_metadata(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    journal_id = _journal_id_after_one_cell(folder, "Untitled")
    (folder / "Untitled.ipynb").rename(folder / "analysis.ipynb")
    kernel = Kernel(folder, notebook="analysis.ipynb")
    try:
        run = kernel.ok("%executions")
        assert "The journal followed the notebook from Untitled.ipynb" in run.stdout, run.stdout
        assert "6 * 7" in shown(run)
        _, answer = tell_path(kernel, "analysis.ipynb")
        assert answer["journal_id"] == journal_id
    finally:
        kernel.shutdown()
    assert not journal(folder, "Untitled").exists()
    assert executions(journal(folder, "analysis"))[0] == "6 * 7"


def test_a_copy_starts_a_journal_of_its_own_and_says_so(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    journal_id = _journal_id_after_one_cell(folder, "analysis")
    shutil.copy(folder / "analysis.ipynb", folder / "analysis-Copy1.ipynb")
    kernel = Kernel(folder, notebook="analysis-Copy1.ipynb")
    try:
        run = kernel.ok("%executions")
        assert "This notebook is a copy of analysis.ipynb: it starts a journal of its own" in run.stdout
        assert "No executions yet" in shown(run)
        _, answer = tell_path(kernel, "analysis-Copy1.ipynb")
        assert answer["journal_id"] != journal_id, "the copy gets an id of its own for its metadata"
    finally:
        kernel.shutdown()
    assert executions(journal(folder, "analysis")) == ["6 * 7"], "the original's history is untouched"
    assert journal(folder, "analysis-Copy1").is_file()


def test_headless_runs_name_the_journal_after_the_folder_or_codemode_notebook(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "proj")
    kernel = Kernel(folder, notebook=None)
    try:
        kernel.ok("1")
    finally:
        kernel.shutdown()
    assert journal(folder, "proj").is_file()
    named = Kernel(folder, notebook=None, env={"CODEMODE_NOTEBOOK": "report.ipynb"})
    try:
        named.ok("2")
    finally:
        named.shutdown()
    assert executions(journal(folder, "report")) == ["2"]


def test_a_rename_while_another_kernel_has_the_journal_open_leaves_it_and_a_later_start_moves_it(
        tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    write_notebook(folder / "Untitled.ipynb", None)
    first = Kernel(folder, notebook="Untitled.ipynb")
    second = Kernel(folder, notebook="Untitled.ipynb")  # e.g. a second kernel on the same notebook
    try:
        comm, answer = tell_path(first, "Untitled.ipynb")
        first.ok("1 + 1")
        second.ok("2 + 2")
        (folder / "Untitled.ipynb").rename(folder / "analysis.ipynb")
        write_notebook(folder / "analysis.ipynb", answer["journal_id"])  # saved with the id, as the lab does
        _, renamed = tell_path(first, "analysis.ipynb", "Untitled.ipynb", comm)
        assert "another program" in renamed["note"] and "follows the notebook" in renamed["note"], renamed
        assert renamed["journal"] == str(journal(folder, "Untitled")), "used where it is, nothing lost"
        run = first.ok("3 + 3")
        assert "The journal stays at" in run.stdout, "the next cell says why it did not follow"
        assert "1 + 1" in shown(first.ok("%executions")) and "2 + 2" in shown(second.ok("%executions"))
    finally:
        first.shutdown()
        second.shutdown()
    later = Kernel(folder, notebook="analysis.ipynb")
    try:
        run = later.ok("%executions")
        assert "The journal followed the notebook: .codemode/Untitled.codemode.db → .codemode/analysis" in run.stdout
        assert all(code in shown(run) for code in ("1 + 1", "2 + 2", "3 + 3"))
    finally:
        later.shutdown()
    assert not journal(folder, "Untitled").exists()


def test_nbconvert_names_the_journal_after_the_folder_unless_codemode_notebook_names_it(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    folder = write_notebook_dir(tmp_path / "proj")
    nb = {"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": None, "outputs": [],
                     "source": "6 * 7"}],
          "metadata": {"kernelspec": {"name": "codemode", "display_name": "Code Mode", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (folder / "report.ipynb").write_text(json.dumps(nb))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "CODEMODE_"))}
    env.update(IPYTHONDIR=str(folder / ".ipython"), PYDEVD_DISABLE_FILE_VALIDATION="1")
    command = [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--output", "out", "report.ipynb"]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert executions(journal(folder, "proj")) == ["6 * 7"], "nbconvert says no notebook name: the folder's"
    done = subprocess.run(command, cwd=folder, env={**env, "CODEMODE_NOTEBOOK": "report.ipynb"},
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert executions(journal(folder, "report")) == ["6 * 7"]
