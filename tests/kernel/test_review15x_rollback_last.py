"""Review 15x: ``%rollback last`` after a look at the result rolls back the look.

The natural sequence: a cell writes (approved), the next cell reads to check what it did
(``notes.list_notes()``), the person decides to undo and types ``%rollback last``. ``last``
is "the newest finished" execution, the read: the answer is "Nothing to roll back: no applied
action of this execution can be reverted." - it names neither the execution it looked at nor
the one, two cells up, that has an action to revert; the write stays.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel, notes


def test_rollback_last_after_a_read_reverts_the_write_or_names_it(kernel: Kernel) -> None:
    kernel.ok('notes.add_note(text="r15x oops")')
    kernel.ok("%approve last")
    write = kernel.ok("%executions 1").of("display_data")[0]["data"]["text/plain"].splitlines()[2].split()[0]
    kernel.ok("notes.list_notes()")
    run = kernel.execute("%rollback last")
    said = run.stdout + (run.error["evalue"] if run.error else "")
    assert "r15x oops" not in notes(kernel.folder) or write in said, said
