"""Text for a terminal: whatever a program, a connector or a server wrote, shown inert.

Every view of the ``codemode`` command shows hostile text: a program's print output, results,
error messages, journal entries, tool descriptions, server logs. Raw, that text scripts the
terminal (issue 10, item 6): ``\\x1b[2J`` clears the screen, ``\\r`` overwrites a line with a
fake "waiting for approval", ``\\x1b[8m`` conceals what follows, OSC sequences set the title
or write the clipboard, a right-to-left override reorders what the eye reads.

So the command passes everything it did not write itself through this module:

- :func:`terminal_text` shows control characters as visible escapes (``\\x1b``, ``\\r``,
  ``\\u202e``); newlines stay only where the view is multi-line;
- :func:`quoted_block` puts every line after the first behind a gutter (``| ``), and
  :class:`ProgramOutput` puts every line of print output behind it, so a line the command
  writes itself (``[completed] …``, ``  waiting for approval: …``) cannot be imitated;
- :func:`terminal_json` is JSON with the same characters as ``\\uXXXX`` escapes (still valid
  JSON for ``--json`` readers);
- :class:`TerminalFormatter` does the same for log records.

Tabs are left alone: they move the cursor but cannot hide or overwrite text. A literal
backslash is not doubled, so a program can print the four characters ``\\x1b``; that is
visible text, not an escape.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any, TextIO

GUTTER = "| "

# C0 controls but tab and newline, DEL, C1 controls (0x9b is an 8-bit CSI), the Unicode line and
# paragraph separators, and the characters a person cannot see but a model reads: every format
# character (Unicode category Cf: soft hyphen, bidirectional marks, overrides and isolates,
# zero-width space and joiners, word joiner and invisible operators, the byte-order mark, the tag
# characters of "ASCII smuggling", the interlinear annotation marks, musical and shorthand format
# controls), the variation selectors (one per byte hides a payload after a visible letter: "emoji
# smuggling"), the combining grapheme joiner, the Mongolian free variation selectors, the Khmer
# inherent vowels, the blanks fonts draw as nothing (Hangul fillers, the braille blank) and the
# spaces narrower or wider than a space (U+2000-U+200A, U+202F, U+205F; review 13). In an approval
# prompt "alice\u200b" would otherwise read as "alice".
_UNSAFE = ("\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
           "\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800"
           "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
           "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
_UNSAFE_TEXT = re.compile(f"[{_UNSAFE}]")
_UNSAFE_LINE = re.compile(f"[\n{_UNSAFE}]")
_NAMED = {"\r": "\\r", "\n": "\\n"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def revealer(keep: str = "") -> Callable[[str], str]:
    """A function giving ``text`` with the characters :func:`terminal_text` escapes as escapes (newlines and
    tabs stay), except those in ``keep``: HTML keeps what emoji and right-to-left text need (review 16, M2)."""
    pattern = re.compile(f"(?![{re.escape(keep)}])[{_UNSAFE}]") if keep else _UNSAFE_TEXT

    def reveal(text: str) -> str:
        return pattern.sub(_escape, text)

    return reveal


def terminal_text(text: str, *, multiline: bool = True) -> str:
    """``text`` with control characters as visible escapes; ``multiline=False`` escapes newlines too."""
    return (_UNSAFE_TEXT if multiline else _UNSAFE_LINE).sub(_escape, text)


# -- a program's output on its way to any Jupyter frontend (a terminal among them) ---------------

#: Controls that script a terminal; tab, newline and carriage return (progress lines) stay. The bidi
#: embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) too: a program's unterminated
#: right-to-left override (``print(..., end='')``) reorders the start of the kernel's next line on a
#: terminal that does bidi (review 14, noticed). Marks (LRM, RLM, ALM) and variation selectors stay:
#: right-to-left text and emoji use them, and they reorder or hide nothing beyond their own character.
_OUTPUT_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SGR = re.compile("\x1b\\[([0-9;]*)m")
#: SGR parameters that only colour or weigh text: no conceal (8), nothing that outlives the output.
_PLAIN_SGR = frozenset({"", "0", "1", "2", "3", "4", "7", "9", "21", "22", "23", "24", "27", "29", "39", "49",
                        *map(str, range(30, 38)), *map(str, range(40, 48)), *map(str, range(90, 98)),
                        *map(str, range(100, 108))})


def _plain_sgr(params: str) -> bool:
    tokens = params.split(";")
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in ("38", "48"):  # 256 colours (5;n) or RGB (2;r;g;b)
            if tokens[i + 1:i + 2] == ["5"] and len(tokens) > i + 2:
                i += 3
                continue
            if tokens[i + 1:i + 2] == ["2"] and len(tokens) > i + 4:
                i += 5
                continue
            return False
        if token not in _PLAIN_SGR:
            return False
        i += 1
    return True


def inert_output(text: str) -> str:
    """A program's printed (or error) text for a Jupyter frontend, which may write it to a terminal
    (``jupyter console``): every escape sequence and control character shown as a visible escape, but
    colours, which notebooks show too; text that sets one ends with a reset, so the colour never
    reaches the kernel's own text after it. ``\\x1b[8m`` (conceal) before the kernel's approval summary
    hid it, and OSC sequences set the window title or the clipboard (review 13)."""
    if not _OUTPUT_CONTROL.search(text):
        return text
    parts: list[str] = []
    pos = 0
    coloured = False
    for match in _SGR.finditer(text):
        parts.append(_OUTPUT_CONTROL.sub(_escape, text[pos:match.start()]))
        if _plain_sgr(match.group(1)):
            parts.append(match.group(0))
            coloured = True
        else:
            parts.append(_OUTPUT_CONTROL.sub(_escape, match.group(0)))
        pos = match.end()
    parts.append(_OUTPUT_CONTROL.sub(_escape, text[pos:]))
    if coloured:
        parts.append("\x1b[0m")
    return "".join(parts)


def quoted_block(text: str, indent: str = "  ") -> str:
    """Escaped ``text`` whose lines after the first sit behind ``indent`` and the gutter."""
    return ("\n" + indent + GUTTER).join(terminal_text(text).split("\n"))


def terminal_json(value: Any, *, indent: int | None = None) -> str:
    """JSON for the terminal: readable non-ASCII text, every unsafe character as a ``\\uXXXX`` escape."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    # json.dumps of the character alone: a \\uXXXX escape, a surrogate pair above U+FFFF, so the
    # text still reads back as the same value.
    return _UNSAFE_TEXT.sub(lambda m: json.dumps(m.group(0))[1:-1], text)


class ProgramOutput:
    """Streams a program's print output: escaped, every line behind the gutter.

    Output arrives in chunks that need not end at a line break; :meth:`end` closes a
    last unfinished line so the command's next line starts at the margin.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._at_line_start = True

    def write(self, chunk: str) -> None:
        for i, part in enumerate(chunk.split("\n")):
            if i:
                self.out.write("\n")
                self._at_line_start = True
            if part:
                if self._at_line_start:
                    self.out.write(GUTTER)
                    self._at_line_start = False
                self.out.write(terminal_text(part, multiline=False))
        self.out.flush()

    def end(self) -> None:
        if not self._at_line_start:
            self.out.write("\n")
            self._at_line_start = True


class TerminalFormatter(logging.Formatter):
    """Log records (message and traceback) escaped, continuation lines behind the gutter."""

    def format(self, record: logging.LogRecord) -> str:
        return quoted_block(super().format(record), indent="  ")
