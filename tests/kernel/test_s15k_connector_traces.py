"""s15k (review 15x M7): the author of a python connector sees where its code raised; the program
and the journal never do.

The frames shown are the author's own files only, on the cell's stderr, when the cell fails with
that call's error. A program that catches the error gets its message alone, and the cell shows
no traceback (the message was the program's answer).
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import NOTES_MODULE, Kernel, write_notebook_dir

RAISES = next(n for n, line in enumerate(NOTES_MODULE.splitlines(), 1) if "raise ValueError" in line)


def test_the_frames_name_the_authors_file_line_and_function(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute('notes.fail(message="s15k where")')
    assert run.error is not None and "s15k where" in run.error["evalue"]
    assert f'File "kernel_notes.py", line {RAISES}, in fail' in run.stderr, run.stderr
    assert "raise ValueError(message)" in run.stderr, run.stderr
    # The host's own files are not the author's: no frame of the package is shown.
    assert "codemode_kernel" not in run.stderr, run.stderr


def test_the_program_and_the_journal_get_the_message_only(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok('try:\n    notes.fail(message="s15k caught")\n'
                           'except Exception as e:\n    said = str(e)\nsaid')
    assert run.result is not None
    said = run.result["text/plain"]
    assert "s15k caught" in said and "kernel_notes" not in said, said
    assert "kernel_notes" not in run.stderr, run.stderr  # caught: nothing to debug on this cell
    journal = shared_kernel.ok("%journal last")
    shown = journal.stdout + "".join(str(d["data"].get("text/plain", "")) for d in journal.of("display_data"))
    assert "s15k caught" in shown and "kernel_notes" not in shown, shown


def test_the_in_process_executor_shows_them_too(tmp_path: Path) -> None:
    kernel = Kernel(write_notebook_dir(tmp_path / "nb", executor='kind = "inprocess"'))
    try:
        run = kernel.execute('notes.fail(message="s15k in process")')
        assert run.error is not None and "s15k in process" in run.error["evalue"]
        assert f'File "kernel_notes.py", line {RAISES}, in fail' in run.stderr, run.stderr
    finally:
        kernel.shutdown()
