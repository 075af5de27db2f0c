"""A call or a revert whose request went out unanswered is never made twice (review 14, H5; lead, session 14).

A connector raises ``OutcomeUnknown`` when it sent the request and no answer came (a timeout
after sending, a lost connection). The entry stays ``executing`` with the connector's note: not
``error`` (the state of a call that did not happen), never run again, skipped by rollback; a
replay raises the same error, as the first pass saw it. A revert that raises it stays
``reverted`` with the outcome unknown, so a second rollback does not run it again.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import OutcomeUnknown, RollbackError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

SENT = ("POST /payments was sent and no answer came within 1 s: the service may have made it; check before sending "
        "it again")


class Bank:
    def __init__(self, *, refund_unanswered: bool = False) -> None:
        self.calls = {"pay": 0, "record": 0, "refund": 0}
        self.refund_unanswered = refund_unanswered

    def connector(self) -> ToolSetConnector:
        def pay(amount: int) -> dict[str, Any]:
            """Pay (the answer never comes)."""
            self.calls["pay"] += 1
            raise OutcomeUnknown(SENT)

        def record(amount: int) -> dict[str, Any]:
            """Record a charge (needs approval)."""
            self.calls["record"] += 1
            return {"id": "c1", "amount": amount}

        def refund(args: dict[str, Any], result: Any, ctx: Any) -> None:
            self.calls["refund"] += 1
            if self.refund_unanswered:
                raise OutcomeUnknown("POST /refunds/c1 was sent and no answer came within 1 s")

        return ToolSetConnector([pay, record], name="bank", requires_approval={"record"},
                                reverts={"record": refund}, target="the test's bank")


async def test_an_unanswered_call_stays_executing_raises_again_on_replay_and_runs_once(
        make_runtime: RuntimeFactory) -> None:
    bank = Bank()
    rt = make_runtime([bank.connector()])
    code = ("try:\n    bank.pay(amount=5)\n    seen = 'answered'\nexcept Exception as e:\n"
            "    seen = str(e)\nbank.record(amount=5)\nseen")
    paused = await rt.execute(code)
    assert paused["status"] == "paused", paused
    state = await rt.execution(paused["execution_id"])
    assert state is not None
    assert [(e.seq, e.state) for e in state.log] == [(0, "executing"), (1, "pending")]
    assert state.log[0].error == f"OutcomeUnknown: bank.pay: {SENT}"

    done = await rt.approve(paused["execution_id"], seq=1)
    assert done["status"] == "completed", done
    # str() of the sandbox's OutcomeUnknown is its message, its type the class (review 15x, M12).
    assert done["result"] == f"bank.pay: {SENT}", "the replay raised what the first pass saw"
    assert bank.calls == {"pay": 1, "record": 1, "refund": 0}, "the unanswered call was not sent again"


async def test_an_unanswered_call_fails_the_pass_without_saying_it_failed(make_runtime: RuntimeFactory) -> None:
    bank = Bank()
    rt = make_runtime([bank.connector()])
    out = await rt.execute("bank.pay(amount=5)")
    # The sandbox has OutcomeUnknown (a ConnectorError), so the outcome names it (review 15x, M12).
    assert out["status"] == "error" and out["error_type"] == "OutcomeUnknown", out
    assert out["error"].startswith(f"OutcomeUnknown: bank.pay: {SENT}"), out
    state = await rt.execution(out["execution_id"])
    assert state is not None and [e.state for e in state.log] == ["executing"]


async def test_an_unanswered_revert_is_reported_and_not_run_by_a_second_rollback(make_runtime: RuntimeFactory) -> None:
    bank = Bank(refund_unanswered=True)
    rt = make_runtime([bank.connector()])
    paused = await rt.execute("bank.record(amount=5)")
    out = await rt.approve(paused["execution_id"], seq=0)
    assert out["status"] == "completed", out
    with pytest.raises(RollbackError, match="whether it took effect is unknown; it is not run again"):
        await rt.rollback(out["execution_id"])
    assert bank.calls["refund"] == 1
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.log[0].state == "reverted"
    assert (state.log[0].error or "").startswith("RevertOutcomeUnknown: POST /refunds/c1 was sent")
    await rt.rollback(out["execution_id"])  # nothing left to revert: the refund is not sent again
    assert bank.calls["refund"] == 1
