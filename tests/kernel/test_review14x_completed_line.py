"""Review 14x: the completed line offers ``%rollback`` for an execution that only read.

After ``notes.list_notes()`` the cell's card is shown as ``completed: execution 01M...
(1 connector call(s); %rollback, %snippet save)`` in ``text/plain`` (a console, nbconvert,
GitHub's notebook view). The card's own Roll back button is hidden for it (nothing to revert),
and ``%rollback last`` answers "Nothing to roll back": the plain-text line should not offer it.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_a_read_only_execution_is_not_offered_a_rollback(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok("notes.list_notes()")
    line = " ".join(str(c["data"].get("text/plain", "")) for c in run.of("display_data"))
    assert line.startswith("completed: execution"), line
    assert "%rollback" not in line, line

