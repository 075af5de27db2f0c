"""The panel's Approve names the call its row showed (s11a): comm requests against a notebook session.

The host is the real ``NotebookSession`` (the card, the actions, the runtime and its SQLite
journal); only the comms are fakes, as in the other panel tests.
"""

from __future__ import annotations

import pytest

from tests.panel.conftest import Lab

pytestmark = pytest.mark.anyio



async def test_a_stale_approve_from_a_second_panel_approves_nothing(lab: Lab) -> None:
    first, second = lab.panel("tab-1"), lab.panel("tab-2")
    eid = await lab.paused()
    shown = (await second.data("snapshot"))["pending"]
    assert [(p["seq"], p["path"]) for p in shown] == [(0, "ledger.add")]

    assert (await first.data("approve", execution_id=eid, seq=0))["status"] == "paused"
    stale = await second.ask("approve", execution_id=eid, seq=shown[0]["seq"])
    assert stale["type"] == "error" and stale["error_type"] == "InvalidStateError"
    assert stale["error"] == ("Call #0 (ledger.add) is not pending any more: it was already decided, so "
                              "nothing was approved. The execution is now paused on call #1 (ledger.add).")
    assert lab.ledger.done == ["A"], "call #1, which the second panel never showed, did not run"
    state = await lab.session.runtime.execution(eid)
    assert state is not None and state.status == "paused"

    stale_reject = await second.ask("reject", execution_id=eid, seq=0)
    assert stale_reject["type"] == "error" and "nothing was rejected" in stale_reject["error"]
    state = await lab.session.runtime.execution(eid)
    assert state is not None and state.status == "paused"

    done = await second.data("approve", execution_id=eid, seq=1)
    assert done["status"] == "completed" and lab.ledger.done == ["A", "B"]


async def test_a_seq_that_is_not_a_call_number_is_refused_before_anything_runs(lab: Lab) -> None:
    panel = lab.panel("bad")
    eid = await lab.paused()
    for seq in (True, -1, "0", 0.0, [0]):
        answer = await panel.ask("approve", execution_id=eid, seq=seq)
        assert answer["type"] == "error" and answer["error_type"] == "PanelRequestError", seq
        assert "'seq' must be a non-negative integer" in answer["error"]
    never = await panel.ask("approve", execution_id=eid, seq=7)
    assert never["type"] == "error" and never["error_type"] == "InvalidStateError"
    assert never["error"].startswith("Call #7 is not pending: execution ")
    assert lab.ledger.done == []
    state = await lab.session.runtime.execution(eid)
    assert state is not None and state.status == "paused"


async def test_a_number_too_large_for_the_journal_is_refused_and_leaves_the_card_usable(lab: Lab) -> None:
    """A browser sends integers up to 2**53 - 1 exactly; larger ones (which SQLite cannot bind) are refused
    as a bad request, before the card is locked or the journal is asked."""
    panel = lab.panel("huge")
    eid = await lab.paused()
    card = lab.session.records[eid].card
    assert card is not None
    for request, params in (("approve", {"execution_id": eid, "seq": 2**63}),
                            ("reject", {"execution_id": eid, "seq": 2**70}),
                            ("snapshot", {"limit": 2**64}),
                            ("get_value", {"execution_id": eid, "seq": 2**53, "field": "args"})):
        answer = await panel.ask(request, **params)
        assert answer["type"] == "error" and answer["error_type"] == "PanelRequestError", (request, answer)
        assert "at most 9,007,199,254,740,991" in answer["error"]
    assert not card.locked and card.status == "paused"
    assert lab.ledger.done == []
    done = await panel.data("approve", execution_id=eid, seq=0)
    assert done["status"] == "paused" and lab.ledger.done == ["A"]
