"""Review 16x: a server that hangs at start keeps another server's immediate failure out of the first cell.

README ("When something is off"): "The first cell's output (in red) and %connectors name the table";
commit ce6672e: "a server that fails at once (a missing key, a typo) is still reported by the first
cell while one that hangs keeps out of it after 3 s". The kernel's warm-up (kernel/notebook_runtime.py
``warm_up``) collects its notes only once ``runtime.catalog()`` has resolved *every* connector, so
when one server hangs (``connect_timeout``, 30 s by default) the note about the server that exited
at once waits for it: the first cell, and every cell for half a minute, say nothing.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

HANGS = "import time\ntime.sleep(600)\n"
EXITS = 'import sys\nprint("fatal: missing API key", file=sys.stderr)\nsys.exit(3)\n'


def test_the_first_cell_names_a_failed_server_while_another_hangs(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb", extra_toml=(
        '\n[connectors.slowpoke]\nmcp = { command = "python", args = ["hangs.py"] }\n'
        '\n[connectors.dead]\nmcp = { command = "python", args = ["exits.py"] }\n'))
    (folder / "hangs.py").write_text(HANGS)
    (folder / "exits.py").write_text(EXITS)
    kernel = Kernel(folder)
    try:
        run = kernel.ok("1 + 1")
        said = run.stderr + run.stdout
        assert "connector 'dead' is unavailable" in said, said
        assert "missing API key" in said, said
    finally:
        kernel.shutdown()
