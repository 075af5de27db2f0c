"""A call's Approve and Reject are disabled for a moment after the call appears (lead, session 14).

After an approval the cell often pauses again within milliseconds, the next call's row where the
last one was: the second click of a double-click on Approve would land on a call nobody has read.
The new row's buttons stay disabled (and say why) for ``ARMING_SECONDS``; a click then is
ignored, as on any disabled button; afterwards it approves. The connector counts what ran.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from codemode_kernel.kernel.session import NotebookSession
from codemode_kernel.kernel.widgets import ARMING_SECONDS, ARMING_TIP
from tests.kernel.test_s11a_card_names_its_call import click, open_session, paused_card, rows, until
from tests.support import Ledger

pytestmark = pytest.mark.anyio


@pytest.fixture
async def one(tmp_path: Path) -> AsyncIterator[tuple[Ledger, NotebookSession]]:
    ledger = Ledger()
    session = open_session(tmp_path, ledger)
    yield ledger, session
    await session.aclose()


async def test_the_second_click_of_a_double_click_does_not_approve_the_next_call(
        one: tuple[Ledger, NotebookSession]) -> None:
    ledger, session = one
    eid, card = await paused_card(session)
    (_, approve_a, _), = rows(card)
    assert approve_a.disabled and approve_a.tooltip == ARMING_TIP, "call #0 has just appeared"
    await click(approve_a)  # once armed: the person read it
    await until(lambda: [t for t, _, _ in rows(card)] == ["ledger.add call #1"], "the pause on call #1")
    (_, approve_b, reject_b), = rows(card)
    assert approve_b.disabled and reject_b.disabled and approve_b.tooltip == ARMING_TIP

    approve_b.click()  # the double-click's second click, as soon as the row is there
    reject_b.click()
    assert ledger.done == ["A"], "call #1 did not run"
    assert card.status == "paused" and not card.locked
    state = await session.runtime.execution(eid)
    assert state is not None and state.status == "paused"

    await until(lambda: not approve_b.disabled, "the row to be armed", timeout=ARMING_SECONDS + 20)
    assert approve_b.tooltip != ARMING_TIP and not reject_b.disabled
    approve_b.click()
    await until(lambda: card.status == "completed", "the card to complete")
    assert ledger.done == ["A", "B"]

