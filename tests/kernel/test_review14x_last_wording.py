"""Review 14x: what ``last`` says when it names nothing.

In a notebook whose only execution is paused: ``%rollback last`` -> "There is no completed or
error or rejected execution to rollback." and ``%snippet save p last`` -> "There is no completed
or rolled_back execution to snippet." The purpose's internal key is used as a verb ("to
snippet", "to rollback") and the statuses as raw identifiers ("or error or rejected",
"rolled_back"); the paused execution the person is looking at is not mentioned.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_last_names_nothing_in_plain_words(kernel: Kernel) -> None:
    kernel.ok('notes.add_note(text="waits")')  # paused: nothing finished yet
    rollback = kernel.execute("%rollback last")
    snippet = kernel.execute("%snippet save p last")
    assert rollback.error is not None and snippet.error is not None
    said = rollback.error["evalue"] + "\n" + snippet.error["evalue"]
    assert "to snippet" not in said and "to rollback" not in said, said
    assert "or error or" not in said, said
