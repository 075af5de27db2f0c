"""The value codec: what may cross the Code Mode boundary, and how it is stored.

Values that cross between the sandbox and the host (connector arguments and results,
step values, the final result, carried-over variables) are JSON data plus ``bytes``,
``tuple``, ``datetime`` and ``date``. The extra types are *tagged* so that replay
returns exactly what the first pass saw::

    b"hi"                    -> {"$codemode": "bytes", "v": "aGk="}
    (1, 2)                   -> {"$codemode": "tuple", "v": [1, 2]}
    datetime(2026, 1, 2, 3)  -> {"$codemode": "datetime", "v": "2026-01-02T03:00:00"}
    date(2026, 1, 2)         -> {"$codemode": "date", "v": "2026-01-02"}
    {"$codemode": 1}         -> {"$codemode": "dict", "v": {"$codemode": 1}}   (escaped)

Anything else (sets, NaN, custom objects, non-string keys) is refused with a message
naming the type, where it was found, and what to do instead. Decoding is as strict: data
``encode`` could not have produced (a bad tag, ``1e999``, nesting past the limit) raises
:class:`DecodeError`, because encoded data also arrives from the sandbox (issue 10, item 2).

For a model the boundary is plain JSON instead (:func:`to_json`, what ``runtime.tool().call``
returns and ``codemode mcp`` sends), one way and not decodable back::

    b"hi"                    -> {"$bytes": "aGk="}             (base64)
    (1, 2)                   -> [1, 2]
    datetime(2026, 1, 2, 3)  -> "2026-01-02T03:00:00"          (ISO 8601)
    date(2026, 1, 2)         -> "2026-01-02"

This module is pure standard library: the sandbox worker imports it too.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import sys
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

TAG = "$codemode"
MAX_VALUE_CHARS = 1_000_000
#: The longest connector, method or step name: the journal keeps names in 256-character columns (PostgreSQL
#: enforces them; review 14, M3), and a name is something a person reads.
MAX_NAME_CHARS = 200
MAX_DEPTH = 100

_SCALARS = frozenset({str, int, bool, type(None)})
_ALLOWED = "JSON data (dict with str keys, list, str, int, float, bool, None) or bytes, tuple, datetime, date"


class EncodeError(ValueError):
    """A value is not representable by the codec."""

    def __init__(self, type_name: str, where: str, reason: str = "") -> None:
        self.type_name = type_name
        self.where = where
        self.reason = reason
        detail = f" ({reason})" if reason else ""
        super().__init__(
            f"Cannot pass a value of type {type_name!r} at {where}{detail}: values crossing the Code Mode "
            f"boundary must be {_ALLOWED}. Convert it first (e.g. list(a_set), str(obj), a dict of its fields)."
        )


def encode(value: Any, where: str = "value") -> Any:
    """Return the JSON-compatible tagged form of ``value``; raise :class:`EncodeError`."""
    return _encode(value, where, 0)


# Where a nested value sits, made into text only for an error (_path): ``(parent, index)`` for a list's
# or tuple's item, ``(parent, key, True)`` for a dict's value, a str at the top. Building the text for
# every nested value (an f-string, and a repr for each key) cost as much as the rest of the walk: a
# journaled call's result of rows (~2 KB) took ~2x as long to encode (issue 12, s11c). Finite floats
# in a list or dict pass without a call, as plain scalars do. benchmarks/s11c_codec.py (CPU, two trees
# in one process, 15 alternating rounds, load 5.0): rows of ~200 / ~2,000 / ~20,000 characters 9.6 /
# 69.3 / 666 -> 7.5 / 55.4 / 502 µs, an API-like record of ~3,000 characters 49.6 -> 42.0 µs (faster in
# 14, 14, 15 and 15 of 15). Not kept: a list or dict of str keys and plain scalars only checked and
# copied in C (``_SCALARS.issuperset(map(type, ...))``, ``list(value)`` / ``dict(value)``) before the
# walk: slower on all four (11 rounds: faster in 1, 3, 2 and 0; the API record 45.5 -> 56.4 µs), the
# check costing more than it saves where most containers hold a nested one.
_Where = Any
_finite_float = math.isfinite


def _path(where: _Where) -> str:
    """The text of ``where``: ``value[0]['tags'][1]``."""
    parts = []
    while type(where) is tuple:
        if len(where) == 3:
            where, key, _ = where
            parts.append(f"[{key!r}]")
        else:
            where, index = where
            parts.append(f"[{index}]")
    return str(where) + "".join(reversed(parts))


def _encode(value: Any, where: _Where, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise EncodeError(type(value).__name__, _path(where), f"nested deeper than {MAX_DEPTH} levels")
    # Exact type checks: subclasses (an IntEnum, a str subclass with a custom __str__)
    # could run code during serialization or not round-trip, so they are refused.
    t = type(value)
    if value is None or t is bool or t is str or t is int:
        return value
    if t is float:
        if math.isnan(value) or math.isinf(value):
            raise EncodeError("float", _path(where), f"{value!r} is not valid JSON")
        return value
    if t is list:
        # Plain scalars and finite floats pass as they are: a call per item, and the error path made
        # for each one, made large lists ~10x slower to encode.
        return [v if (tv := type(v)) in _SCALARS or (tv is float and _finite_float(v))
                else _encode(v, (where, i), depth + 1) for i, v in enumerate(value)]
    if t is dict:
        out: dict[str, Any] = {}
        for k, v in value.items():
            if type(k) is not str:
                raise EncodeError(f"dict key of type {type(k).__name__}", _path(where), "dict keys must be strings")
            out[k] = v if (tv := type(v)) in _SCALARS or (tv is float and _finite_float(v)) \
                else _encode(v, (where, k, True), depth + 1)
        if TAG in out:
            return {TAG: "dict", "v": out}
        return out
    if t is tuple:
        return {TAG: "tuple", "v": [_encode(v, (where, i), depth + 1) for i, v in enumerate(value)]}
    if t is bytes:
        return {TAG: "bytes", "v": base64.b64encode(value).decode("ascii")}
    if t is datetime:
        return {TAG: "datetime", "v": value.isoformat()}
    if t is date:
        return {TAG: "date", "v": value.isoformat()}
    raise EncodeError(t.__name__, _path(where))


class DecodeError(ValueError):
    """Encoded data is malformed: a bad tag, a non-finite number, nesting past the limit.

    Only a tampered sandbox or a damaged store produces it: :func:`encode` never does.
    """

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        super().__init__(f"malformed encoded value at {where}: {problem}")


# Encoded data nests deeper than the value it encodes (a tagged tuple adds an object and a
# list), so the decoder allows twice the value depth plus the envelope.
MAX_ENCODED_DEPTH = 2 * MAX_DEPTH + 4
_PLAIN = frozenset({str, int, bool, type(None)})


def decode(data: Any, where: str = "value") -> Any:
    """Inverse of :func:`encode`; raise :class:`DecodeError` for data ``encode`` cannot produce.

    Strict because encoded data also comes from the sandbox: every tag must be well formed,
    numbers finite, nesting bounded (no recursion past :data:`MAX_ENCODED_DEPTH`).
    """
    return _decode(data, where, 0)


def _decode(data: Any, where: str, depth: int) -> Any:
    t = type(data)
    if t in _PLAIN:
        return data
    if t is float:
        if not math.isfinite(data):
            raise DecodeError(where, f"{data!r} is not a finite number")
        return data
    if depth >= MAX_ENCODED_DEPTH:
        raise DecodeError(where, f"nested deeper than {MAX_ENCODED_DEPTH} levels")
    if t is list:
        return [v if type(v) in _PLAIN else _decode(v, where, depth + 1) for v in data]
    if t is dict:
        if TAG in data:
            return _tagged(data, where, depth)
        return {k: v if type(v) in _PLAIN else _decode(v, where, depth + 1) for k, v in data.items()}
    raise DecodeError(where, f"a {t.__name__} is not JSON data")


def _tagged(data: dict[str, Any], where: str, depth: int) -> Any:
    tag, v = data.get(TAG), data.get("v")
    if len(data) != 2 or "v" not in data:
        raise DecodeError(where, f"a {TAG!r} object must have exactly the keys {TAG!r} and 'v'")
    try:
        if tag == "bytes" and type(v) is str:
            return base64.b64decode(v, validate=True)
        if tag == "tuple" and type(v) is list:
            return tuple(_decode(x, where, depth + 1) for x in v)
        if tag == "datetime" and type(v) is str:
            return datetime.fromisoformat(v)
        if tag == "date" and type(v) is str:
            return date.fromisoformat(v)
        if tag == "dict" and type(v) is dict:
            return {k: _decode(x, where, depth + 1) for k, x in v.items()}
    except (ValueError, binascii.Error) as exc:
        raise DecodeError(where, f"a bad {tag} value ({str(exc)[:200]})") from None
    if tag in _TAG_VALUE_TYPES:
        raise DecodeError(where, f"a {tag} tag needs a {_TAG_VALUE_TYPES[tag]} value, not a {type(v).__name__}")
    shown = tag if isinstance(tag, str) and len(tag) <= 40 else type(tag).__name__
    raise DecodeError(where, f"unknown tag {shown!r}")


_TAG_VALUE_TYPES = {"bytes": "str", "tuple": "list", "datetime": "str", "date": "str", "dict": "dict"}


def to_json(value: Any, where: str = "value") -> Any:
    """``value`` (decoded) as plain JSON for a model: bytes as ``{"$bytes": base64}``, dates and
    datetimes as ISO 8601 strings, tuples as lists; raise :class:`EncodeError` for anything else.

    Every model SDK serializes tool results with ``json.dumps``, which knows none of the extra
    types (issue 14, defect 2). The tags of :func:`encode` stay inside the journal.
    """
    return _to_json(value, where, 0)


def _to_json(value: Any, where: str, depth: int) -> Any:
    t = type(value)
    if t in _PLAIN:
        return value
    if depth > MAX_ENCODED_DEPTH:
        raise EncodeError(t.__name__, where, f"nested deeper than {MAX_ENCODED_DEPTH} levels")
    if t is float:
        if not math.isfinite(value):
            raise EncodeError("float", where, f"{value!r} is not valid JSON")
        return value
    if t is list or t is tuple:
        return [_to_json(v, where, depth + 1) for v in value]
    if t is dict:
        out: dict[str, Any] = {}
        for k, v in value.items():
            if type(k) is not str:
                raise EncodeError(f"dict key of type {type(k).__name__}", where, "dict keys must be strings")
            out[k] = _to_json(v, where, depth + 1)
        return out
    if t is bytes:
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if t is datetime or t is date:
        return value.isoformat()
    raise EncodeError(t.__name__, where)


# Built once: json.dumps with options builds a new encoder per call, a few µs on every journaled
# call (issue 12).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_CANONICAL = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
_C_MAKE_ENCODER: Callable[..., Any] | None = getattr(json.encoder, "c_make_encoder", None)


def _direct(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """``encoder.encode`` for a dict or a list: what ``JSONEncoder.iterencode`` hands the json
    module's C encoder (a fresh ``markers`` dict per document: cycles are still refused), without
    the Python around it, which cost as much as encoding a call's arguments (issue 12)."""
    make = _C_MAKE_ENCODER
    if make is None or encoder.indent is not None or not encoder.check_circular:
        return encoder.encode
    default, string = encoder.default, json.encoder.encode_basestring_ascii if encoder.ensure_ascii else \
        json.encoder.encode_basestring
    options = (encoder.indent, encoder.key_separator, encoder.item_separator, encoder.sort_keys, encoder.skipkeys,
               encoder.allow_nan)

    def direct_encode(value: Any) -> str:
        if type(value) is dict or type(value) is list:
            return "".join(make({}, default, string, *options)(value, 0))
        return encoder.encode(value)

    return direct_encode


_compact = _direct(_COMPACT)
_canonical = _direct(_CANONICAL)


def long_int_error(exc: ValueError, where: str) -> EncodeError | None:
    """The codec's refusal for ``exc`` if it is Python's refusal to write an int of more than
    ``sys.get_int_max_str_digits()`` digits as text (which JSON needs), else None (review 12: such an
    int was a worker crash as a result, and a ValueError the code could catch as an argument)."""
    if "integer string conversion" not in str(exc):
        return None
    return EncodeError("int", where, f"an integer of more than {sys.get_int_max_str_digits():,} digits has no "
                                     "JSON text; pass a smaller number, a float, or the number in parts")


def request_error(exc: ValueError, where: str) -> EncodeError | None:
    """The codec's refusal for a request's line that could not be written: an int too long to write
    (:func:`long_int_error`) or text with a lone surrogate (a UnicodeEncodeError), else None."""
    if isinstance(exc, UnicodeEncodeError):
        return EncodeError("str", where, _NOT_UNICODE)
    return long_int_error(exc, where)


def dumps_encoded(encoded: Any) -> str:
    """Serialize already-encoded data compactly (strict JSON)."""
    return _compact(encoded)


_NOT_UNICODE = ("it holds text that is not valid Unicode: a lone surrogate, as os.listdir and os.fsdecode give for "
                "a file name that is not UTF-8; decode such bytes with errors='replace', or pass them as bytes")


def check_storable(text: str, where: str) -> None:
    """Raise :class:`EncodeError` if serialized ``text`` cannot be stored: a journal keeps UTF-8,
    and a str with a lone surrogate has none (the JSON text keeps it as it is)."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise EncodeError("str", where, _NOT_UNICODE) from None


def storable_name(text: str) -> bool:
    """Whether a name (a snippet's) can be looked up in a journal: no NUL (PostgreSQL refuses it), no lone
    surrogate (not UTF-8)."""
    if "\x00" in text:
        return False
    if text.isascii():
        return True
    return _SURROGATE.search(text) is None


UNSTORABLE_SNIPPET_NAME = ("no snippet can have this name: it holds a NUL character or a lone surrogate (such as "
                           "'\\ud800'), which no journal stores; name the snippet in plain text")

_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> str:
    """``text`` with each lone surrogate (see :func:`check_storable`) and each NUL (which PostgreSQL's
    text columns refuse; review 11) replaced by U+FFFD, for the text of an error: what the code is told
    and what the journal keeps are then the same, on every store."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def dumps(value: Any, where: str = "value") -> str:
    """Encode and serialize ``value`` compactly."""
    return dumps_encoded(encode(value, where))


class _NotAsIs(ValueError):
    """A NaN, an infinity or a number past a float's range, which no JSON value holds: a stored text not to
    be sent as it is (parse_stored), an answer kept as text (loads_data)."""


def _no_constant(name: str) -> Any:
    raise _NotAsIs(name)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999: refused when sent, as its value serialized again is
        raise _NotAsIs(text)
    return value


_SCAN_STORED: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(  # type: ignore[attr-defined]
    parse_constant=_no_constant, parse_float=_finite).scan_once
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def parse_stored(text: str) -> tuple[Any, bool]:
    """The value of JSON ``text`` from the journal (as ``json.loads``, errors included), and whether the
    text may stand for it in a message as it is (issue 12, the replay plan): exactly one JSON value,
    nothing around it, on one line (no CR or LF: a message is a line), no NaN or infinite number and
    no escaped surrogate (which a message serialized from the value would refuse or replace). What
    the codec writes always may; text other writers left (indented, padded, ...) is parsed as before."""
    if "\n" not in text and "\r" not in text and not ("\\u" in text and _ESCAPED_SURROGATE.search(text)):
        try:
            value, end = _SCAN_STORED(text, 0)
        except (StopIteration, _NotAsIs, ValueError, RecursionError):
            pass
        else:
            if end == len(text):
                return value, True
    return json.loads(text), False


def canonical_encoded(encoded: Any) -> str:
    """Canonical text of encoded data: sorted keys, compact. Used for divergence checks."""
    return _canonical(encoded)


def loads(text: str) -> Any:
    """Parse and decode text made by :func:`dumps`."""
    return decode(json.loads(text))


def loads_data(text: str | bytes) -> Any:
    """JSON text from outside (a connector's answer) as data the boundary carries: ``NaN``,
    ``Infinity`` and numbers past a float's range, which Python's ``json`` reads as floats no JSON can
    hold, raise ``ValueError`` as invalid JSON does, so the caller keeps the text instead of a value that
    fails the pass after the call ran (review 13). So does text nested past the interpreter's recursion
    limit, which ``json`` reports as ``RecursionError`` (review 14, H4)."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("the JSON text is nested too deeply to be read as a value") from None


def is_encodable(value: Any) -> bool:
    """True when ``value`` can cross the boundary."""
    try:
        encode(value)
    except EncodeError:
        return False
    return True
