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


def test_program_output_keeps_colours_but_no_other_sequence() -> None:
    from codemode_kernel.terminal import inert_output

    assert inert_output("plain\ttext\r50%\n") == "plain\ttext\r50%\n"
    assert inert_output("a\x1b[1;31mred") == "a\x1b[1;31mred\x1b[0m"  # the colour ends with the output
    assert inert_output("\x1b[38;2;1;2;3mrgb") == "\x1b[38;2;1;2;3mrgb\x1b[0m"
    for hostile in ("\x1b[8m", "\x1b[31;8m", "\x1b]0;title\x07", "\x1b]52;c;aGk=\x07", "\x1b[2J", "\x1b[1A",
                    "\x1b(0", "\x9b2J", "\x1b[38;5m"):
        shown = inert_output("x" + hostile + "y")
        assert "\x1b" not in shown and "\x9b" not in shown and "\x07" not in shown, repr(shown)
