"""Bytes as a person reads them: ``b'%PDF-1.7\\n\\x00\\xff' (12 bytes)``, where a waiting call is shown.

A call's arguments reach the views in two forms: decoded (``runtime.pending()``) or as the
journal codec holds them, where bytes are a tag with base64 (``{"$codemode": "bytes", "v":
"JVBERi0xLjcK"}``). The card, the console's approval summary and the panel showed the tag, and
``%pending`` showed ``<12 bytes>``: nothing a person deciding on the call can read. Every view of
a waiting call's arguments now shows bytes as Python writes them (``repr``: ASCII only, every
other byte an escape, so nothing in them can hide or reorder text), with their length; past
:data:`SHOWN_BYTES` only the first ones, and the text says how many there were.

:func:`shown` is for views that write Python's repr (``notes.add(data=b'…' (3 bytes))``);
:func:`json_with_bytes` for views that write JSON (the card, the panel): bytes are not JSON, so
they stand in the JSON text unquoted, as in Python.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from collections.abc import Callable
from typing import Any

from codemode_kernel.codec import TAG

#: Bytes shown of a longer value; the text then says how many there were.
SHOWN_BYTES = 200


def bytes_text(data: bytes, limit: int = SHOWN_BYTES) -> str:
    """``b'ab\\x00' (3 bytes)``; ``b'…'… (the first 200 of 5,000 bytes)`` when longer than ``limit``."""
    if len(data) <= limit:
        return f"{data!r} ({len(data):,} byte{'' if len(data) == 1 else 's'})"
    return f"{data[:limit]!r}… (the first {limit:,} of {len(data):,} bytes)"


class ShownBytes:
    """Bytes whose ``repr`` is :func:`bytes_text` (a call written out with ``repr``)."""

    __slots__ = ("text",)

    def __init__(self, data: bytes) -> None:
        self.text = bytes_text(data)

    def __repr__(self) -> str:
        return self.text


def _tagged_bytes(value: dict[Any, Any]) -> bytes | None:
    if len(value) != 2 or value.get(TAG) != "bytes" or not isinstance(value.get("v"), str):
        return None
    try:
        return base64.b64decode(value["v"], validate=True)
    except (binascii.Error, ValueError):
        return None


def _swap(value: Any, tagged: bool, swap: Callable[[bytes], Any], depth: int = 0) -> Any:
    if isinstance(value, bytes | bytearray):
        return swap(bytes(value))
    if depth > 200:  # deeper than the codec lets a value be; left as it is
        return value
    if isinstance(value, dict):
        if tagged:
            data = _tagged_bytes(value)
            if data is not None:
                return swap(data)
            if value.get(TAG) == "dict" and len(value) == 2 and isinstance(value.get("v"), dict):
                # An escaped dict: its own keys are the program's, never a tag.
                inner = {k: _swap(v, tagged, swap, depth + 1) for k, v in value["v"].items()}
                return {TAG: "dict", "v": inner}
        return {k: _swap(v, tagged, swap, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, tagged, swap, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(_swap(v, tagged, swap, depth + 1) for v in value)
    return value


def shown(value: Any, *, tagged: bool = False) -> Any:
    """``value`` with every bytes value a :class:`ShownBytes`; ``tagged``: ``value`` is the codec's
    form, whose bytes tags are read as bytes (a decoded dict that looks like a tag is the program's)."""
    return _swap(value, tagged, ShownBytes)


def json_with_bytes(value: Any, dump: Callable[[Any], str], *, tagged: bool = False) -> str:
    """``dump(value)`` (a JSON writer) with each bytes value written as :func:`bytes_text`, unquoted."""
    texts: list[str] = []
    # A mark no program can write: it holds a random part made for this call.
    mark = f"codemode-bytes-{secrets.token_hex(8)}-"

    def swap(data: bytes) -> str:
        texts.append(bytes_text(data))
        return f"{mark}{len(texts) - 1}"

    text = dump(_swap(value, tagged, swap))
    for i, shown_text in enumerate(texts):
        text = text.replace(json.dumps(f"{mark}{i}"), shown_text)
    return text
