"""A connector that fails slowly is reported once, by the first cell that runs after its failure is known (review
14x, noticed; since review 15x M13 the first cell does not wait for a server it does not name)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, plain_cells_until, write_notebook_dir

HANGS = "import time\ntime.sleep(600)\n"


def test_the_first_cell_says_a_slow_connector_is_unavailable(tmp_path: Path) -> None:
    folder = tmp_path / "nb"
    toml = (f'\n[connectors.stuck]\nmcp = {{ command = "{sys.executable}", args = ["hangs.py"] }}\n'
            "connect_timeout = 1\n")
    write_notebook_dir(folder, extra_toml=toml)
    (folder / "hangs.py").write_text(HANGS, encoding="utf-8")
    kernel = Kernel(folder)
    try:
        said = plain_cells_until(kernel, "'stuck' is unavailable")  # said by one cell, and by no other
        after = kernel.execute("'after'", timeout=120)
    finally:
        kernel.shutdown()
    assert sum("'stuck' is unavailable" in text for text in said) == 1, said
    assert "'stuck' is unavailable" not in after.stderr, after.stderr  # said once
