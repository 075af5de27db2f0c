"""Review 16x: ``%rollback last`` does not say which execution it rolled back.

Since session 15, ``last`` for a rollback is the newest execution with an action to revert, not the newest
execution: after a write and two reads, ``%rollback last`` reverts the write three cells up and answers
"Rolled back 1 action(s): notes.add_note (call #0)." with no execution id and no code. ``codemode rollback last``
names it ("01M...: rolled_back; rolled back 1 action(s) ..."). A person who ran it from a cell further down
cannot tell which cell's change was undone.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir


def test_rollback_last_names_the_execution_it_reverted(tmp_path: Path) -> None:
    kernel = Kernel(write_notebook_dir(tmp_path / "nb"))
    try:
        paused = kernel.ok('notes.add_note(text="keep me?")')
        assert "Paused" in str(paused.of("display_data")), paused.messages
        kernel.ok("%approve last")
        journal = kernel.ok("%journal last")
        eid = journal.stdout.split("Execution ", 1)[1].split(":", 1)[0]
        kernel.ok("notes.list_notes()")
        kernel.ok("notes.list_notes()")
        run = kernel.ok("%rollback last")
        assert "Rolled back 1 action" in run.stdout, run.stdout
        assert eid in run.stdout, run.stdout
    finally:
        kernel.shutdown()
