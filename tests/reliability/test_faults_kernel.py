"""Faults seen from a notebook: a corrupted journal beside it stops cells with advice, not the kernel."""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir


def test_a_corrupted_journal_stops_cells_with_advice_until_it_is_moved_aside(tmp_path: Path) -> None:
    """Each cell says the journal is corrupted and what to do; the file is kept as it was; once it is
    moved aside, the next cell runs on a new journal without restarting the kernel."""
    folder = write_notebook_dir(tmp_path / "nb")
    journal = folder / "analysis.codemode.db"
    garbage = b"not a journal " * 4096
    journal.write_bytes(garbage)
    kernel = Kernel(folder)
    try:
        for _ in range(2):
            run = kernel.execute("1 + 1")
            assert run.error is not None and run.error["ename"] == "StoreError"
            assert "corrupted" in run.error["evalue"] and "Move it aside" in run.error["evalue"]
        assert journal.read_bytes() == garbage
        journal.rename(folder / "analysis.codemode.db.corrupt")
        assert kernel.ok("1 + 1").result == {"text/plain": "2"}
        assert kernel.ok("len(notes.list_notes())").result == {"text/plain": "0"}
    finally:
        kernel.shutdown()
