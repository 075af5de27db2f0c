"""The kernel's one home of HTML: every value escaped, no way to write a URL or a handler."""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel.kernel.display import code_bundle, result_bundle, table_bundle
from codemode_kernel.kernel.markup import Html, block, bundle, element, join, preformatted, text
from codemode_kernel.kernel.widgets import CardActions, ExecutionCard

HOSTILE = '```\n<img src=x onerror="alert(1)">\'</pre><script>x()</script>[a](javascript:b) $x^2$'


def test_text_escapes_every_special_character() -> None:
    assert text('<a href="x">&\'').source == "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;"
    assert text(42).source == "42"
    already = element("b", "x")
    assert text(already) is already, "markup is not escaped twice"


def test_plain_strings_inside_elements_are_always_escaped() -> None:
    html = element("td", HOSTILE, title=HOSTILE).source
    assert "<img" not in html and "<script" not in html and "</pre>" not in html
    assert html.count("<") == 2, "only the element's own open and close tags"
    assert join(["<i>", element("i", "ok")], "<br>").source == "&lt;i&gt;&lt;br&gt;<i>ok</i>"


@pytest.mark.parametrize("tag", ["a", "img", "script", "iframe", "style", "svg", "math", "object", "form"])
def test_it_is_an_error_to_write_a_tag_outside_the_allowlist(tag: str) -> None:
    with pytest.raises(ValueError, match="not a tag the kernel writes"):
        element(tag, "x")


@pytest.mark.parametrize("attribute", ["href", "src", "onerror", "onclick", "srcdoc", "formaction"])
def test_there_is_no_way_to_write_a_url_or_an_event_handler(attribute: str) -> None:
    options: dict[str, Any] = {attribute: "javascript:alert(1)"}
    with pytest.raises(TypeError):
        element("span", "x", **options)


@pytest.mark.parametrize("style", ["background:url(https://x/y)", "color:red;background:url(x)",
                                   'color:"red"', "width:expression(alert(1))", "content:'\\41'",
                                   "@import url(x)"])
def test_it_is_an_error_to_write_a_style_that_could_fetch_or_run(style: str) -> None:
    with pytest.raises(ValueError, match="plain CSS declarations"):
        element("span", "x", style=style)


def test_it_is_an_error_to_write_a_class_that_breaks_out_of_its_attribute() -> None:
    with pytest.raises(ValueError, match="class"):
        element("span", "x", cls='a" onclick="b')


def test_a_block_is_left_alone_by_mathjax_and_a_bundle_always_has_plain_text() -> None:
    assert 'class="tex2jax_ignore mathjax_ignore"' in block("$x$").source
    made = bundle("plain", preformatted("$x$"))
    assert made["text/plain"] == "plain" and made["text/html"].startswith('<div class="tex2jax_ignore mathjax_ignore">')
    assert isinstance(preformatted("x"), Html)


def test_code_is_escaped_text_in_a_pre_block_never_markdown() -> None:
    shown = code_bundle(HOSTILE, title=f"snippet {HOSTILE}")
    assert "text/markdown" not in shown
    assert shown["text/plain"].endswith(HOSTILE), "the plain form shows the code exactly"
    assert "<img" not in shown["text/html"] and "<script" not in shown["text/html"]
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in shown["text/html"]
    assert '<pre class="codemode-code">' in shown["text/html"]


def test_tables_of_hostile_values_are_escaped_and_kept_from_mathjax() -> None:
    for shown in (result_bundle([{"cell": HOSTILE, "n": 1}]), table_bundle(["a"], [[HOSTILE]], caption=HOSTILE),
                  table_bundle(["a"], [], empty=HOSTILE), result_bundle([{"cell": HOSTILE * 20}])):
        html = shown["text/html"]
        assert "<img" not in html and "<script" not in html and "mathjax_ignore" in html
        assert shown["text/plain"]


def test_the_card_shows_hostile_calls_and_messages_as_text() -> None:
    card = ExecutionCard("01ABC", CardActions(approve_call=lambda seq: None, approve_calls=lambda shown: None,
                                              reject=lambda seq: None, rollback=lambda: None,
                                              save_snippet=lambda n, d: None))
    card.show_pending([{"seq": 3, "connector": "<b>x</b>", "method": HOSTILE, "args": {"text": HOSTILE}}])
    card.decided(f"{HOSTILE} approved")
    card.finished("error", can_rollback=False, can_save=False, detail=HOSTILE)
    card.notice(HOSTILE, "error")
    values = [card.header.value, card.history.value, card.message.value]
    values += [row.children[0].children[0].value for row in card.pending_box.children]  # type: ignore[attr-defined]
    card.show_pending([{"seq": 4, "connector": "c", "method": "m", "args": {"text": HOSTILE}}])
    values += [row.children[1].value for row in card.pending_box.children]  # type: ignore[attr-defined]
    for value in values:
        assert "<img" not in value and "<script" not in value and "<b>x" not in value, value
        assert value.startswith('<div class="tex2jax_ignore mathjax_ignore">')
    assert "&lt;img" in values[2] and "onerror" in values[-1], "the text is still shown"
