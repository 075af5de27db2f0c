"""The codec: what may cross the boundary, exactly."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import UTC, date, datetime

import pytest

from codemode_kernel import codec


@pytest.mark.parametrize("value", [
    None, True, 0, -5, 1.25, "text", "", [], {}, [1, "a", None], {"k": [1, {"n": 2}]},
    b"\x00\xff", (1, 2), (), ((1,), [2]), datetime(2026, 11, 30, 7, 1, 2, 5), date(2026, 1, 1),
    datetime(2026, 1, 1, tzinfo=UTC), {"$codemode": "bytes", "v": "x"}, [b"", (b"a",)],
])
def test_round_trip_is_exact(value: object) -> None:
    """Every supported value decodes to an equal value of the same type."""
    back = codec.loads(codec.dumps(value))
    assert back == value
    assert type(back) is type(value)


@pytest.mark.parametrize(("value", "type_name"), [
    ({1, 2}, "set"), (object(), "object"), (math.nan, "float"), (math.inf, "float"), ({1: "a"}, "dict key"),
    (frozenset(), "frozenset"), (complex(1, 2), "complex"), (bytearray(b"x"), "bytearray"),
])
def test_unsupported_values_are_refused_by_type(value: object, type_name: str) -> None:
    """It is an error to encode anything else; the message names the type and the remedy."""
    with pytest.raises(codec.EncodeError) as info:
        codec.encode({"a": [value]}, "args")
    assert type_name in str(info.value)
    assert "args['a'][0]" in str(info.value)
    assert "Convert" in str(info.value)


def test_subclasses_are_refused() -> None:
    """A str or int subclass could run code while serializing; it is refused."""

    class Sneaky(str):
        pass

    with pytest.raises(codec.EncodeError):
        codec.encode(Sneaky("x"))


def test_depth_is_bounded() -> None:
    """Deeply nested values are refused instead of exhausting the stack."""
    value: list[object] = []
    for _ in range(codec.MAX_DEPTH + 5):
        value = [value]
    with pytest.raises(codec.EncodeError, match="nested deeper"):
        codec.encode(value)


def test_canonical_form_ignores_key_order() -> None:
    """Canonical serialization is the same for equal dicts in any key order."""
    assert codec.canonical_encoded({"b": 1, "a": 2}) == codec.canonical_encoded({"a": 2, "b": 1})


MALFORMED = {
    "infinite-float": "1e999",
    "nan-in-a-list": "[1, NaN]",
    "too-deep": "[" * 300 + "]" * 300,
    "bytes-not-base64": '{"$codemode": "bytes", "v": "%%%"}',
    "bytes-not-text": '{"$codemode": "bytes", "v": 5}',
    "date-not-a-date": '{"$codemode": "date", "v": "yesterday"}',
    "datetime-not-text": '{"$codemode": "datetime", "v": [2020]}',
    "tuple-not-a-list": '{"$codemode": "tuple", "v": "ab"}',
    "dict-not-an-object": '{"$codemode": "dict", "v": [1]}',
    "unknown-tag": '{"$codemode": "set", "v": [1]}',
    "tag-without-v": '{"$codemode": "bytes"}',
    "tag-with-extra-keys": '{"$codemode": "bytes", "v": "", "w": 1}',
    "nested-bad-tag": '{"a": [{"$codemode": "tuple", "v": [{"$codemode": "date", "v": 3}]}]}',
}


@pytest.mark.parametrize("text", list(MALFORMED.values()), ids=list(MALFORMED))
def test_decoding_refuses_what_encode_never_produces(text: str) -> None:
    """It is an error to decode data encode() could not have made: encoded data also comes from the sandbox."""
    with pytest.raises(codec.DecodeError, match="malformed encoded value at the result"):
        codec.decode(json.loads(text), "the result")


@pytest.mark.parametrize("wrap", [lambda v: (v,), lambda v: {"$codemode": v}, lambda v: [v], lambda v: {"k": v}],
                         ids=["tuples", "escaped-dicts", "lists", "dicts"])
def test_the_deepest_encodable_value_decodes(wrap: Callable[[object], object]) -> None:
    """Every value encode() accepts decodes, even nested to the limit with tags adding levels."""
    value: object = b"x"
    for _ in range(codec.MAX_DEPTH):
        value = wrap(value)
    assert codec.loads(codec.dumps(value)) == value


def test_decode_errors_are_short() -> None:
    """A malformed value is not quoted back whole."""
    with pytest.raises(codec.DecodeError) as info:
        codec.decode({"$codemode": "date", "v": "x" * 1_000_000})
    assert len(str(info.value)) < 500
