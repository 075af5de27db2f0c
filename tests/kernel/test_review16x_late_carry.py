"""Review 16x: approving an older cell silently replaces a carried name a later cell set.

Cell B ``t = t + "!"; notes.add_note(text=t)`` pauses; cell C sets ``t = "two"``; ``%approve last`` completes B,
whose names are carried then: ``t`` is ``"one!"`` again, and nothing says that C's value was replaced. In a plain
notebook only a cell the person runs assigns; here a click on an old card does, possibly much later, and the
person's newer value is gone without a word.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir


def test_an_approval_that_replaces_a_newer_carried_value_says_so(tmp_path: Path) -> None:
    kernel = Kernel(write_notebook_dir(tmp_path / "nb"))
    try:
        kernel.ok('t = "one"')
        paused = kernel.ok('t = t + "!"\nnotes.add_note(text=t)')
        assert "Paused" in str(paused.of("display_data")), paused.messages
        kernel.ok('t = "two"')
        approved = kernel.ok("%approve last")
        now = kernel.ok("t").result
        assert now is not None
        said = approved.stdout + approved.stderr
        assert now["text/plain"] == "'two'" or " t " in f" {said.replace(',', ' ').replace(':', ' ')} ", said
    finally:
        kernel.shutdown()
