"""Two carried names each under the limit, over it together, stop every later cell (review 15).

A cell's names are carried to later cells when each fits the stored-value limit (1,000,000
characters) - ``CarriedVariables.carry`` takes what the pass returned - but a pass is given *all*
carried names as its inputs, and the runtime refuses inputs over 1,000,000 characters in all
(runtime.py ``execute``: "the carried-over variables are N characters; the limit is 1,000,000.
Delete large variables or keep them elsewhere."). So after ``a = 'x' * 600_000`` and
``b = 'y' * 600_000`` (two cells that completed) every later cell fails before it runs - a cell
that would ``del`` them included - and nothing on the cell that assigned ``b`` said anything.

The right outcome: a later cell runs (the carry keeps the total within the limit and says what it
left out, as for a name too large on its own), or at the least a cell that deletes them runs.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_cells_after_two_large_names_still_run(kernel: Kernel) -> None:
    kernel.ok("r15_a = 'x' * 600_000\nlen(r15_a)")
    kernel.ok("r15_b = 'y' * 600_000\nlen(r15_b)")
    later = kernel.execute("1 + 1")
    assert later.status == "ok", (later.error, later.stderr)
