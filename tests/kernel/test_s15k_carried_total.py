"""s15k (review 15 M6): the carried names stay within the inputs' limit in all, exactly as the
runtime counts them (the compact JSON of every carried name), first come first; a name left out
is said on the cell that assigned it and explained by a later NameError."""

from __future__ import annotations

from typing import Any

from codemode_kernel import codec
from codemode_kernel.kernel.variables import CarriedVariables


def _pass(**names: Any) -> dict[str, Any]:
    return {"variables": {k: codec.encode(v) for k, v in names.items()}}


def _total(carried: CarriedVariables) -> int:
    return len(codec.dumps_encoded({k: codec.encode(v) for k, v in carried.given().items()}))


def test_a_name_that_takes_the_total_past_the_limit_is_not_carried() -> None:
    carried = CarriedVariables()
    assert carried.carry(_pass(a="x" * 600_000), {}, "a = 'x' * 600_000") == {}
    # A pass returns every top-level name, those it was given too.
    missed = carried.carry(_pass(a="x" * 600_000, b="y" * 600_000, c=1), carried.given(), "b = 'y' * 600_000\nc = 1")
    assert list(missed) == ["b"] and "%reset NAME" in missed["b"], missed
    assert sorted(carried) == ["a", "c"] and _total(carried) <= codec.MAX_VALUE_CHARS
    said = carried.explain("NameError", "name 'b' is not defined")
    assert "not carried over" in said and "in all" in said, said


def test_the_limit_is_counted_as_the_runtime_counts_it() -> None:
    carried = CarriedVariables()
    carried.carry(_pass(a=1), {}, "a = 1")
    room = codec.MAX_VALUE_CHARS - _total(carried)
    fits = "z" * (room - len(',"b":""'))  # exactly up to the limit
    assert carried.carry(_pass(a=1, b=fits), carried.given(), "b = ...") == {}
    assert _total(carried) == codec.MAX_VALUE_CHARS
    carried = CarriedVariables()
    carried.carry(_pass(a=1), {}, "a = 1")
    assert list(carried.carry(_pass(a=1, b=fits + "z"), carried.given(), "b = ...")) == ["b"]


def test_forgetting_a_name_makes_room_again() -> None:
    carried = CarriedVariables()
    carried.carry(_pass(a="x" * 600_000), {}, "a = 'x' * 600_000")
    del carried["a"]
    assert carried.carry(_pass(b="y" * 600_000), carried.given(), "b = 'y' * 600_000") == {}
    assert sorted(carried) == ["b"]
