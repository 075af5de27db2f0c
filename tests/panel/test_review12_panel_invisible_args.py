"""The panel's text for a pending call's arguments hides nothing and reorders nothing (review 12).

The panel (its journal row and the pending call its Approve names) shows ``args.summary`` and
``args.text`` as the kernel sends them (``panel_messages.value_text``, ``ensure_ascii=False``). A
right-to-left override in one argument reorders the rest of the one-line summary (every argument
after it), and a zero-width space or a tag character (U+E0000-U+E007F) is text the person never
sees. The terminal escapes these (terminal.py); the panel's text should too.
"""

from __future__ import annotations

import pytest

from tests.panel.conftest import Setup

pytestmark = pytest.mark.anyio

HIDING = {
    "right-to-left override": "\u202e",
    "zero width space": "\u200b",
    "tag latin small letter e": "\U000e0065",
}


@pytest.mark.parametrize("char", HIDING.values(), ids=HIDING.keys())
async def test_the_panel_text_of_a_pending_call_hides_nothing(setup: Setup, char: str) -> None:
    """It is an error if the panel's summary or text of a pending call's arguments carries such a character."""
    paused = await setup.host.rt.execute(f"shop.create_item(title='alice' + chr({ord(char)}) + ' rent')")
    assert paused["status"] == "paused"
    detail = await setup.panel.data("get_execution", execution_id=paused["execution_id"])
    args = detail["entries"][0]["args"]
    assert "alice" in args["summary"]
    assert char not in args["summary"]
    assert char not in args["text"]
    assert setup.shop.calls["create_item"] == 0
