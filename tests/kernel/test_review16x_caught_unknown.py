"""Review 16x: a cell whose program caught an ``OutcomeUnknown`` ends "completed" and nothing says a call's outcome
is unknown.

README: "A rollback names every call whose outcome is unknown (``OutcomeUnknown``, or a pass that ended while it
ran): it is never reverted, so check it and undo it by hand if it was done; ``codemode show`` lists it as
``unknown``." A program (often a model's) that catches the error and goes on - ``except ConnectorError: ...``, as
README's own advice for a program reads - ends ``completed: execution ... (1 connector call(s); %snippet save)``.
The card offers no Roll back, the cell's output no word of the call that may have been done: only ``%journal``
(state ``executing``) or a rollback tells.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

PAYMENTS = '''
from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import OutcomeUnknown


def make():
    def pay(amount: int) -> dict:
        """Pay an amount."""
        raise OutcomeUnknown("payments.pay: the bank did not answer in time; it may have paid")
    return ToolSetConnector([pay], name="payments")
'''


def test_a_completed_cell_with_an_unknown_outcome_says_so(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb", extra_toml='\n[connectors.payments]\npython = "payments_mod:make"\n')
    (folder / "payments_mod.py").write_text(PAYMENTS)
    kernel = Kernel(folder)
    try:
        run = kernel.ok('try:\n    payments.pay(amount=5)\nexcept ConnectorError:\n    r = "will retry later"\nr')
        card = run.card
        said = run.stdout + run.stderr + "".join(str(d["data"].get("text/plain", "")) for d in run.of("display_data"))
        said += kernel.widgets.texts(card) if card else ""
        assert "unknown" in said.lower(), said
    finally:
        kernel.shutdown()
