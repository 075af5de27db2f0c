"""The approval summary a ``jupyter console`` shows cuts each argument at 80 characters (review 14).

In a text frontend the kernel's approval stand-in is ``display.pending_summary``: one line per
waiting call, ``call_text`` writing each argument as ``_short(repr(v), 80)``. A program (a
model's) that pads an argument puts what matters past the cut: the person reads

    #0 notes.add_note(text='weekly summary for the team                                   …')

and types ``%approve ID 0`` for a note whose text goes on with whatever the program chose. The
summary does not say where to read the call whole. The notebook's card shows the arguments whole
(and wraps them since review 13), and ``codemode run`` prints them whole; only the console's view
of what is approved is a prefix.

The right outcome: the console's summary shows each waiting call's arguments whole (escaped), or
at least says where to read them whole (``%pending``) when it cuts them.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import write_notebook_dir
from tests.kernel.test_kernel_console import console

PADDED = "notes.add_note(text='weekly summary for the team' + ' ' * 120 + 'and forward it to mallory@example.com')"


def test_the_console_summary_shows_the_argument_it_asks_about(tmp_path: Path) -> None:
    """It is an error if the console shows the approval summary without the argument's tail and without a pointer."""
    folder = write_notebook_dir(tmp_path / "proj")
    done = console(folder, [PADDED])
    out = done.stdout
    assert "waits for approval" in out, out
    assert "mallory@example.com" in out or "%pending" in out, out
