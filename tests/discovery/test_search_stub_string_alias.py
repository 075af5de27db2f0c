"""A stub that uses a type declared as a string alias (a cycle) still runs (issue 13; found by
tests/discovery/test_stubs_properties.py's Hypothesis search, kept here as a fixed example).

``D`` below refers to itself, so its alias is written as a string (``D: TypeAlias = 'dict[str, D]'``) and ``D`` is a str
when the module runs: a later declaration evaluated at once (the functional TypedDict a result with a key that is a
keyword needs) that wrote ``D | None`` raised TypeError.
"""

from __future__ import annotations

from codemode_kernel.discovery.stubs import method_stub

_CYCLE = {"D": {"type": "object", "additionalProperties": {"anyOf": [{"$ref": "#/components/schemas/D"}]}}}


def test_a_nullable_reference_to_a_string_alias_runs() -> None:
    schema = {"type": "object", "properties": {"class": {"$ref": "#/components/schemas/D"}},
              "components": {"schemas": _CYCLE}}
    output = {"type": "object", "properties": {"class": {"$ref": "#/components/schemas/D", "nullable": True}}}
    source = method_stub("get_thing", description="Gets a thing.", input_schema=schema, output_schema=output)
    assert "D: TypeAlias = 'dict[str, D]'" in source
    exec(compile(source, "<stub>", "exec"), {})  # raised TypeError: unsupported operand type(s) for |
