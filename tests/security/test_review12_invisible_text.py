"""The terminal shows text the eye cannot see as visible escapes (review 12).

terminal.py promises that hostile text reaches a terminal inert, and escapes what hides or
reorders text (``\\x1b[8m``, ``\\r``, bidirectional overrides). Characters that render as nothing
hide text just as well: in ``codemode``'s "Approve shop.send(...)? [y/N]" a person reads
``{"to": "alice"}`` where the program sends to ``alice`` followed by a zero-width space (another
account), or a message whose tag characters (U+E0000-U+E007F, "ASCII smuggling") carry
instructions for the next model that reads it.
"""

from __future__ import annotations

import pytest

from codemode_kernel.terminal import terminal_json, terminal_text

INVISIBLE = {
    "zero width space": "\u200b",
    "zero width non-joiner": "\u200c",
    "word joiner": "\u2060",
    "invisible separator": "\u2063",
    "byte order mark": "\ufeff",
    "soft hyphen": "\u00ad",
    "tag latin small letter e": "\U000e0065",
    "cancel tag": "\U000e007f",
}


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_an_invisible_character_is_shown_as_an_escape(char: str) -> None:
    """It is an error if a character that renders as nothing reaches the terminal raw."""
    text = f"alice{char}"
    assert char not in terminal_text(text)
    assert char not in terminal_text(text, multiline=False)
    assert char not in terminal_json({"to": text})
