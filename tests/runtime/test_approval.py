"""Approval: pause, approve by replay, exactly once, pauses that cannot be swallowed, reject."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codemode_kernel import ExecutionContext
from tests.conftest import RuntimeFactory, StoreSql
from tests.support import Shop

pytestmark = pytest.mark.anyio

READ_THEN_WRITE = "items = shop.list_items()\nprint('read', len(items))\nnew = shop.create_item(title='second')\n" \
                  "[len(items), new['id']]"


async def test_call_needing_approval_pauses(make_runtime: RuntimeFactory) -> None:
    """A requires_approval call records a pending entry and ends the pass; it is not executed."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute(READ_THEN_WRITE)
    assert out["status"] == "paused"
    assert out["pending"] == [{"execution_id": out["execution_id"], "seq": 1, "connector": "shop",
                               "method": "create_item", "args": {"title": "second"}}]
    assert shop.calls["create_item"] == 0
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "paused"
    assert [e.state for e in state.log] == ["applied", "pending"]
    assert [p.to_dict() for p in await rt.pending()] == out["pending"]
    assert [p.seq for p in await rt.pending(out["execution_id"])] == [1]


async def test_approve_replays_reads_and_executes_write_once(make_runtime: RuntimeFactory) -> None:
    """Approve re-runs the code: applied calls replay, the approved call executes exactly once."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(READ_THEN_WRITE)
    out = await rt.approve(paused["execution_id"])
    assert out == {"status": "completed", "execution_id": paused["execution_id"], "result": [1, 2],
                   "logs": ["read 1"]}
    assert shop.calls == {"list_items": 1, "create_item": 1}
    state = await rt.execution(paused["execution_id"])
    assert state is not None
    assert [(e.state, e.pass_number) for e in state.log] == [("applied", 1), ("applied", 2)]
    assert state.passes == 2


async def test_context_is_stable_across_passes(make_runtime: RuntimeFactory) -> None:
    """execute receives execution_id (stable across passes) and seq; id:seq is the idempotency key."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(READ_THEN_WRITE)
    await rt.approve(paused["execution_id"])
    assert [(c.execution_id, c.seq, c.method) for c in shop.contexts] == [
        (paused["execution_id"], 0, "list_items"), (paused["execution_id"], 1, "create_item")]
    assert shop.contexts[1].idempotency_key == f"{paused['execution_id']}:1"


async def test_second_approval_is_refused(make_runtime: RuntimeFactory) -> None:
    """Only a paused execution can be approved; a stale approval changes nothing."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(READ_THEN_WRITE)
    await rt.approve(paused["execution_id"])
    again = await rt.approve(paused["execution_id"])
    assert again["status"] == "error" and again["refused"] is True
    assert "completed" in again["error"]
    assert shop.calls["create_item"] == 1
    assert (await rt.approve("nope"))["error_type"] == "UnknownExecutionError"


async def test_several_approvals_in_one_execution(make_runtime: RuntimeFactory) -> None:
    """The code runs on to the next approval; each approved call runs once."""
    shop = Shop()
    rt = make_runtime([shop])
    code = "a = shop.create_item(title='a')\nb = shop.create_item(title='b')\n[a['id'], b['id']]"
    first = await rt.execute(code)
    second = await rt.approve(first["execution_id"])
    assert second["status"] == "paused" and second["pending"][0]["seq"] == 1
    done = await rt.approve(first["execution_id"])
    assert done["result"] == [2, 3]
    assert shop.calls["create_item"] == 2


async def test_racing_approvals_apply_once(make_runtime: RuntimeFactory) -> None:
    """Two runtimes over one store approving at once apply the action once."""
    shop = Shop()
    a = make_runtime([shop])
    b = make_runtime([shop])
    paused = await a.execute(READ_THEN_WRITE)
    results = await asyncio.gather(a.approve(paused["execution_id"]), b.approve(paused["execution_id"]))
    statuses = sorted(r["status"] for r in results)
    assert statuses == ["completed", "error"]
    assert shop.calls["create_item"] == 1


async def test_new_runtime_instance_can_approve(make_runtime: RuntimeFactory) -> None:
    """A runtime over the same file (a kernel restart) approves what another instance paused."""
    first_shop, second_shop = Shop(), Shop()
    paused = await make_runtime([first_shop]).execute(READ_THEN_WRITE)
    out = await make_runtime([second_shop]).approve(paused["execution_id"])
    assert out["status"] == "completed"
    assert second_shop.calls == {"create_item": 1}
    assert first_shop.calls == {"list_items": 1}


@pytest.mark.parametrize("catcher", [
    "try:\n    shop.create_item(title='x')\nexcept BaseException:\n    pass\n",
    "try:\n    shop.create_item(title='x')\nexcept:\n    pass\n",
    "try:\n    shop.create_item(title='x')\nfinally:\n    shop.delete_item(item_id=1)\n    shop.add_item(title='y')\n",
])
async def test_pause_cannot_be_swallowed(make_runtime: RuntimeFactory, catcher: str) -> None:
    """Once a pass paused, later calls in that pass execute nothing, even if the pause is caught."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute(catcher + "shop.add_item(title='after')\nshop.list_items()\n'done'")
    assert out["status"] == "paused"
    assert shop.calls == {}
    state = await rt.execution(out["execution_id"])
    assert state is not None and [e.state for e in state.log] == ["pending"]


async def test_reject_ends_execution(make_runtime: RuntimeFactory) -> None:
    """Reject marks the execution rejected, does not run the call and does not undo earlier ones."""
    shop = Shop()
    rt = make_runtime([shop])
    code = "shop.add_item(title='kept')\nshop.create_item(title='never')"
    paused = await rt.execute(code)
    assert await rt.reject(paused["execution_id"], 1) is True
    state = await rt.execution(paused["execution_id"])
    assert state is not None and state.status == "rejected"
    assert [e.state for e in state.log] == ["applied", "error"]
    assert shop.calls["create_item"] == 1  # only the add_item (same function) ran
    assert len(shop.items) == 2
    assert await rt.reject(paused["execution_id"], 1) is False
    assert (await rt.approve(paused["execution_id"]))["refused"] is True


async def test_reject_with_wrong_seq_is_refused(make_runtime: RuntimeFactory) -> None:
    """Rejecting a seq that is not pending changes nothing."""
    rt = make_runtime([Shop()])
    paused = await rt.execute(READ_THEN_WRITE)
    assert await rt.reject(paused["execution_id"], 0) is False
    assert await rt.reject("unknown-id") is False
    assert (await rt.execution(paused["execution_id"])).status == "paused"  # type: ignore[union-attr]


async def test_executing_mark_is_committed_before_the_connector_runs(
        make_runtime: RuntimeFactory, store_sql: StoreSql) -> None:
    """While a connector runs, its journal entry is already durably 'executing' (seen from another connection)."""
    shop = Shop()
    seen: list[tuple[Any, ...]] = []

    def look(method: str, ctx: ExecutionContext) -> None:
        seen.extend(store_sql("SELECT seq, state FROM codemode_entries WHERE execution_id = :eid",
                              eid=ctx.execution_id))

    shop.on_call = look
    rt = make_runtime([shop])
    await rt.execute("shop.list_items()")
    assert seen == [(0, "executing")]


async def test_approve_refused_when_connector_missing(make_runtime: RuntimeFactory) -> None:
    """Resume needs every connector the execution started with."""
    paused = await make_runtime([Shop()]).execute(READ_THEN_WRITE)
    other = make_runtime([Shop(name="store")])
    out = await other.approve(paused["execution_id"])
    assert out["refused"] is True and "shop" in out["error"]
    assert (await other.execution(paused["execution_id"])).status == "paused"  # type: ignore[union-attr]


async def test_changed_arguments_on_approval_pass_diverge(make_runtime: RuntimeFactory) -> None:
    """The approved call runs only with the arguments shown to the approver."""
    shop = Shop()
    rt = make_runtime([shop])
    code = "t = codemode.step('t', lambda: 'x')\nshop.create_item(title=str(random.random()))"
    paused = await rt.execute(code)
    out = await rt.approve(paused["execution_id"])
    assert out["status"] == "error" and out["error_type"] == "ReplayDivergence"
    assert shop.calls["create_item"] == 0
