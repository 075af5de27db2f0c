"""Review 15x: re-running a paused cell leaves its earlier execution paused, approvable by ``last``.

A cell pauses at ``notes.add_note(text="typo")``; the person sees the typo, fixes the cell and
runs it again (the same cell: JupyterLab replaces its output, and the old card with it). The
re-run says so on stderr ("Note: the previous run of this cell (execution X) still waits for
approval; this run is a new execution. %reject X drops the old one."), but the old execution
stays paused: ``%pending`` lists both, the panel too, and once the new one is approved,
``%approve last`` names the old one - the typo is written. (A judgement call: the note is
there by design; the spec asks that ``last`` never pick an execution its own cell replaced.)
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel, notes


def test_a_rerun_cell_does_not_leave_its_old_action_for_approve_last(kernel: Kernel) -> None:
    first = kernel.execute('notes.add_note(text="r15x typo")', cell_id="cell-1")
    assert first.card is not None
    second = kernel.execute('notes.add_note(text="r15x fixed")', cell_id="cell-1")
    said = second.stdout + second.stderr + "".join(str(c["data"].get("text/plain", ""))
                                                   for c in second.of("display_data"))
    kernel.ok("%approve last")
    again = kernel.execute("%approve last")  # the person's habit: approve what is left
    assert "r15x typo" not in notes(kernel.folder), (said, again.stdout)
