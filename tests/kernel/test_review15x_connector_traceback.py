"""Review 15x: a bug in the notebook author's own connector code cannot be located.

A ``python`` connector table names a module beside the notebook: the author wrote it. When
one of its methods raises, the cell shows ``ConnectorError: KeyError: tools.boom: 'missing'``
(here ``ValueError: notes.fail: ...``) and nothing else: no file, no line, no host traceback,
not in the cell, not on stderr, not in ``%journal``. The program (a model) should get only the
message, but the notebook's author, who can read the file anyway, needs to know where it
failed (``kernel_notes.py``, line N, in ``fail``).
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_the_author_sees_where_the_connector_failed(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute('notes.fail(message="r15x broken")')
    assert run.error is not None and "r15x broken" in run.error["evalue"]
    shown = "\n".join(run.error["traceback"]) + run.stderr + run.stdout
    assert "kernel_notes.py" in shown, shown
