"""The kernel under a real ``jupyter console`` (issue 16, item 5).

``exit`` used to raise ``NameError`` (it is not a sandbox name), and ``%approve last`` on a
cell without a final expression printed nothing: the console shows no widgets, and the card
was all that changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, notes, write_notebook_dir

CONSOLE = [sys.executable, "-m", "jupyter_console", "--kernel", "codemode", "--simple-prompt"]


def console(folder: Path, lines: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "CODEMODE_"))}
    env.update(IPYTHONDIR=str(folder / ".ipython"), PYDEVD_DISABLE_FILE_VALIDATION="1",
               JUPYTER_RUNTIME_DIR=str(folder / ".runtime"))
    return subprocess.run(CONSOLE, input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=folder,
                          env=env, timeout=120)


def test_exit_ends_a_jupyter_console_session_and_approve_last_says_how_it_ended(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "proj")
    done = console(folder, ["n = notes.add_note(text='from the console')", "%approve last", "exit", "40 + 2"])
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "waits for approval of 1 action(s)" in out
    assert "completed. The cell has no final expression, so there is no result to show" in out
    assert "NameError" not in out + done.stderr
    assert "42" not in out, "exit ended the session: the next line never ran"
    assert notes(folder) == ["from the console"]
    assert (folder / ".codemode" / "proj.codemode.db").is_file(), "a console's journal is named after its folder"


def test_approve_last_with_a_result_shows_the_result_and_no_extra_line(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    kernel = Kernel(folder)
    try:
        kernel.ok("notes.add_note(text='one')")
        with_result = kernel.ok("%approve last")
        assert "no final expression" not in with_result.stdout
        kernel.ok("n = notes.add_note(text='two')")
        without = kernel.ok("%approve last")
        assert "Approved: execution " in without.stdout and "no final expression" in without.stdout
    finally:
        kernel.shutdown()
