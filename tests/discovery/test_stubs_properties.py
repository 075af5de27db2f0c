"""Property tests: for any schema, the declarations never crash, always parse and always run."""

from __future__ import annotations

import ast
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode_kernel.discovery.stubs import connector_stub, method_stub, type_declarations

# Text that stresses escaping: quotes, triple quotes, backslashes, newlines, control
# characters, lone surrogates and non-ASCII.
NASTY = st.lists(
    st.one_of(st.sampled_from(['"', "'", '"""', "\\", "\n", "\r", "\t", "\x00", "\x0c", "\ud800", "é", "#", " ",
                               "{", "}", "\u2028"]),
              st.characters()),
    max_size=12,
).map("".join)
NAMES = st.one_of(st.sampled_from(["id", "name", "class", "a-b", "__x", "1st", "", "self", "kwargs", "args", "Any",
                                   "str", "None", "match", "@type", "x y"]), NASTY)
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), NASTY)
REFS = st.sampled_from(["#/$defs/A", "#/$defs/B", "#/definitions/C", "#/components/schemas/D", "#/$defs/Missing",
                        "#", "#/properties", "other.json#/x", "#/$defs/A/properties/self"])


def _schemas() -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.booleans(),
        st.fixed_dictionaries({}, optional={
            "type": st.one_of(st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array",
                                               "weird"]),
                              st.lists(st.sampled_from(["string", "null", "integer", "object"]), max_size=3)),
            "format": st.sampled_from(["date-time", "email", "uri", "binary"]),
            "description": NASTY,
            "title": NASTY,
            "enum": st.lists(JSON_SCALARS, max_size=4),
            "const": JSON_SCALARS,
            "nullable": st.booleans(),
            "default": JSON_SCALARS,
            "minimum": st.integers(),
            "pattern": NASTY,
        }),
        st.builds(lambda r: {"$ref": r}, REFS),
    )

    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.fixed_dictionaries({"type": st.just("object")}, optional={
                "properties": st.dictionaries(NAMES, children, max_size=4),
                "required": st.lists(NAMES, max_size=3),
                "additionalProperties": st.one_of(st.booleans(), children),
                "description": NASTY,
            }),
            st.fixed_dictionaries({"type": st.just("array")}, optional={
                "items": st.one_of(children, st.lists(children, max_size=2)),
                "prefixItems": st.lists(children, max_size=3),
                "maxItems": st.integers(0, 4),
            }),
            st.builds(lambda k, xs: {k: xs}, st.sampled_from(["anyOf", "oneOf", "allOf"]),
                      st.lists(children, max_size=3)),
            st.builds(lambda base, xs: {**base, "oneOf": xs},
                      st.fixed_dictionaries({"type": st.just("object"),
                                             "properties": st.dictionaries(NAMES, children, max_size=2)}),
                      st.lists(st.fixed_dictionaries({"required": st.lists(NAMES, max_size=2)}), max_size=2)),
            st.builds(lambda r, extra: {"$ref": r, **extra}, REFS,
                      st.fixed_dictionaries({}, optional={"nullable": st.booleans(), "description": NASTY,
                                                          "properties": st.dictionaries(NAMES, children,
                                                                                        max_size=2)})),
        )

    return st.recursive(leaf, extend, max_leaves=12)


SCHEMAS = _schemas()
DOCUMENTS = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.dictionaries(NAMES, SCHEMAS, max_size=5)},
    optional={
        "required": st.lists(NAMES, max_size=4),
        "$defs": st.fixed_dictionaries({}, optional={"A": SCHEMAS, "B": SCHEMAS}),
        "definitions": st.fixed_dictionaries({}, optional={"C": SCHEMAS}),
        "components": st.fixed_dictionaries({"schemas": st.fixed_dictionaries({}, optional={"D": SCHEMAS})}),
        "additionalProperties": st.one_of(st.booleans(), SCHEMAS),
    },
)
# Arbitrary JSON, not a schema at all: the generator must still not crash.
ANY_JSON = st.recursive(JSON_SCALARS, lambda c: st.one_of(st.lists(c, max_size=3),
                                                          st.dictionaries(st.one_of(NAMES, st.sampled_from(
                                                              ["type", "properties", "$ref", "items", "allOf",
                                                               "enum", "required"])), c, max_size=4)),
                        max_leaves=15)


def _check(source: str) -> None:
    ast.parse(source)
    # Stronger than parsing: the declarations run (every name they use is defined).
    exec(compile(source, "<stub>", "exec"), {})


PROPERTY_SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(DOCUMENTS, NASTY, st.one_of(st.none(), SCHEMAS), st.booleans(), NAMES)
def test_method_stub_always_parses_and_runs(schema: Any, description: str, output: Any, approval: bool,
                                           name: str) -> None:
    """It is never an error to describe a method, whatever its schemas hold."""
    _check(method_stub(name, description=description, input_schema=schema,
                       output_schema=output if isinstance(output, dict) else None, requires_approval=approval))


@PROPERTY_SETTINGS
@given(ANY_JSON, ANY_JSON)
def test_method_stub_survives_any_json(schema: Any, output: Any) -> None:
    """A schema the generator has never seen falls back to Any; it never raises."""
    _check(method_stub("m", description="d", input_schema=schema, output_schema=output))


@PROPERTY_SETTINGS
@given(SCHEMAS, NAMES)
def test_type_declarations_always_parse_and_run(schema: Any, name: str) -> None:
    """A standalone type (e.g. a snippet's input) is always valid Python."""
    _check(type_declarations(schema, name))


@PROPERTY_SETTINGS
@given(NAMES, st.one_of(st.none(), NASTY), st.lists(st.tuples(NAMES, NASTY, st.booleans()), max_size=6),
       st.integers(0, 5))
def test_connector_stub_always_parses_and_runs(name: str, instructions: str | None,
                                               methods: list[tuple[str, str, bool]], limit: int) -> None:
    """A connector summary is valid Python for any names and descriptions."""
    _check(connector_stub(name, instructions, methods, limit=limit))
