"""Review 14x: a pass that times out while an approved write is still running.

With ``[executor] timeout = 2`` and an approved call that takes 4 s, ``%approve last`` fails
the cell with ``Timeout: the pass ran longer than 2 s and its worker was stopped
(Limits.timeout=2). Make the code do less per pass (fewer calls, smaller data) or raise the
limit.`` The call was not stopped: it finishes on the host and the journal records it
``applied`` (rollback reverts it). Nothing in the message says that a call was running, which
one, or that it may still have happened, so the person reads "failed" and runs the write again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.kernel.kernel_harness import Kernel

MODULE = '''
import json, pathlib, time
from codemode_kernel import ToolSetConnector

LEDGER = pathlib.Path(__file__).with_name("ledger.json")

def slow_add(text: str, seconds: float = 0) -> dict:
    """Add an entry to the ledger after a while."""
    time.sleep(seconds)
    items = json.loads(LEDGER.read_text()) if LEDGER.exists() else []
    items.append(text)
    LEDGER.write_text(json.dumps(items))
    return {"index": len(items) - 1, "text": text}

def make():
    return ToolSetConnector([slow_add], name="ledger", requires_approval={"slow_add"})
'''


def test_a_timeout_names_the_call_that_was_running(tmp_path: Path) -> None:
    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "review14x_ledger.py").write_text(MODULE, encoding="utf-8")
    (folder / "codemode.toml").write_text('[executor]\ntimeout = 2\n\n[connectors.ledger]\n'
                                          'python = "review14x_ledger:make"\n', encoding="utf-8")
    kernel = Kernel(folder)
    try:
        kernel.ok('ledger.slow_add(text="once", seconds=4)')
        run = kernel.execute("%approve last")
        assert run.status == "error" and run.error is not None
        message = run.error["evalue"]
        deadline = time.monotonic() + 15  # the call runs on; its write lands (not a timed assertion)
        while not (folder / "ledger.json").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert json.loads((folder / "ledger.json").read_text()) == ["once"]  # it did happen
        assert "slow_add" in message, message
    finally:
        kernel.shutdown()
