"""HTML built from values: the one place the kernel writes HTML (issue 10, item 1).

Everything a program, a connector, a result or a log produces is hostile, and the places
the kernel's HTML lands render it live: JupyterLab shows an executed cell's ``text/html``
and ``text/markdown`` as *trusted* (no sanitizer: ``<img onerror>`` fires, ``<script>``
runs), ipywidgets' ``HTML`` widget assigns ``innerHTML``, and MathJax typesets ``$…$`` in
HTML outputs. A program that closed a Markdown fence in its own code once clicked the
Approve button of its own action when a person ran ``%journal``.

So the kernel never sends Markdown with data in it, and builds HTML only here:

- :class:`Html` is a fragment whose every value was escaped. Only :func:`text`,
  :func:`element` and :func:`join` make one; a plain ``str`` given to them is *always*
  escaped (``html.escape(quote=True)``), so forgetting to escape cannot happen.
- Tags come from a short allowlist; attributes are keyword arguments (``cls``, ``title``,
  ``style``, ``colspan``, ``open``), so no ``href``, ``src`` or ``on*`` can be written at all. A
  ``style`` is checked to be plain declarations (no ``url(…)``: no requests from CSS).
- :func:`block` wraps a fragment for a MIME bundle or a widget: its class tells MathJax
  to leave the contents alone (``mathjax_ignore``; ``tex2jax_ignore`` for MathJax 2).
- :func:`bundle` is the only maker of a ``text/html`` entry, always with ``text/plain``.
- Every text value (and attribute) shows the bidi embeddings, overrides and isolates
  (U+202A-U+202E, U+2066-U+2069) as visible escapes (``\\u202e``): in a program's code they make
  it *read* otherwise than it runs ("Trojan Source"; review 15, M8), as ``inert_output`` does for
  text/plain.

Rejected: sanitizing finished HTML (a parser in the kernel that must match the browser's,
and one more thing to get wrong); Markdown with escaped fences (Markdown has too many
live forms: raw HTML, links, autolinks, images, TeX).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from codemode_kernel.terminal import revealer

TAGS = frozenset({"b", "caption", "code", "details", "div", "em", "i", "p", "pre", "span", "strong", "summary",
                  "table", "tbody", "td", "th", "thead", "tr"})
NO_TEX = "tex2jax_ignore mathjax_ignore"

_CLASS = re.compile(r"^[A-Za-z0-9_ -]*$")
#: Every character a person cannot see or that reorders the text after it (terminal.py's class), shown as an
#: escape: a zero-width space or a tag character in a call's arguments reads as nothing (review 16, M2, M4).
#: Kept: the zero-width joiner and the emoji/text presentation selectors (emoji use them), and the
#: left-to-right and right-to-left marks (right-to-left text does); they reorder or hide nothing else.
_REVEAL = revealer(keep="\u200d\u200e\u200f\ufe0e\ufe0f")
# Plain declarations only: "color:#777;font-weight:600;max-height:16em". No url(), no
# expression(), no @import, no escapes: nothing in a style can fetch or run anything.
_STYLE = re.compile(r"^(\s*[a-z-]+\s*:\s*[#A-Za-z0-9., %-]+\s*;?)*\s*$")


@dataclass(frozen=True)
class Html:
    """A piece of HTML whose values were all escaped. Make one with :func:`text` or :func:`element`."""

    source: str


def text(value: Any) -> Html:
    """Any value as HTML text: ``str(value)`` with ``& < > " '`` escaped and the invisible characters visible."""
    return value if isinstance(value, Html) else Html(_escaped(str(value)))


def _escaped(value: str) -> str:
    return html.escape(_REVEAL(value), quote=True)


def join(parts: Iterable[Html | str], separator: Html | str = "") -> Html:
    """Fragments one after the other; plain strings among them are escaped."""
    return Html(text(separator).source.join(text(p).source for p in parts))


def element(tag: str, *children: Html | str, cls: str = "", title: str = "", style: str = "",
            colspan: int | None = None, open: bool = False) -> Html:
    """``<tag …>children</tag>``; children that are plain strings are escaped.

    The tag must be one of :data:`TAGS`; class names and styles are checked, and every
    attribute value is escaped. There is no way to write a URL or an event handler.
    """
    if tag not in TAGS:
        raise ValueError(f"<{tag}> is not a tag the kernel writes; allowed: {sorted(TAGS)}")
    if not _CLASS.match(cls):
        raise ValueError(f"class {cls!r} has characters other than letters, digits, '_', '-' and spaces")
    if not _STYLE.match(style):
        raise ValueError(f"style {style!r} is not plain CSS declarations (no url(), quotes or escapes)")
    attributes = ""
    if cls:
        attributes += f' class="{html.escape(cls, quote=True)}"'
    if title:
        attributes += f' title="{_escaped(title)}"'
    if style:
        attributes += f' style="{html.escape(style, quote=True)}"'
    if colspan is not None:
        attributes += f' colspan="{int(colspan)}"'
    if open:
        attributes += " open"
    return Html(f"<{tag}{attributes}>{join(children).source}</{tag}>")


def block(*children: Html | str, cls: str = "", style: str = "") -> Html:
    """A ``<div>`` whose contents MathJax leaves alone: the root of every HTML the kernel shows."""
    return element("div", *children, cls=f"{cls} {NO_TEX}".strip(), style=style)


def preformatted(source: str, *, cls: str = "", style: str = "") -> Html:
    """Text shown as it is, in a monospaced block (code, declarations, JSON)."""
    return element("pre", source, cls=cls, style=style)


def bundle(plain: str, rich: Html) -> dict[str, Any]:
    """A MIME bundle of plain text and HTML: the only place a ``text/html`` entry is made."""
    return {"text/plain": plain, "text/html": block(rich).source}
