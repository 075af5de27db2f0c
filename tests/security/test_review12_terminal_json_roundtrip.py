"""``terminal_json`` stays JSON that reads back as the same value (review 12, on 36b33ca).

terminal.py promises its JSON is "still valid JSON for ``--json`` readers" with every unsafe
character as an escape. Since 36b33ca the unsafe set holds the tag characters U+E0000-U+E007F,
which lie above U+FFFF; ``terminal_json`` writes each as ``\\u`` plus its code point
(``\\ue0065``), which JSON reads as U+E006 followed by the text "5": a script reading
``codemode ... --json`` gets another string than the journal holds. JSON spells such a
character as a surrogate pair (``\\udb40\\udc65``).
"""

from __future__ import annotations

import json

import pytest

from codemode_kernel.terminal import terminal_json

TEXTS = [
    pytest.param("alice\U000e0065", id="tag latin small letter e"),
    pytest.param("x\U000e007f", id="cancel tag"),
    pytest.param("alice\u200b", id="zero width space"),
    pytest.param("\u202eevil", id="right-to-left override"),
    pytest.param("\x1b[2J", id="escape"),
]


@pytest.mark.parametrize("text", TEXTS)
def test_terminal_json_reads_back_as_the_same_value(text: str) -> None:
    """It is an error if the JSON shown for a value decodes to another value."""
    shown = terminal_json({"to": text, "list": [text]}, indent=2)
    assert json.loads(shown) == {"to": text, "list": [text]}
