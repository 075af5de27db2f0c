"""Review 16x: ``%snippet save NAME last`` after a cell that failed silently saves an older cell's code.

``last`` for a snippet save is the newest *completed* execution (selection.py). A person fixes a program over a
few failing cells, then saves it with ``%snippet save report last``: if the last run failed, the snippet is the code
of whatever cell completed before (any cell, maybe an hour ago), and the answer ("Saved snippet 'report' from
execution 01M...") shows neither that code nor that the newest run was skipped. ``codemode.run('report')`` then
does something else entirely.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir


def test_saving_last_after_a_failed_cell_says_what_it_saved(tmp_path: Path) -> None:
    kernel = Kernel(write_notebook_dir(tmp_path / "nb"))
    try:
        kernel.ok("old_value = 40 + 2")
        failed = kernel.execute("notes.list_notes()[0]['txt']")
        assert failed.status == "error"
        run = kernel.execute("%snippet save report last The report")
        said = run.stdout + run.stderr + (run.error["evalue"] if run.error else "")
        assert run.error is not None or "old_value = 40 + 2" in said, said
    finally:
        kernel.shutdown()
