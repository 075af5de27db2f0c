"""The sync facade for scripts."""

from __future__ import annotations

from pathlib import Path

from codemode_kernel import InProcessExecutor, SyncRuntime
from tests.support import Shop


def test_sync_runtime_round_trip(tmp_path: Path) -> None:
    """SyncRuntime runs, pauses, approves and rolls back without an event loop in the caller."""
    shop = Shop()
    with SyncRuntime([shop], store=f"sqlite:///{tmp_path}/s.db", executor=InProcessExecutor()) as rt:
        paused = rt.execute("shop.create_item(title='x')['id']")
        assert paused["status"] == "paused"
        assert rt.approve(paused["execution_id"])["result"] == 2
        rt.rollback(paused["execution_id"])
        state = rt.execution(paused["execution_id"])
        assert state is not None and state.status == "rolled_back"
    assert shop.calls["create_item"] == 1
