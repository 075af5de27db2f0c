"""A connector that fails slowly is reported once, by the first cell that runs after its failure is known (review
14x, noticed; since review 15x M13 the first cell does not wait for a server it does not name)."""

from __future__ import annotations

import sys
import time
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
    said: list[str] = []
    try:
        # The first cell does not wait for a server it does not name (review 15x M13): the failure is said by
        # the first cell that runs once it is known, and by no other.
        for n in range(240):
            run = kernel.execute(str(n), timeout=120)
            assert run.status == "ok", run.stderr
            said.append(run.stderr)
            if "'stuck' is unavailable" in run.stderr:
                break
            time.sleep(0.25)
        after = kernel.execute("'after'", timeout=120)
    finally:
        kernel.shutdown()
    assert sum("'stuck' is unavailable" in text for text in said) == 1, said
    assert "'stuck' is unavailable" not in after.stderr, after.stderr  # said once
