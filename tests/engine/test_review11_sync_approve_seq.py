"""Review 11: the sync facade names the call an approval is for, as the async runtime does.

``SyncRuntime`` promises "the same names and arguments" as :class:`CodemodeRuntime`. A script that
shows a person a pending call and then approves it must be able to say which call (``seq``), or a
late "yes" approves a later call another host moved the execution on to (s11p, 7c58066).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from codemode_kernel import CodemodeRuntime, InProcessExecutor, SyncRuntime
from tests.support import Shop

TWO_WRITES = "a = shop.create_item(title='a')\nb = shop.create_item(title='b')\n[a['id'], b['id']]"

def test_approve_takes_the_runtime_s_arguments() -> None:
    assert list(inspect.signature(SyncRuntime.approve).parameters) == \
        list(inspect.signature(CodemodeRuntime.approve).parameters)


def test_a_stale_sync_approval_approves_nothing(tmp_path: Path) -> None:
    """Another host approves call #0 and the pass pauses on call #1; the script's approval of call #0,
    which its person saw, is refused and call #1 does not run."""
    shop = Shop()
    url = f"sqlite:///{tmp_path}/s.db"
    with SyncRuntime([shop], store=url, executor=InProcessExecutor()) as script, \
            SyncRuntime([shop], store=url, executor=InProcessExecutor()) as other:
        paused = script.execute(TWO_WRITES)
        eid, seen = paused["execution_id"], paused["pending"][0]["seq"]
        assert other.approve(eid)["status"] == "paused"
        approve: Any = script.approve
        out = approve(eid, seq=seen)
        assert out.get("refused") is True and out["error_type"] == "InvalidStateError"
        assert shop.calls["create_item"] == 1
