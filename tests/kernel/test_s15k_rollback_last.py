"""s15k (review 15x M11): '%rollback last' is the newest of the notebook's executions with a call to
revert, so cells that only read (or print) do not hide it, and a second '%rollback last' undoes the
write before (an undo, newest first)."""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel, notes


def test_rollback_last_undoes_the_writes_newest_first_past_the_reads(kernel: Kernel) -> None:
    for text in ("s15k first", "s15k second"):
        kernel.ok(f'notes.add_note(text="{text}")')
        kernel.ok("%approve last")
    kernel.ok("notes.list_notes()")
    kernel.ok("print('looked')")
    kernel.ok("%rollback last")
    assert notes(kernel.folder) == ["s15k first"]
    kernel.ok("%rollback last")
    assert notes(kernel.folder) == []
    nothing = kernel.execute("%rollback last")
    said = nothing.stdout + (nothing.error["evalue"] if nothing.error else "")
    assert "Nothing to roll back" in said, said
