"""s15k (review 15 M8): every text the kernel puts in HTML shows the bidi embeddings, overrides and
isolates as visible escapes, in element text and in attributes alike; marks stay (right-to-left
text uses them) and ordinary text is unchanged."""

from __future__ import annotations

from codemode_kernel.kernel.markup import element, preformatted, text


def test_reordering_controls_are_visible_escapes_everywhere() -> None:
    code = "x = 'ok'  # \u202e\u2066 harmless \u2069\u2066"
    for html in (text(code).source, preformatted(code).source, element("td", "a", title=code).source):
        assert not any(c in html for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"), repr(html)
        assert "\\u202e\\u2066 harmless \\u2069\\u2066" in html, html


def test_marks_and_plain_text_are_left_as_they_are() -> None:
    assert text("\u05e9\u05dc\u05d5\u05dd \u200f!").source == "\u05e9\u05dc\u05d5\u05dd \u200f!"
    assert text("a < b & 'c'").source == "a &lt; b &amp; &#x27;c&#x27;"
