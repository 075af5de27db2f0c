"""The approval card shows a pending call's arguments without hidden or reordered text (review 12).

A person approves what the card shows. The card renders the arguments as JSON in a ``<pre>``
with the characters as they are (``display.json_text``, ``ensure_ascii=False``), so a
right-to-left override (U+202E) reorders what follows it on the line, and a zero-width space or a
tag character (U+E0000-U+E007F) is text nobody sees: ``{"to": "alice"}`` on the card, another
account (or hidden instructions) in the call. The terminal escapes these (terminal.py); the card
should too, e.g. as the JSON escapes ``\\u202e`` (still valid JSON).
"""

from __future__ import annotations

import pytest

from codemode_kernel.kernel.widgets import CardActions, ExecutionCard

HIDING = {
    "right-to-left override": "\u202e",
    "right-to-left isolate": "\u2067",
    "zero width space": "\u200b",
    "word joiner": "\u2060",
    "byte order mark": "\ufeff",
    "tag latin small letter e": "\U000e0065",
}


def _card() -> ExecutionCard:
    return ExecutionCard("01ABC", CardActions(approve_call=lambda seq: None, approve_calls=lambda shown: None,
                                              reject=lambda seq: None, rollback=lambda: None,
                                              save_snippet=lambda n, d: None))


@pytest.mark.parametrize("char", HIDING.values(), ids=HIDING.keys())
def test_the_card_shows_no_hidden_or_reordering_character(char: str) -> None:
    """It is an error if the HTML of a pending call's row carries a character that hides or reorders text."""
    card = _card()
    card.show_pending([{"seq": 0, "connector": "bank", "method": "transfer",
                        "args": {"to": f"alice{char}", "memo": f"rent{char}"}}])
    html = "".join(str(getattr(w, "value", "")) for row in card.pending_box.children
                   for box in row.children for w in getattr(box, "children", (box,)))
    assert "alice" in html
    assert char not in html
