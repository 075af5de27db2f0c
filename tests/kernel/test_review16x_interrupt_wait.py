"""Review 16x: the stop button does not stop a cell that waits for a connector still starting.

A cell naming a server that hangs at start waits for it (connect_timeout, 30 s by default). Interrupting the
kernel meanwhile (JupyterLab's stop button: an interrupt_request, the kernelspec's interrupt_mode "message") does
nothing: the cell runs on until the start times out, then fails with the start's note and a NameError (measured:
33.2 s with the interrupt sent at 3 s). An interrupt ends a running pass at once (test_kernel_interrupt.py);
the wait before the pass should end the same way, as an interrupted cell.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

HANGS = "import time\ntime.sleep(600)\n"


def test_an_interrupt_ends_the_wait_for_a_starting_connector(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb", extra_toml=(
        '\n[connectors.slowpoke]\nmcp = { command = "python", args = ["hangs.py"] }\nconnect_timeout = 8\n'))
    (folder / "hangs.py").write_text(HANGS)
    kernel = Kernel(folder)
    try:
        kernel.ok("1")
        msg_id = kernel.kc.execute("slowpoke.ping()")
        said: list[str] = []
        deadline = time.monotonic() + 20
        while not any("waiting for connector 'slowpoke'" in text for text in said):  # the wait has begun
            msg = kernel.kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                said.append(msg["content"]["text"])
        kernel.km.interrupt_kernel()  # on this thread (the stop button): no event loop left to a timer thread
        reply = kernel.shell_reply(msg_id, timeout=20)["content"]
        assert reply["status"] == "error", reply
        assert "nterrupt" in reply["ename"] + reply["evalue"], reply
        assert "did not finish starting" not in reply["evalue"], reply  # it was interrupted before
    finally:
        kernel.shutdown()
