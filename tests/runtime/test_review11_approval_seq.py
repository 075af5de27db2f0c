"""Review 11: attacks on approvals by call number (``approve(execution_id, seq=k)``, ``reject(execution_id, k)``).

A call number reaches the runtime from a front end (a panel message, an HTTP body): any JSON integer a
client sends. The check that call #k is still the pending call must hold in the claim itself, on both
stores, whatever another host commits around it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

TWO_WRITES = "a = shop.create_item(title='a')\nb = shop.create_item(title='b')\n[a['id'], b['id']]"

# Integers a JSON body can carry that no store column holds (SQLite INTEGER and PostgreSQL bigint end
# at 2**63 - 1).
HUGE_SEQS = [2**63, 10**30]


async def _state(rt: Any, execution_id: str) -> tuple[str, int, list[tuple[int, str]]]:
    state = await rt.execution(execution_id)
    assert state is not None
    return state.status, state.passes, [(e.seq, e.state) for e in state.log]


@pytest.mark.parametrize("seq", HUGE_SEQS)
async def test_a_call_number_beyond_the_store_integers_is_refused_as_data(make_runtime: RuntimeFactory,
                                                                          seq: int) -> None:
    """A call number no execution can have is a refusal (data), not an exception, and changes nothing."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(TWO_WRITES)
    eid = paused["execution_id"]
    before = await _state(rt, eid)

    out = await rt.approve(eid, seq=seq)

    assert out["status"] == "error" and out.get("refused") is True, out
    assert out["error_type"] in ("InvalidStateError", "TypeError")
    assert "nothing was approved" in out["error"].lower()
    assert await rt.reject(eid, seq) is False
    assert shop.calls["create_item"] == 0
    assert await _state(rt, eid) == before
    done = await rt.approve(eid, seq=0)  # the store is still usable for the call the person sees
    assert done["status"] == "paused" and [p["seq"] for p in done["pending"]] == [1]


class AnotherHostHoldsTheRow:
    """Another host's transaction that holds the execution's row until a statement of this host waits
    for it, then commits what that host's approval of call #0 commits: call #0 applied and the next
    pass paused on call #1 (the execution 'paused' again, one pass more)."""

    def __init__(self, db_url: str, execution_id: str) -> None:
        self.engine = create_engine(db_url, poolclass=NullPool)
        self.execution_id = execution_id
        self.holding = threading.Event()
        self.failures: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> AnotherHostHoldsTheRow:
        self.thread.start()
        assert self.holding.wait(120)
        assert not self.failures, self.failures
        return self

    def __exit__(self, *exc: object) -> None:
        self.thread.join(120)
        self.engine.dispose()
        assert not self.thread.is_alive()
        assert not self.failures, self.failures

    def _run(self) -> None:
        e = {"e": self.execution_id}
        try:
            with self.engine.connect() as z, self.engine.connect() as watch:
                z.execute(text("UPDATE codemode_executions SET updated_at = updated_at + 1 WHERE id = :e"), e)
                pid = z.execute(text("SELECT pg_backend_pid()")).scalar_one()
                self.holding.set()
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:  # until a statement of this host waits for the row
                    waiting = watch.execute(text(
                        "SELECT count(*) FROM pg_stat_activity WHERE :pid = ANY(pg_blocking_pids(pid))"),
                        {"pid": pid}).scalar_one()
                    watch.rollback()
                    if waiting:
                        break
                    time.sleep(0.01)
                z.execute(text("UPDATE codemode_entries SET state = 'applied', result = :r, pass_number = 2 "
                               "WHERE execution_id = :e AND seq = 0"), {**e, "r": '{"id": 2, "title": "a"}'})
                z.execute(text(
                    "INSERT INTO codemode_entries (runtime, execution_id, seq, connector, method, args, result, "
                    "requires_approval, ephemeral, state, error, pass_number, created_at, updated_at) VALUES "
                    "('default', :e, 1, 'shop', 'create_item', :a, NULL, true, false, 'pending', NULL, 2, 0, 0)"),
                    {**e, "a": '{"title":"b"}'})
                z.execute(text("UPDATE codemode_executions SET passes = 2 WHERE id = :e"), e)
                z.commit()
        except BaseException as exc:  # reported by the test, not lost in the thread
            self.failures.append(exc)
            self.holding.set()


@pytest.mark.parametrize("action", ["approve", "reject"])
async def test_a_stale_click_that_waited_for_another_host_decides_nothing(
        make_runtime: RuntimeFactory, db_url: str, store_kind: str, action: str) -> None:
    """Another host holds the execution's row while it approves call #0 and its pass pauses on call #1;
    a click for call #0 whose claim started before that commit and waited for the row approves or
    rejects nothing, and is refused."""
    if store_kind != "postgresql":
        pytest.skip("SQLite has one writer: a statement never waits for another's row")
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute(TWO_WRITES)
    eid = paused["execution_id"]
    with AnotherHostHoldsTheRow(db_url, eid):
        # Waits for the other host's row, then decides (the store call blocks this thread).
        decided: Any = await (rt.approve(eid, seq=0) if action == "approve" else rt.reject(eid, 0))
    if action == "approve":
        assert decided["status"] == "error" and decided.get("refused") is True, decided
        assert decided["error_type"] == "InvalidStateError"
        assert "paused on call #1 (shop.create_item)" in decided["error"]
    else:
        assert decided is False
    assert shop.calls["create_item"] == 0
    assert await _state(rt, eid) == ("paused", 2, [(0, "applied"), (1, "pending")])


@pytest.mark.parametrize("action", ["approve", "reject"])
async def test_a_pending_call_of_another_execution_is_not_this_one_s(make_runtime: RuntimeFactory,
                                                                     action: str) -> None:
    """Execution A moved on from call #0 to a pause on call #1, while execution B waits on its own call
    #0: a stale click for A's call #0 is refused; B's pending #0 does not stand for it."""
    shop = Shop()
    tab1, tab2 = make_runtime([shop]), make_runtime([shop])
    a = (await tab1.execute(TWO_WRITES))["execution_id"]
    assert (await tab1.approve(a, seq=0))["status"] == "paused"
    b = (await tab1.execute(TWO_WRITES))["execution_id"]
    assert [p.seq for p in await tab1.pending(b)] == [0]
    before = await _state(tab1, a)

    if action == "approve":
        out = await tab2.approve(a, seq=0)
        assert out["status"] == "error" and out.get("refused") is True, out
        assert out["error_type"] == "InvalidStateError"
        assert "Call #0 (shop.create_item) is not pending any more" in out["error"]
    else:
        assert await tab2.reject(a, 0) is False
    assert shop.calls["create_item"] == 1
    assert await _state(tab1, a) == before == ("paused", 2, [(0, "applied"), (1, "pending")])
    assert await _state(tab1, b) == ("paused", 1, [(0, "pending")])
