"""Every Approve / Reject a person clicks names the call they saw (s11a), in process.

Two notebook sessions on the same notebook's journal stand for two kernels (two tabs, two
front ends). The first shows the card of a cell that pauses on call #0; the second approves
#0 and its pass pauses on call #1. The first card's click for #0 then approves nothing: the
card says so, shows call #1, and a click on #1 approves that one. The connector counts what
really ran.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import ipywidgets as w
import pytest

from codemode_kernel.kernel.magics import Magics
from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.session import NotebookSession
from codemode_kernel.kernel.widgets import ARMING_TIP, ExecutionCard
from tests.support import LEDGER_TWO_ADDS, Ledger

pytestmark = pytest.mark.anyio

def open_session(folder: Path, ledger: Ledger) -> NotebookSession:
    (folder / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    session = NotebookSession(cwd=folder, env={"JPY_SESSION_NAME": str(folder / "s.ipynb")})
    session.load()
    session.connect(ledger.connector())
    session.home_loop = asyncio.get_running_loop()
    return session


@pytest.fixture
async def two(tmp_path: Path) -> AsyncIterator[tuple[Ledger, NotebookSession, NotebookSession]]:
    """One ledger, two sessions (two kernels) over the same notebook journal."""
    ledger = Ledger()
    first, second = open_session(tmp_path, ledger), open_session(tmp_path, ledger)
    yield ledger, first, second
    await first.aclose()
    await second.aclose()


async def until(predicate: Callable[[], bool], what: str, timeout: float = 20) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def text(widget: w.HTML) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", str(widget.value)))


async def click(button: w.Button) -> None:
    """Click as a person does: once the row's buttons are armed (widgets.ARMING_SECONDS after it appeared)."""
    await until(lambda: not button.disabled, "the button to be armed")
    button.click()


def rows(card: ExecutionCard) -> list[tuple[str, w.Button, w.Button]]:
    """(title, Approve, Reject) of every pending row the card shows."""
    out = []
    for row in card.pending_box.children:
        title, approve, reject = row.children[0].children  # type: ignore[attr-defined]
        out.append((text(title), approve, reject))
    return out


async def paused_card(session: NotebookSession) -> tuple[str, ExecutionCard]:
    outcome = await session.run_code(LEDGER_TWO_ADDS, RecordingSink(), 1)
    eid = str(outcome.execution_id)
    card = session.records[eid].card
    assert card is not None
    assert [title for title, _, _ in rows(card)] == ["ledger.add call #0"]
    return eid, card


async def test_a_click_for_a_call_approved_elsewhere_approves_nothing_and_shows_the_next_call(
        two: tuple[Ledger, NotebookSession, NotebookSession]) -> None:
    ledger, first, second = two
    eid, card = await paused_card(first)
    (_, approve_a, _), = rows(card)
    moved = await second.approve(eid, 0)  # another kernel approves #0; its pass pauses on #1
    assert moved["status"] == "paused" and [p["seq"] for p in moved["pending"]] == [1]
    assert ledger.done == ["A"]

    await click(approve_a)  # the first card still shows #0
    await until(lambda: "already decided" in text(card.message), "the refusal on the card")
    assert ledger.done == ["A"], "call #1, which this card never showed, did not run"
    assert text(card.message) == ("Call #0 (ledger.add) is not pending any more: it was already decided, so "
                                  "nothing was approved. The execution is now paused on call #1 (ledger.add). "
                                  "Review it below.")
    assert "<" not in text(card.message), "the message is text"
    (title, approve_b, reject_b), = rows(card)
    assert title == "ledger.add call #1" and approve_b.tooltip == reject_b.tooltip == ARMING_TIP
    await until(lambda: not approve_b.disabled and not reject_b.disabled, "the new row's buttons to be armed")
    assert card.status == "paused"

    await click(approve_b)
    await until(lambda: card.status == "completed", "the card to complete")
    assert ledger.done == ["A", "B"]
    assert "ledger.add (call #1) approved" in text(card.history)
    state = await first.runtime.execution(eid)
    assert state is not None and state.status == "completed" and state.result == ["A", "B"]


async def test_a_reject_for_a_call_approved_elsewhere_rejects_nothing(
        two: tuple[Ledger, NotebookSession, NotebookSession]) -> None:
    ledger, first, second = two
    eid, card = await paused_card(first)
    (_, _, reject_a), = rows(card)
    assert (await second.approve(eid, 0))["status"] == "paused"

    await click(reject_a)
    await until(lambda: "already decided" in text(card.message), "the refusal on the card")
    assert "nothing was rejected" in text(card.message)
    state = await first.runtime.execution(eid)
    assert state is not None and state.status == "paused", "the execution still waits for call #1"
    (title, _, reject_b), = rows(card)
    assert title == "ledger.add call #1"
    await click(reject_b)
    await until(lambda: card.status == "rejected", "the rejection")
    assert ledger.done == ["A"]
    assert "ledger.add (call #1) rejected" in text(card.history)


async def test_approve_all_approves_only_the_calls_listed_when_clicked(
        two: tuple[Ledger, NotebookSession, NotebookSession]) -> None:
    ledger, first, _ = two
    eid, card = await paused_card(first)
    listed = [dict(p) for p in first.records[eid].pending]
    out = await first.actions.approve_calls(eid, listed)
    assert out["status"] == "paused" and [p["seq"] for p in out["pending"]] == [1]
    assert ledger.done == ["A"], "call #1 was not listed: it waits for a decision"
    assert [title for title, _, _ in rows(card)] == ["ledger.add call #1"]

    # A listed call with other arguments than the one the execution now waits on is not approved.
    again = await first.run_code(LEDGER_TWO_ADDS, RecordingSink(), 2)
    eid2 = str(again.execution_id)
    (shown,) = first.records[eid2].pending
    not_b = {**shown, "seq": 1, "args": {"text": "not B"}}
    out = await first.actions.approve_calls(eid2, [dict(shown), not_b])
    assert out["status"] == "paused" and [p["seq"] for p in out["pending"]] == [1]
    assert ledger.done == ["A", "A"]

    # Both listed as they are: both approved, in order.
    third = await first.run_code(LEDGER_TWO_ADDS, RecordingSink(), 3)
    eid3 = str(third.execution_id)
    mine = first.records[eid3].pending[0]
    nxt = {**mine, "seq": 1, "args": {"text": "B"}}
    out = await first.actions.approve_calls(eid3, [dict(mine), nxt])
    assert out["status"] == "completed" and out["result"] == ["A", "B"]
    assert ledger.done == ["A", "A", "A", "B"]


async def test_a_typed_approve_says_which_call_it_approved(
        two: tuple[Ledger, NotebookSession, NotebookSession]) -> None:
    ledger, first, _ = two
    outcome = await first.run_code("n = ledger.add(text='typed')", RecordingSink(), 1)
    eid = str(outcome.execution_id)
    sink = RecordingSink()
    await Magics(first).run_line("%approve last", sink)
    assert ledger.done == ["typed"]
    assert sink.text().startswith(f"Approved: execution {eid}, call #0 (ledger.add): it completed. ")
