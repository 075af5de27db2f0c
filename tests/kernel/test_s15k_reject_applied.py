"""s15k (review 15x L12, the kernel's side): a rejection says which calls ran before it and stay
applied, and how to revert them (the engine's spec covers `codemode reject`)."""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel, notes


def test_reject_names_the_calls_that_stay_applied(kernel: Kernel) -> None:
    kernel.execute('notes.add_note(text="s15k one")\nnotes.add_note(text="s15k two")')
    kernel.ok("%approve last")
    run = kernel.ok("%reject last")
    assert notes(kernel.folder) == ["s15k one"]
    assert "#0 notes.add_note ran before it and stay applied" in run.stdout, run.stdout
    assert "Roll back reverts them (%rollback " in run.stdout, run.stdout
