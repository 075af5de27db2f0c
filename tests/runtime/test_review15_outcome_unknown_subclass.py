"""A connector's own subclass of ``OutcomeUnknown`` is an unknown outcome too (review 15).

``errors.OutcomeUnknown``'s docstring tells connector authors to raise it when a request went out
unanswered; a connector that has its own error classes (``class PaymentTimeout(OutcomeUnknown)``)
raises a subclass. The runtime keeps the entry ``executing`` for it (``passes._state_after`` is an
``isinstance`` test), but writes the note as ``<type name>: ...`` with the *subclass*'s name
(``connector_threads.error_name``), and every later reader recognises an unknown outcome only by
the note's prefix ``OutcomeUnknown:`` (``passes._unknown_outcome``, ``journal.integrity_problems``).
So the next pass (the approval of a later call) takes the entry for a host that stopped mid-call
and fails the execution: the approved call never runs, and the execution can never be approved.

The right outcome: as for ``OutcomeUnknown`` itself (tests/runtime/test_lead14_outcome_unknown.py):
the approval pass raises the same error again at that call, runs the approved call once, and
completes.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import OutcomeUnknown
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


class PaymentTimeout(OutcomeUnknown):
    """The bank's own 'sent, no answer' error."""


def bank(calls: dict[str, int]) -> ToolSetConnector:
    def pay(amount: int) -> dict[str, Any]:
        """Pay (the answer never comes)."""
        calls["pay"] += 1
        raise PaymentTimeout("POST /payments was sent and no answer came; check before sending it again")

    def record(amount: int) -> dict[str, Any]:
        """Record a charge (needs approval)."""
        calls["record"] += 1
        return {"id": "c1", "amount": amount}

    return ToolSetConnector([pay, record], name="bank", requires_approval={"record"}, target="review15 bank")


async def test_a_subclass_of_outcome_unknown_replays_as_raised_and_the_approval_runs(
        make_runtime: RuntimeFactory) -> None:
    calls = {"pay": 0, "record": 0}
    rt = make_runtime([bank(calls)])
    code = ("try:\n    bank.pay(amount=5)\n    seen = 'answered'\nexcept Exception as e:\n"
            "    seen = 'unknown'\nbank.record(amount=5)\nseen")
    paused = await rt.execute(code)
    assert paused["status"] == "paused", paused
    state = await rt.execution(paused["execution_id"])
    assert state is not None and [(e.seq, e.state) for e in state.log] == [(0, "executing"), (1, "pending")]

    done = await rt.approve(paused["execution_id"], seq=1)
    assert done["status"] == "completed", done
    assert done["result"] == "unknown"
    assert calls == {"pay": 1, "record": 1}, "the approved call ran once, the unanswered one was not sent again"
