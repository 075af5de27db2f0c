"""Every ``text/plain`` the kernel sends is inert for a terminal (review 14 H1).

``jupyter console`` writes a ``display_data``'s, an ``execute_result``'s and a pager payload's
``text/plain`` to its terminal. Tables and code blocks hold hostile text (a connector's answer, a
program's source, a tool's description): no escape sequence but colours may reach the terminal.
"""

from __future__ import annotations

from typing import Any

from codemode_kernel.kernel.display import code_bundle, inert_bundle, table_bundle, text_table
from codemode_kernel.kernel.kernel import CellSink

HOSTILE = "A\x1b]0;PWN\x07\x1b[8mB\rC"


def test_a_table_shows_control_characters_as_escapes() -> None:
    text = text_table(["call", "result"], [["notes.fail", HOSTILE]])
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text, repr(text)
    assert "\\x1b]0;PWN\\x07\\x1b[8mB\\rC" in text


def test_a_code_block_shows_control_characters_as_escapes() -> None:
    shown = code_bundle(f"s = '{HOSTILE}'\n", title=f"tool {HOSTILE}")
    assert "\x1b" not in shown["text/plain"] and "\r" not in shown["text/plain"], repr(shown["text/plain"])
    assert "\\x1b[8m" in shown["text/plain"]


def test_inert_bundle_keeps_colours_and_escapes_the_rest() -> None:
    shown = inert_bundle({"text/plain": "\x1b[31mred\x1b[0m " + HOSTILE, "text/html": "<b>x</b>"})
    assert shown["text/plain"].startswith("\x1b[31mred\x1b[0m")
    assert "\x1b[8m" not in shown["text/plain"] and "\x1b]0;" not in shown["text/plain"]
    assert shown["text/html"] == "<b>x</b>"


class _Session:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send(self, socket: Any, msg_type: str, content: dict[str, Any], **_: Any) -> None:
        self.sent.append((msg_type, content))


class _Kernel:
    def __init__(self) -> None:
        self.session = _Session()
        self.iopub_socket = None

    def _topic(self, msg_type: str) -> str:
        return msg_type


def test_cell_sink_sends_no_raw_escape_in_any_bundle() -> None:
    """The choke point: whatever bundle a magic, a result or a host cell builds."""
    kernel = _Kernel()
    sink = CellSink(kernel, {}, 1)  # type: ignore[arg-type]
    sink.display({"text/plain": HOSTILE})
    sink.display({"text/plain": HOSTILE}, result=True)
    sink.display(table_bundle(["a"], [[HOSTILE]]))
    for msg_type, content in kernel.session.sent:
        plain = content["data"]["text/plain"]
        assert "\x1b[8m" not in plain and "\x1b]0;" not in plain and "\x07" not in plain, (msg_type, plain)
    assert [t for t, _ in kernel.session.sent] == ["display_data", "execute_result", "display_data"]


def test_output_shows_bidi_overrides_as_escapes_and_keeps_emoji_and_marks() -> None:
    from codemode_kernel.terminal import inert_output

    shown = inert_output("total\u202e 0001 \u2067x\u2069 \u2764\ufe0f \u05e9\u200f")
    assert "\u202e" not in shown and "\u2067" not in shown and "\u2069" not in shown, repr(shown)
    assert "\\u202e" in shown and "\u2764\ufe0f" in shown and "\u200f" in shown
