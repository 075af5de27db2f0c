"""The codec: what may cross the boundary, exactly."""

from __future__ import annotations

import math
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
