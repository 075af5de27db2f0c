"""s15k (review 15x L4): '%approve last' skips a paused execution its own cell replaced, says so, and
the replaced execution can still be approved by its id (the person decides, having read it)."""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel, notes


def test_approve_last_names_the_replaced_run_and_its_id_still_approves_it(kernel: Kernel) -> None:
    first = kernel.execute('notes.add_note(text="s15k old")', cell_id="cell-1")
    second = kernel.execute('notes.add_note(text="s15k new")', cell_id="cell-1")
    assert first.card is not None and second.card is not None
    old = second.stderr.split("(execution ", 1)[1].split(")", 1)[0]
    assert "%approve last no longer names" in second.stderr, second.stderr
    kernel.ok("%approve last")
    assert notes(kernel.folder) == ["s15k new"]
    refused = kernel.execute("%approve last")
    assert refused.error is not None, refused.stdout
    said = refused.error["evalue"]
    assert old in said and f"%approve {old}" in said and f"%reject {old}" in said, said
    assert notes(kernel.folder) == ["s15k new"]
    kernel.ok(f"%approve {old}")
    assert notes(kernel.folder) == ["s15k new", "s15k old"]
