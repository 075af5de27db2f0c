"""A program's output does not script the terminal of a ``jupyter console`` session (review 13).

``jupyter console`` is a supported frontend (issue 16: ``exit``, ``%approve last``), and the
kernel's approval stand-in for it is the text ``display.pending_summary`` prints after the cell's
output. The kernel passes a program's printed text to the console as it is, escape sequences
included, and the console writes it to the terminal. So a program can print a fake summary and
then ``\\x1b[8m`` (conceal): the kernel's real summary that follows is invisible, and the person
reads

    Paused: execution X waits for approval of 1 action(s):
      #0 notes.list_notes()

before typing ``%approve last`` for ``notes.add_note(text='evil')``. The same bytes set the
window title (OSC 0), write the clipboard (OSC 52) or switch the character set. terminal.py makes
the ``codemode`` command's views inert; the kernel's text reaches terminals too.

The right outcome: what reaches the console's terminal from a program carries no sequence that
hides, moves or rewrites text (colours may stay, as JupyterLab shows them); the real summary is
readable.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import write_notebook_dir
from tests.kernel.test_kernel_console import console

FAKE = ("print('Paused: execution X waits for approval of 1 action(s):\\n  #0 notes.list_notes()'"
        " + '\\x1b]0;notes\\x07\\x1b[8m')\nnotes.add_note(text='evil')")


def test_a_program_cannot_conceal_the_approval_summary_in_a_console(tmp_path: Path) -> None:
    """It is an error if the console's terminal receives the program's conceal or OSC sequence."""
    folder = write_notebook_dir(tmp_path / "proj")
    done = console(folder, [FAKE.replace("\n", "; "), "r = 'next'"])
    out = done.stdout
    assert "notes.add_note(text='evil')" in out, out  # the kernel's real summary was printed
    assert "\x1b[8m" not in out, "the program's conceal sequence reached the terminal"
    assert "\x1b]0;" not in out, "the program's OSC title sequence reached the terminal"


def test_an_error_message_cannot_conceal_text_in_a_console(tmp_path: Path) -> None:
    """It is an error if a program's exception text or a connector's error text carries SGR 8 to the terminal."""
    folder = write_notebook_dir(tmp_path / "proj")
    done = console(folder, ["raise ValueError('C\\x1b[8mD')", "notes.fail(message='E\\x1b[8mF')"])
    out = done.stdout + done.stderr
    assert "ValueError" in out and "ConnectorError" in out, out
    assert "C\x1b[8mD" not in out, "the program's exception text reached the terminal raw"
    assert "E\x1b[8mF" not in out, "the connector's error text reached the terminal raw"
