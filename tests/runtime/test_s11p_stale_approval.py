"""A stale approval cannot approve a call nobody saw (s11p).

``approve(execution_id, seq=k)`` applies only while call #k is the execution's pending call, and
``reject(execution_id, k)`` likewise, checked in the statement that claims the execution. A click
meant for call A that arrives after another tab approved A and the pass paused again on call B
approves (or rejects) nothing, and says what the execution is now.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from codemode_kernel import Connector, ExecutionContext, tool
from codemode_kernel.connectors.base import Tool
from codemode_kernel.journal import JournalStore
from tests.conftest import RuntimeFactory, StoreSql
from tests.support import Shop

pytestmark = pytest.mark.anyio

TWO_WRITES = "a = shop.create_item(title='a')\nb = shop.create_item(title='b')\n[a['id'], b['id']]"
READ_THEN_WRITE = "items = shop.list_items()\nnew = shop.create_item(title='second')\n[len(items), new['id']]"


async def _state(rt: Any, execution_id: str) -> tuple[str, int, list[tuple[int, str]]]:
    state = await rt.execution(execution_id)
    assert state is not None
    return state.status, state.passes, [(e.seq, e.state) for e in state.log]


async def test_a_stale_click_approves_nothing(make_runtime: RuntimeFactory) -> None:
    """Tab 1 approves call #0 and the pass pauses on call #1; tab 2's click for call #0 then approves
    nothing: call #1 does not run, the execution stays paused on it, and the refusal says so."""
    shop = Shop()
    tab1, tab2 = make_runtime([shop]), make_runtime([shop])
    paused = await tab1.execute(TWO_WRITES)
    eid = paused["execution_id"]
    assert [p["seq"] for p in paused["pending"]] == [0]
    again = await tab1.approve(eid, seq=0)
    assert again["status"] == "paused" and [p["seq"] for p in again["pending"]] == [1]
    assert shop.calls["create_item"] == 1
    before = await _state(tab1, eid)

    stale = await tab2.approve(eid, seq=0)

    assert stale["status"] == "error" and stale["refused"] is True
    assert stale["error_type"] == "InvalidStateError"
    assert stale["execution_id"] == eid
    message = stale["error"]
    assert "Call #0 (shop.create_item) is not pending any more" in message
    assert "paused on call #1 (shop.create_item)" in message
    assert "nothing was approved" in message
    assert shop.calls["create_item"] == 1  # call #1 was not run
    assert await _state(tab1, eid) == before == ("paused", 2, [(0, "applied"), (1, "pending")])
    assert [p.seq for p in await tab2.pending(eid)] == [1]

    done = await tab2.approve(eid, seq=1)  # the call the person now sees
    assert done["status"] == "completed" and done["result"] == [2, 3]
    assert shop.calls["create_item"] == 2


async def test_approve_with_the_right_seq_works(make_runtime: RuntimeFactory) -> None:
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(READ_THEN_WRITE)
    out = await rt.approve(paused["execution_id"], seq=paused["pending"][0]["seq"])
    assert out == {"status": "completed", "execution_id": paused["execution_id"], "result": [1, 2]}
    assert shop.calls == {"list_items": 1, "create_item": 1}


async def test_racing_approvals_of_the_same_seq_apply_once(make_runtime: RuntimeFactory) -> None:
    """Two hosts approving call #0 at once: one runs it, the other is refused; it runs once."""
    shop = Shop()
    a, b = make_runtime([shop]), make_runtime([shop])
    paused = await a.execute(TWO_WRITES)
    eid = paused["execution_id"]
    results = await asyncio.gather(a.approve(eid, seq=0), b.approve(eid, seq=0))
    assert sorted(r["status"] for r in results) == ["error", "paused"]
    refused = next(r for r in results if r["status"] == "error")
    assert refused["refused"] is True and refused["error_type"] == "InvalidStateError"
    assert "nothing was approved" in refused["error"]
    assert shop.calls["create_item"] == 1
    assert await _state(a, eid) == ("paused", 2, [(0, "applied"), (1, "pending")])


class Gate(Connector):
    """A write that needs approval and, while it runs, lets the test act (another host's click)."""

    name = "gate"

    def __init__(self) -> None:
        self.runs: list[int] = []
        self.during: Any = None  # an async callable run inside the first write

    async def write(self, n: int, ctx: ExecutionContext) -> int:
        """Write n."""
        self.runs.append(ctx.seq)
        if self.during is not None:
            during, self.during = self.during, None
            await during()
        return n

    def tools(self) -> dict[str, Tool]:
        return {"write": tool(self.write, requires_approval=True)}


async def test_a_stale_click_while_the_approved_pass_runs(make_runtime: RuntimeFactory) -> None:
    """A second click for call #0 while call #0's approved pass is running is refused (the execution is
    running), and the pass goes on to pause on call #1, which nobody approved."""
    gate = Gate()
    tab1, tab2 = make_runtime([gate]), make_runtime([gate])
    paused = await tab1.execute("a = gate.write(n=1)\nb = gate.write(n=2)\na + b")
    eid = paused["execution_id"]
    seen: list[dict[str, Any]] = []

    async def click() -> None:
        seen.append(await tab2.approve(eid, seq=0))

    gate.during = click
    out = await tab1.approve(eid, seq=0)
    assert out["status"] == "paused" and [p["seq"] for p in out["pending"]] == [1]
    assert len(seen) == 1 and seen[0]["refused"] is True and seen[0]["error_type"] == "InvalidStateError"
    assert "The execution is running on (another approval was accepted first)." in seen[0]["error"]
    assert "nothing was approved" in seen[0]["error"]
    assert gate.runs == [0]
    assert await _state(tab1, eid) == ("paused", 2, [(0, "applied"), (1, "pending")])


async def test_a_seq_that_never_existed(make_runtime: RuntimeFactory) -> None:
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(READ_THEN_WRITE)
    eid = paused["execution_id"]
    before = await _state(rt, eid)
    out = await rt.approve(eid, seq=7)
    assert out["refused"] is True and out["error_type"] == "InvalidStateError"
    assert f"Call #7 is not pending: execution {eid} has no such call" in out["error"]
    assert "paused on call #1 (shop.create_item)" in out["error"]
    ok = await rt.approve(eid, seq=0)  # call #0 exists but is not the pending one (a read, applied)
    assert ok["refused"] is True and "Call #0 (shop.list_items) never waited for approval" in ok["error"]
    assert await rt.reject(eid, 7) is False
    assert shop.calls == {"list_items": 1}
    assert await _state(rt, eid) == before == ("paused", 1, [(0, "applied"), (1, "pending")])


@pytest.mark.parametrize("seq", [True, -1, "1", 1.0])
async def test_a_seq_that_is_not_a_call_number(make_runtime: RuntimeFactory, seq: Any) -> None:
    """``True == 1``: a flag is not call #1."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(READ_THEN_WRITE)
    eid = paused["execution_id"]
    out = await rt.approve(eid, seq=seq)
    assert out["refused"] is True and out["error_type"] == "TypeError"
    assert await rt.reject(eid, seq) is False
    assert shop.calls == {"list_items": 1}
    assert (await _state(rt, eid))[0] == "paused"


async def test_approve_with_a_seq_after_the_end(make_runtime: RuntimeFactory) -> None:
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(READ_THEN_WRITE)
    eid = paused["execution_id"]
    assert (await rt.approve(eid, seq=1))["status"] == "completed"
    out = await rt.approve(eid, seq=1)
    assert out["refused"] is True and out["error_type"] == "InvalidStateError"
    assert "Call #1 (shop.create_item) is not pending any more" in out["error"]
    assert "The execution has completed." in out["error"]
    assert shop.calls["create_item"] == 1
    assert await rt.delete_execution(eid)
    gone = await rt.approve(eid, seq=1)
    assert gone["refused"] is True and gone["error_type"] == "UnknownExecutionError"


async def test_reject_with_a_stale_seq(make_runtime: RuntimeFactory) -> None:
    """Rejecting call #0 after it was approved and the pass paused on call #1 rejects nothing."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(TWO_WRITES)
    eid = paused["execution_id"]
    await rt.approve(eid, seq=0)
    assert await rt.reject(eid, 0) is False
    assert await _state(rt, eid) == ("paused", 2, [(0, "applied"), (1, "pending")])
    assert await rt.reject(eid, 1) is True
    assert await _state(rt, eid) == ("rejected", 2, [(0, "applied"), (1, "error")])
    assert shop.calls["create_item"] == 1


class MovesOnFirst(JournalStore):
    """Another host's approval of call #0, carried out to a pause on call #1, lands right before this
    host's claim: between whatever this host read and its status change."""

    def __init__(self, url: str, store_sql: StoreSql) -> None:
        super().__init__(url)
        self.sql = store_sql
        self.execution_id: str | None = None

    def transition(self, conn: Any, runtime: str, execution_id: str, expected: Any, status: str,
                   **fields: Any) -> bool:
        if execution_id == self.execution_id and list(expected) == ["paused"]:
            self.execution_id = None
            sql = self.sql
            sql("UPDATE codemode_entries SET state = 'applied', result = :r, pass_number = 2 "
                "WHERE execution_id = :e AND seq = 0", e=execution_id, r=json.dumps({"id": 2, "title": "a"}))
            sql("INSERT INTO codemode_entries (runtime, execution_id, seq, connector, method, args, result, "
                "requires_approval, ephemeral, state, error, pass_number, created_at, updated_at) VALUES "
                "(:rt, :e, 1, 'shop', 'create_item', :a, NULL, :t, :f, 'pending', NULL, 2, 0, 0)",
                rt=runtime, e=execution_id, a=json.dumps({"title": "b"}), t=True, f=False)
            sql("UPDATE codemode_executions SET passes = 2 WHERE id = :e", e=execution_id)
        return super().transition(conn, runtime, execution_id, expected, status, **fields)


@pytest.mark.parametrize("action", ["approve", "reject"])
async def test_the_seq_check_is_part_of_the_claim(make_runtime: RuntimeFactory, db_url: str, store_sql: StoreSql,
                                                  action: str) -> None:
    """The check that call #0 is pending is made by the claim itself: a change that lands after this
    host last looked and before its claim is seen, and nothing is approved or rejected."""
    shop = Shop()
    store = MovesOnFirst(db_url, store_sql)
    rt = make_runtime([shop], store=store)
    paused = await rt.execute(TWO_WRITES)
    eid = paused["execution_id"]
    store.execution_id = eid
    if action == "approve":
        out = await rt.approve(eid, seq=0)
        assert out["refused"] is True and out["error_type"] == "InvalidStateError"
        assert "paused on call #1 (shop.create_item)" in out["error"]
    else:
        assert await rt.reject(eid, 0) is False
    assert shop.calls["create_item"] == 0
    assert await _state(rt, eid) == ("paused", 2, [(0, "applied"), (1, "pending")])
