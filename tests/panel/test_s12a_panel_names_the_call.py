"""A panel approval or rejection must name the call it decides (protocol 2, s12a).

Protocol 1 accepted an ``approve`` without ``seq`` and approved whatever call was pending when it
arrived: an old cached page, or any client on the comm, could approve a call its user never saw.
Every front end we ship names the call, so the kernel now refuses such a request as data and
decides nothing.

The host is the real ``NotebookSession`` (the card, the actions, the runtime and its SQLite
journal); only the comms are fakes, as in the other panel tests.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codemode_kernel.kernel import panel_messages as pm
from tests.panel.conftest import Lab

pytestmark = pytest.mark.anyio

#: What a request that names no call may look like on the wire: no ``seq`` key, or ``seq: null``.
NO_CALL_NAMED: list[dict[str, Any]] = [{}, {"seq": None}]




@pytest.mark.parametrize("no_seq", NO_CALL_NAMED)
async def test_an_approve_that_names_no_call_approves_nothing(lab: Lab, no_seq: dict[str, Any]) -> None:
    """It is an error to approve without a call number: the pending call does not run."""
    eid = await lab.paused()
    before = await lab.state(eid)
    assert before == ("paused", 1, [(0, "pending")])

    answer = await lab.panel("old-page").ask("approve", execution_id=eid, **no_seq)

    assert answer["type"] == "error" and answer["error_type"] == "PanelRequestError"
    assert answer["error"] == (
        "An 'approve' request must name the call it decides: 'seq', the call number of the pending action "
        "the panel shows. Nothing was approved. Reload the page if the extension and the kernel come from "
        "different versions.")
    await asyncio.sleep(0.05)
    assert lab.ledger.done == [], "the pending call did not run"
    assert await lab.state(eid) == before


@pytest.mark.parametrize("no_seq", NO_CALL_NAMED)
async def test_a_reject_that_names_no_call_rejects_nothing(lab: Lab, no_seq: dict[str, Any]) -> None:
    """It is an error to reject without a call number: the execution still waits."""
    eid = await lab.paused()
    before = await lab.state(eid)

    answer = await lab.panel("old-page").ask("reject", execution_id=eid, **no_seq)

    assert answer["type"] == "error" and answer["error_type"] == "PanelRequestError"
    assert "'seq'" in answer["error"] and "Nothing was rejected." in answer["error"]
    assert await lab.state(eid) == before
    done = await lab.panel("new-page").data("approve", execution_id=eid, seq=0)  # the call a page shows
    assert done["status"] == "paused" and lab.ledger.done == ["A"]


async def test_an_old_page_that_moved_on_cannot_approve_the_next_call(lab: Lab) -> None:
    """A page that approved call #0 and sends a second approve without a number does not approve call #1."""
    eid = await lab.paused()
    tab = lab.panel("tab")
    assert (await tab.data("approve", execution_id=eid, seq=0))["status"] == "paused"
    assert lab.ledger.done == ["A"]

    answer = await tab.ask("approve", execution_id=eid)

    assert answer["type"] == "error"
    assert lab.ledger.done == ["A"], "call #1, which nobody approved, did not run"
    assert await lab.state(eid) == ("paused", 2, [(0, "applied"), (1, "pending")])


async def test_the_kernel_speaks_protocol_2(lab: Lab) -> None:
    """An extension of protocol 1 (which may send approvals without a call) sees a different version."""
    (hello,) = lab.panel("tab").comm.of_type("hello")
    assert hello["protocol"] == pm.PROTOCOL_VERSION == 2
    assert pm.REQUESTS["approve"]["seq"] == pm.REQUESTS["reject"]["seq"] == "int"


async def test_the_panel_card_and_runtime_say_the_same_thing(lab: Lab) -> None:
    """A stale decision is refused in the same words by the panel, the card and the runtime itself."""
    eid = await lab.paused()
    first, second = lab.panel("tab-1"), lab.panel("tab-2")
    assert (await first.data("approve", execution_id=eid, seq=0))["status"] == "paused"

    panel_text = (await second.ask("approve", execution_id=eid, seq=0))["error"]
    runtime_text = (await lab.session.runtime.approve(eid, seq=0))["error"]

    assert panel_text == runtime_text == (
        "Call #0 (ledger.add) is not pending any more: it was already decided, so nothing was approved. "
        "The execution is now paused on call #1 (ledger.add).")
    card = lab.session.actions.records[eid].card
    assert card is not None and runtime_text in card.message.value
    rejected = await second.ask("reject", execution_id=eid, seq=0)
    assert rejected["error"] == runtime_text.replace("nothing was approved", "nothing was rejected")
    assert lab.ledger.done == ["A"]
