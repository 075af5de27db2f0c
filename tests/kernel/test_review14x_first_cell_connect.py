"""Review 14x: a first cell that connects a connector is told there are no connectors.

In a folder without ``codemode.toml``, the first cell's output says once how to add connectors.
When that first cell is the ``%%host`` cell the hint itself suggests (``connect(ToolSetConnector
([add], name="calc"))``), the output reads "Connected 'calc': Code Mode cells can now call
calc.<method>(...)." and right after it "Code Mode: No connectors yet: this folder has no
codemode.toml, so cells only compute. To add one, ...": the two lines contradict each other.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel

CONNECT = '''%%host
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
connect(ToolSetConnector([add], name="calc"))
'''


def test_a_first_cell_that_connects_is_not_told_there_are_none(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    kernel = Kernel(folder)
    try:
        run = kernel.ok(CONNECT)
        assert "Connected 'calc'" in run.stdout
        assert "No connectors yet" not in run.stdout, run.stdout
        assert kernel.ok("calc.add(a=1, b=2)").result == {"text/plain": "3"}
    finally:
        kernel.shutdown()
