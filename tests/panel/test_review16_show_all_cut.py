"""The panel's "Show all" of a paused call's arguments still cuts them, after padding made of escapes (review 16).

Review 15 M3 put the whole arguments of a pending call a click away (Show all: the ``get_value``
request), because "a program can pad an argument so that what matters comes after any cut". The
kernel answers it with ``panel_messages.abbreviate(value, FULL_VALUE_CHARS)``: the *shown* text
(``value_text``: every invisible character as a six-character ``\\uXXXX`` escape, review 12) cut at
2,000,000 characters. An argument of 1,000,000 characters (the codec's limit) made of zero-width spaces
is 6,000,000 characters shown, so the words after the padding (who is paid, how much) are never shown,
whatever the person clicks: the card says "showing 2,000,000 of 6,000,0xx characters" and Show all
answers the same cut text again.

The right outcome: Show all shows every argument whole (the escapes are text the kernel made: its cut,
if any, must not fall inside what the program wrote), so the end of the argument is readable.
"""

from __future__ import annotations

import pytest

from tests.panel.conftest import Setup

pytestmark = pytest.mark.anyio


async def test_show_all_shows_the_end_of_a_padded_argument(setup: Setup) -> None:
    code = "shop.create_item(title=chr(0x200b) * 990000 + ' pay mallory 9000 EUR')"
    paused = await setup.host.rt.execute(code)
    assert paused["status"] == "paused", paused
    eid = paused["execution_id"]
    full = await setup.panel.data("get_value", execution_id=eid, seq=0, field="args")
    assert "pay mallory 9000 EUR" in full["text"], (full["truncated"], full["chars"])
    assert setup.shop.calls["create_item"] == 0
