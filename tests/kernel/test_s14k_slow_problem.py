"""A connector that fails slowly is reported by the first cell, not the second (review 14x, noticed)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

HANGS = "import time\ntime.sleep(600)\n"


def test_the_first_cell_says_a_slow_connector_is_unavailable(tmp_path: Path) -> None:
    folder = tmp_path / "nb"
    toml = (f'\n[connectors.stuck]\nmcp = {{ command = "{sys.executable}", args = ["hangs.py"] }}\n'
            "connect_timeout = 1\n")
    write_notebook_dir(folder, extra_toml=toml)
    (folder / "hangs.py").write_text(HANGS, encoding="utf-8")
    kernel = Kernel(folder)
    try:
        first = kernel.execute("2", timeout=120)
        second = kernel.execute("3", timeout=120)
    finally:
        kernel.shutdown()
    assert first.status == "ok" and second.status == "ok"
    assert "'stuck' is unavailable" in first.stderr, (first.stderr, second.stderr)
    assert "'stuck' is unavailable" not in second.stderr, second.stderr  # said once
