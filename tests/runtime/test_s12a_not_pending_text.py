"""One text says why a decision on call #k decided nothing (s12a): ``runtime.not_pending_text``.

The runtime's refusal (read by models and the CLI), the card and the panel all say it with this one
function, so the doors cannot drift apart. Pinned here for each thing the execution may be now.
"""

from __future__ import annotations

import pytest

from codemode_kernel.models import ToolLogEntry
from codemode_kernel.runtime import not_pending_text
from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

TWO_WRITES = "a = shop.create_item(title='a')\nb = shop.create_item(title='b')\n[a['id'], b['id']]"
WRITE_THEN_FAIL = "a = shop.create_item(title='a')\n1 / 0"


async def test_moved_on_to_another_pending_call(make_runtime: RuntimeFactory) -> None:
    shop = Shop()
    rt = make_runtime([shop])
    eid = (await rt.execute(TWO_WRITES))["execution_id"]
    assert (await rt.approve(eid, seq=0))["status"] == "paused"
    out = await rt.approve(eid, seq=0)
    assert out["refused"] is True and out["error_type"] == "InvalidStateError"
    assert out["error"] == ("Call #0 (shop.create_item) is not pending any more: it was already decided, so nothing "
                            "was approved. The execution is now paused on call #1 (shop.create_item).")
    assert shop.calls["create_item"] == 1


async def test_finished(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([Shop()])
    eid = (await rt.execute(TWO_WRITES))["execution_id"]
    await rt.approve(eid, seq=0)
    assert (await rt.approve(eid, seq=1))["status"] == "completed"
    assert (await rt.approve(eid, seq=1))["error"] == (
        "Call #1 (shop.create_item) is not pending any more: it was already decided, so nothing was approved. "
        "The execution has completed.")


async def test_failed(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([Shop()])
    eid = (await rt.execute(WRITE_THEN_FAIL))["execution_id"]
    assert (await rt.approve(eid, seq=0))["status"] == "error"
    assert (await rt.approve(eid, seq=0))["error"] == (
        "Call #0 (shop.create_item) is not pending any more: it was already decided, so nothing was approved. "
        "The execution has failed.")


async def test_rejected(make_runtime: RuntimeFactory) -> None:
    shop = Shop()
    rt = make_runtime([shop])
    eid = (await rt.execute(TWO_WRITES))["execution_id"]
    assert await rt.reject(eid, 0) is True
    assert (await rt.approve(eid, seq=0))["error"] == (
        "Call #0 (shop.create_item) is not pending any more: it was already decided, so nothing was approved. "
        "The execution was rejected (or expired).")
    assert shop.calls["create_item"] == 0


async def test_no_such_call_and_a_call_that_never_waited(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([Shop()])
    eid = (await rt.execute("items = shop.list_items()\nshop.create_item(title='a')"))["execution_id"]
    assert (await rt.approve(eid, seq=7))["error"] == (
        f"Call #7 is not pending: execution {eid} has no such call, so nothing was approved. "
        "The execution is now paused on call #1 (shop.create_item).")
    assert (await rt.approve(eid, seq=0))["error"] == (
        "Call #0 (shop.list_items) never waited for approval, so nothing was approved. "
        "The execution is now paused on call #1 (shop.create_item).")


def test_unknown_execution_and_the_verb() -> None:
    """No execution (deleted after the refusal): the text says so; a reject says 'rejected'."""
    assert not_pending_text("approve", "X1", 0, None, []) == (
        "Execution X1 does not exist (deleted, or a wrong id), so nothing was approved.")
    call = ToolLogEntry(seq=0, connector="shop", method="create_item", args={}, requires_approval=True,
                        state="applied")
    assert not_pending_text("reject", "X1", 0, "running", [call]) == (
        "Call #0 (shop.create_item) is not pending any more: it was already decided, so nothing was rejected. "
        "The execution is running on (another approval was accepted first).")
