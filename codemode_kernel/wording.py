"""Joining the pieces of a message into sentences (issue 16, item 4: a message ended in ``output)..``).

Reasons come from many places (connectors, SQLite, user modules), some with a full stop and
some without; a message that adds its own full stop after one must not double it.
"""

from __future__ import annotations

_ENDINGS = (".", "!", "?", "…")


def sentence(text: str) -> str:
    """``text`` as a sentence: stripped, with a full stop unless it already ends in one."""
    text = text.strip()
    if not text or text.endswith(_ENDINGS) or text.endswith(tuple(e + ")" for e in _ENDINGS)):
        return text
    return text + "."
