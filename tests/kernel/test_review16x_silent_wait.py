"""Review 16x: a cell that names a connector still starting waits for it in silence.

Since 2151fdb a pass that names a connector still starting waits for its start (``connect_timeout``, 30 s by
default). The cell shows nothing meanwhile: with a server that hangs, ``slowpoke.foo()`` is busy for the whole
timeout, then writes the failure and the NameError together. A person (or a model watching the stream) cannot
tell a hung server from a slow program; a line such as "waiting for connector 'slowpoke' to start (up to 8 s)"
when the wait begins is what a Jupyter user expects (pip, conda and model downloads all say so).
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

HANGS = "import time\ntime.sleep(600)\n"


def test_a_cell_waiting_for_a_starting_connector_says_so_first(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb", extra_toml=(
        '\n[connectors.slowpoke]\nmcp = { command = "python", args = ["hangs.py"] }\nconnect_timeout = 4\n'))
    (folder / "hangs.py").write_text(HANGS)
    kernel = Kernel(folder)
    try:
        run = kernel.execute("slowpoke.foo()", timeout=120)
        texts = [c["text"] for c in run.of("stream")]
        lines = "".join(texts).splitlines()
        failed = next(i for i, line in enumerate(lines) if "did not finish starting" in line)
        assert any("slowpoke" in line for line in lines[:failed]), lines
    finally:
        kernel.shutdown()
