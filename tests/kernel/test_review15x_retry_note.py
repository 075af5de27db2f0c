"""Review 15x: the first cell's note about a connector that could not start says when it is
tried again, and says it wrong.

Since review 14x H3 a connector that failed is asked again a minute later, or at once by a
cell that names it (README, "When something is off"; ``catalog.CatalogResolver``). The first
cell still says "It is tried again on the next cell; %connectors shows its state."
(kernel/notebook_runtime.py ``warm_up``): a person who fixes the server and runs an unrelated
cell expects it back, and it is not.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

EXITS = 'import sys\nprint("fatal: missing API key", file=sys.stderr)\nsys.exit(3)\n'


def test_the_first_cell_says_when_a_failed_server_is_tried_again(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb", extra_toml='\n[connectors.dead]\nmcp = { command = "python", '
                                                            'args = ["exits.py"] }\n')
    (folder / "exits.py").write_text(EXITS)
    kernel = Kernel(folder)
    try:
        run = kernel.ok("1 + 1")
        said = run.stderr + run.stdout
        assert "connector 'dead' is unavailable" in said, said
        assert "on the next cell" not in said, said
        assert "minute" in said and "names it" in said, said
    finally:
        kernel.shutdown()
