"""The quick argument check (issue 12): a flat object of scalars is checked without jsonschema's walk.

It may only ever accept: whatever it accepts the full validator accepts, and every refusal
(with its message) is the full validator's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from codemode_kernel.validation import InputValidator, _quick_check

FLAT = {"type": "object", "properties": {
    "name": {"type": "string", "description": "A name."}, "count": {"type": "integer", "default": 0},
    "ratio": {"type": "number"}, "flag": {"type": "boolean"}, "nothing": {"type": "null"}, "anything": {}},
    "required": ["name"], "additionalProperties": False}
OPEN = {"type": "object", "properties": {"n": {"type": "integer"}}}

INSTANCES: list[Any] = [
    {"name": "a"}, {"name": "a", "count": 2, "ratio": 0.5, "flag": True, "nothing": None, "anything": [1, {}]},
    {"name": "a", "count": True}, {"name": "a", "count": 1.0}, {"name": "a", "count": 1.5}, {"name": 3},
    {"name": b"x"}, {"name": datetime(2026, 1, 1)}, {"count": 1}, {"name": "a", "extra": 1}, [], "x", None,
    {"name": "a", "ratio": True}, {"name": "a", "flag": 0}, {"name": "a", "nothing": 0},
]


@pytest.mark.parametrize("schema", [FLAT, OPEN], ids=["closed", "open"])
@pytest.mark.parametrize("instance", INSTANCES, ids=range(len(INSTANCES)))
def test_the_quick_check_accepts_only_what_the_full_validator_accepts(schema: dict[str, Any], instance: Any) -> None:
    """It is an error if the quick check accepts an instance that the schema refuses."""
    quick = _quick_check(schema)
    assert quick is not None
    full = InputValidator("t.m", schema)
    full._accepts = None  # the full walk alone
    if quick(instance):
        assert full.errors(instance) is None


def test_refusals_keep_the_full_validators_messages() -> None:
    """A refused call says what the full validator says (the field and what was wrong)."""
    check = InputValidator("t.m", FLAT)
    assert check.errors({"name": "a", "count": 2}) is None
    assert check.errors({"name": "a", "count": 1.0}) is None  # JSON Schema's integer: the full validator decides
    problem = check.errors({"name": "a", "count": True})
    assert problem is not None and "'count'" in problem and "integer" in problem
    problem = check.errors({"name": "a", "extra": 1})
    assert problem is not None and "extra" in problem
    assert check.errors({"count": 1}) == "missing required 'name' argument"


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"s": {"type": "string", "pattern": "^a"}}},
    {"type": "object", "properties": {"s": {"type": "string", "format": "date"}}},
    {"type": "object", "properties": {"s": {"type": ["string", "null"]}}},
    {"type": "object", "properties": {"s": {"enum": ["a"]}}},
    {"type": "object", "properties": {"s": {"type": "object"}}},
    {"type": "object", "properties": {"s": True}},
    {"type": "object", "additionalProperties": {"type": "string"}},
    {"type": "object", "minProperties": 1},
    {"type": "object", "$defs": {}},
    {"properties": {"s": {"type": "string"}}},
], ids=range(10))
def test_other_schemas_get_no_quick_check(schema: dict[str, Any]) -> None:
    """Anything beyond a flat object of scalar properties is left to the full validator."""
    assert _quick_check(schema) is None
