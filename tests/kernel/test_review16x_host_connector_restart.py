"""Review 16x: after a restart, a pause on a ``%%host``-connected connector sends the person round in a circle.

A ``%%host`` cell connects ``calc`` (``connect(ToolSetConnector([add], name="calc", requires_approval=...))``, no
``target=``), a cell pauses at ``calc.add``, the kernel restarts. ``%approve last``: "execution ... used connector(s)
['calc'] that are not configured now; configure them again, then approve". Doing exactly that (the same ``%%host``
cell) and approving: "'calc' was made in code without a target=, so only that very object, in the process that ran
the execution, is known to act on the same backend: approve it from there" - that process is gone; it can only be
rejected, which the first message does not say (and a Python list repr is in the text).
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

CONNECT = ('%%host\ndef add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'
           'connect(ToolSetConnector([add], name="calc", requires_approval={"add"}))\n')


def test_a_pause_on_a_host_connector_after_restart_is_told_it_can_only_be_rejected(tmp_path: Path) -> None:
    kernel = Kernel(write_notebook_dir(tmp_path / "nb"))
    try:
        kernel.ok(CONNECT)
        paused = kernel.ok("calc.add(a=1, b=2)")
        assert "Paused" in str(paused.of("display_data")), paused.messages
        kernel.restart()
        run = kernel.execute("%approve last")
        assert run.error is not None, run.stdout
        said = run.error["evalue"]
        assert "configure them again, then approve" not in said and "['calc']" not in said, said
        assert "%reject" in said, said
    finally:
        kernel.shutdown()
