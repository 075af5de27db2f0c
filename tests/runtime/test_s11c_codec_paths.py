"""Where a refused value sits is named as before, though the walk no longer builds that text for every value (s11c).

``codec.encode`` names the place of a value it refuses (``the result of x.y[0]['tags'][1]``). It
built that text for each nested value it walked, refused or not; now it keeps where it is as a chain
of (parent, index or key) and writes the text only for the error. Each case is one refused value and
the exact message part that names its place.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

import pytest

from codemode_kernel import codec

DEEP: list[Any] = []
_level = DEEP
for _ in range(codec.MAX_DEPTH + 2):
    _level.append([])
    _level = _level[0]

CASES = [
    ({"a": [1, {"b": (1, float("nan"))}]}, "float", "w['a'][1]['b'][1]"),
    ([1, 2.5, float("inf")], "float", "w[2]"),
    ({"x": {1: 2}}, "dict key of type int", "w['x']"),
    ([{"k'q": {"z": [1, [2, object()]]}}], "object", "w[0][\"k'q\"]['z'][1][1]"),
    ((1, [set()]), "set", "w[1][0]"),
    ({"$codemode": [b"x", datetime(2026, 1, 2), date(2026, 1, 2), {1.5: 0}]}, "dict key of type float",
     "w['$codemode'][3]"),
    ([[[[1.0, -math.inf]]]], "float", "w[0][0][0][1]"),
]


@pytest.mark.parametrize(("value", "type_name", "where"), CASES)
def test_a_refused_value_is_named_by_its_place(value: Any, type_name: str, where: str) -> None:
    """It is an error if the message names another place or type than where the refused value sits."""
    with pytest.raises(codec.EncodeError) as info:
        codec.encode(value, "w")
    assert (info.value.type_name, info.value.where) == (type_name, where)
    assert f"of type {type_name!r} at {where}" in str(info.value)


def test_a_value_nested_too_deep_is_named_by_its_place() -> None:
    """It is an error if the depth limit's message does not name the list past the limit."""
    with pytest.raises(codec.EncodeError) as info:
        codec.encode({"d": DEEP}, "w")
    assert info.value.where == "w['d']" + "[0]" * codec.MAX_DEPTH
    assert f"nested deeper than {codec.MAX_DEPTH} levels" in str(info.value)


def test_values_that_pass_are_encoded_as_before() -> None:
    """It is an error if finite floats inside lists and dicts (now passed without a call) change or lose their tags."""
    value = {"rows": [{"p": 1.25, "n": -0.0, "big": 1e308, "t": (1, 2.5), "b": b"\x00"}], "$codemode": [0.5]}
    assert codec.encode(value, "w") == {"$codemode": "dict", "v": {
        "rows": [{"p": 1.25, "n": -0.0, "big": 1e308, "t": {"$codemode": "tuple", "v": [1, 2.5]},
                  "b": {"$codemode": "bytes", "v": "AA=="}}], "$codemode": [0.5]}}
    assert codec.decode(codec.encode(value, "w")) == value
