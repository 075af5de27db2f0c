"""``truncate``: cut a result down to a budget of characters or tokens, saying what was cut (issue 15).

Meant for what a *model* reads, never for what the journal replays (DESIGN §5: replay values
are never truncated). Typical use is the runtime's ``transform_result``::

    CodemodeRuntime(connectors=[...], transform_result=functools.partial(truncate, max_tokens=2000))

A value that fits comes back unchanged (the same object). One that does not becomes a
string: its text (a string as is, anything else as JSON) cut to the budget, ending with a
note such as ``[truncated: showing 3,912 of 48,211 characters; ask for less]``, so the model knows
it saw part and can ask for less (select fields, filter, page). The note counts against
the budget; the whole answer is never longer than the budget unless the budget is smaller
than the note itself.

Tokens: without a ``tokenizer``, one token is taken as 4 characters (the usual estimate for
English and JSON). ``tokenizer`` is any function counting the tokens of a text (e.g.
``lambda s: len(encoding.encode(s))`` with tiktoken); the cut is then found by bisection.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from codemode_kernel import codec

CHARS_PER_TOKEN = 4
Tokenizer = Callable[[str], int]


def truncate(value: Any, max_chars: int | None = None, max_tokens: int | None = None, *,
             tokenizer: Tokenizer | None = None) -> Any:
    """``value`` if it fits within ``max_chars`` characters and ``max_tokens`` tokens, else its text cut with a note.

    Give at least one of ``max_chars`` and ``max_tokens`` (both: both apply).
    """
    for label, limit in (("max_chars", max_chars), ("max_tokens", max_tokens)):
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValueError(f"truncate: {label} must be a positive whole number; got {limit!r}")
    if max_chars is None and max_tokens is None:
        raise ValueError("truncate: give max_chars, max_tokens or both (e.g. truncate(value, max_tokens=2000))")
    count = tokenizer if tokenizer is not None else _estimate_tokens
    text = value if isinstance(value, str) else _json_text(value)

    def fits(t: str) -> bool:
        return (max_chars is None or len(t) <= max_chars) and (max_tokens is None or count(t) <= max_tokens)

    if fits(text):
        return value
    unit = "characters" if isinstance(value, str) else "characters of JSON"
    keep = _longest_prefix(text, lambda n: fits(text[:n] + _note(n, len(text), unit)))
    return text[:keep] + _note(keep, len(text), unit)


def _note(shown: int, total: int, unit: str) -> str:
    return f"\n… [truncated: showing {shown:,} of {total:,} {unit}; ask for less]"


def _longest_prefix(text: str, ok: Callable[[int], bool]) -> int:
    """The largest n with ok(n), assuming ok is monotone (true up to some n, false after)."""
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if ok(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def _json_text(value: Any) -> str:
    plain = codec.to_json(value, "the value to truncate")
    return json.dumps(plain, ensure_ascii=False, separators=(",", ":"))
