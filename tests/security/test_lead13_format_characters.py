"""Every character Unicode files as a control, a format character or a line/paragraph separator is
shown as an escape in the terminal's and the approval views' text (lead, review 13: the list of
review 12 missed the variation selectors, the interlinear annotation marks and more)."""

from __future__ import annotations

import sys
import unicodedata

from codemode_kernel.terminal import terminal_json, terminal_text


def test_no_control_format_or_separator_character_passes_raw() -> None:
    raw = [f"U+{c:04X}" for c in range(sys.maxunicode + 1)
           if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp") and chr(c) not in "\t\n"
           and chr(c) in terminal_text("a" + chr(c) + "b", multiline=True)]
    assert raw == []


def test_escaped_text_still_reads_back_as_json() -> None:
    import json

    value = {"to": "alice" + "".join(chr(0xE0100 + b) for b in b"hidden") + "\ufe0f\u3164"}
    shown = terminal_json(value)
    assert "hidden" not in shown and "\\udb40" in shown and "\\u3164" in shown
    assert json.loads(shown) == value
