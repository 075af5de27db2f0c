"""The input-schema check: strict types, RE2 patterns, linear uniqueItems, bounded messages."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest

from codemode_kernel.validation import InputValidator


def check(schema: dict[str, Any], args: Any) -> str | None:
    return InputValidator("c.m", {"type": "object", "properties": schema}).errors(args)


@pytest.mark.parametrize(("field", "value"), [
    ({"type": "string"}, b"x"),
    ({"type": "string"}, date(2020, 1, 2)),
    ({"type": "string"}, datetime(2020, 1, 2, 3)),
    ({"type": "string"}, ("x",)),
    ({"type": "string", "format": "date"}, datetime(2020, 1, 2, 3)),
    ({"type": "string", "format": "date-time"}, date(2020, 1, 2)),
    ({"type": "string", "format": "date"}, b"2020-01-02"),
    ({"type": ["string", "null"]}, b"x"),
], ids=["bytes", "date", "datetime", "tuple", "datetime-as-date", "date-as-datetime", "bytes-as-date",
        "bytes-in-a-type-list"])
def test_it_is_an_error_to_pass_a_non_str_where_a_string_is_declared(field: dict[str, Any], value: Any) -> None:
    """A string field takes a str, or the one extra type its schema declares."""
    problem = check({"v": field}, {"v": value})
    assert problem is not None and problem.startswith("argument 'v': ") and "not of type 'string'" in problem


@pytest.mark.parametrize(("field", "value"), [
    ({"type": "string", "contentEncoding": "base64"}, b"\x00"),
    ({"type": "string", "format": "binary"}, b"\x00"),
    ({"type": "string", "format": "date"}, date(2020, 1, 2)),
    ({"type": "string", "format": "date-time"}, datetime(2020, 1, 2, 3)),
    ({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}, (1, "a")),
    ({"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]}, date(2020, 1, 2)),
], ids=["bytes-by-content-encoding", "bytes-by-format", "date", "datetime", "tuple-as-array", "optional-date"])
def test_declared_extra_types_are_accepted(field: dict[str, Any], value: Any) -> None:
    """What the schema declares (as signature.py writes for annotated parameters) passes as itself."""
    assert check({"v": field}, {"v": value}) is None


@pytest.mark.parametrize(("items", "unique"), [
    ([1, True], True), ([0, False], True), ([1, 1.0], False), ([[1], (1,)], False),
    ([{"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}], True), ([{"a": 1, "b": 2}, {"b": 2, "a": 1}], False),
    ([b"x", "x"], True),
], ids=["one-and-true", "zero-and-false", "int-and-float", "list-and-tuple", "nested-differ", "key-order",
        "bytes-and-str"])
def test_unique_items_follows_json_schema_equality(items: list[Any], unique: bool) -> None:
    """Items are compared as JSON Schema says (1 == 1.0, true != 1), by key rather than pair by pair."""
    problem = check({"v": {"type": "array", "uniqueItems": True}}, {"v": items})
    assert (problem is None) is unique


def test_patterns_search_anywhere_with_re2() -> None:
    """`pattern` is an unanchored search, as in JSON Schema; RE2 runs it."""
    field = {"v": {"type": "string", "pattern": "b+c"}}
    assert check(field, {"v": "abbbcd"}) is None
    assert check(field, {"v": "ac"}) is not None


def test_pattern_properties_and_additional_properties_use_the_same_patterns() -> None:
    """A key matching a patternProperties regex is not an additional property, and its value is checked."""
    field = {"v": {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False}}
    assert check(field, {"v": {"x-a": 1}}) is None
    assert "'v.x-a'" in (check(field, {"v": {"x-a": "one"}}) or "")
    assert "'other'" in (check(field, {"v": {"other": 1}}) or "")


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"v": {"type": "string", "pattern": "(a)\\1"}}},
    {"type": "object", "patternProperties": {"(?<=a)b": {}}},
    {"type": "object", "patternProperties": {"^a": {}}, "unevaluatedProperties": False},
], ids=["backreference", "look-behind-key", "unevaluated-with-patterns"])
def test_a_schema_that_cannot_be_checked_in_bounded_time_refuses_every_call(schema: dict[str, Any]) -> None:
    """It is an error to call a method whose schema needs a backtracking engine; the reason names the method."""
    validator = InputValidator("c.m", schema)
    assert validator.problem is not None and validator.problem.startswith("c.m cannot be called")
    assert validator.errors({}) == validator.problem


def test_a_pattern_key_inside_data_is_not_a_regex() -> None:
    """Only schema positions hold regexes: a default or enum value with a 'pattern' key is data."""
    validator = InputValidator("c.m", {"type": "object", "default": {"pattern": "(?=x)"},
                                       "properties": {"v": {"enum": [{"pattern": "(a)\\1"}]}}})
    assert validator.problem is None


def test_a_broken_schema_leaves_calls_unchecked() -> None:
    """A connector's schema that is not valid JSON Schema does not block its calls."""
    assert InputValidator("c.m", {"type": 5}).errors({"anything": 1}) is None


def test_messages_quote_a_bounded_part_of_the_value() -> None:
    """An invalid 1 MB value, key or list is quoted in a few hundred characters."""
    assert len(check({"v": {"type": "integer"}}, {"v": "a" * 1_000_000}) or "") < 600
    assert len(check({"v": {"type": "integer"}}, {"v": list(range(100_000))}) or "") < 600
    problem = InputValidator("c.m", {"type": "object", "additionalProperties": False}).errors({"k" * 100_000: 1})
    assert problem is not None and len(problem) < 600
    assert len(check({"v": {"enum": ["a"]}}, {"v": "b" * 1_000_000}) or "") < 1000


def test_at_most_five_problems_are_reported_in_path_order() -> None:
    """Many invalid fields give the first five, sorted by where they are."""
    schema = {f"f{i}": {"type": "integer"} for i in range(9)}
    problem = check(schema, {f"f{i}": "x" for i in range(9)})
    assert problem is not None
    assert problem.count("argument ") == 5
