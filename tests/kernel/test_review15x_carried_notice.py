"""Review 15x: the "Not carried to later cells" line names names that later cells do have, or
that the cell never assigned.

The line (review 14x H5's fix) is read from the cell's code, and it reads a ``try`` body as
statements that always run and an ``import`` of a pre-imported module as a name lost. So
notebook 01's own "What the sandbox refuses" cell (``try: import os`` ... ``except
ImportError``) prints, on stderr (red in JupyterLab), "Not carried to later cells: os (an
import: import it in the cell that uses it)" for an import that failed; a name assigned after
the failing statement is reported as "its value is not plain data ..."; and ``import json``
is reported with "import it in the cell that uses it" although every cell has ``json``.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_importing_a_pre_imported_module_is_not_reported_as_lost(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok("import json\njson.dumps([1])")
    assert shared_kernel.ok("json.dumps([2])").result is not None  # the next cell has json anyway
    assert "json" not in run.stderr, run.stderr


def test_names_a_failed_try_body_never_bound_are_not_reported(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok("try:\n    import os\n    r15x_after = 1\nexcept ImportError:\n    pass")
    later = shared_kernel.execute("r15x_after")
    assert later.status == "error" and later.error is not None
    # The cell never bound either name; it must not say they were assigned and lost.
    assert "os (" not in run.stderr and "r15x_after" not in run.stderr, run.stderr
    assert "earlier cell assigned" not in later.error["evalue"], later.error["evalue"]


def test_control_a_function_is_still_reported(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok("def r15x_f(x):\n    return x\nr15x_f(1)")
    assert "r15x_f" in run.stderr, run.stderr
