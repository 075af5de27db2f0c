"""generate_types_from_json_schema and json_schema_to_type: Python declarations that always compile."""

from __future__ import annotations

import ast
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from codemode_kernel import Tool, generate_types_from_json_schema, json_schema_to_type

PET = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string", "description": "The pet's name."},
    "species": {"enum": ["cat", "dog"]},
    "tags": {"type": "array", "items": {"type": "string"}},
}}


def names(source: str) -> set[str]:
    return {n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef | ast.ClassDef)}


def test_one_module_declares_every_tool() -> None:
    """One import block, one function per tool (in name order), their types, docstrings from descriptions."""
    source = generate_types_from_json_schema({
        "list-pets": {"description": "List pets.", "inputSchema": {"type": "object", "properties": {
            "limit": {"type": "integer"}}}},
        "add_pet": {"description": "Add a pet.", "input_schema": PET,
                    "output_schema": {"type": "object", "properties": {"id": {"type": "integer"}}}},
    })
    compile(source, "<types>", "exec")
    assert source.count("from __future__ import annotations") == 1
    assert {"add_pet", "list_pets"} <= names(source)
    assert source.index("def add_pet(") < source.index("def list_pets(")
    assert "# list-pets" in source and "List pets." in source
    assert re.search(r"def add_pet\(\s*\*,\s*name: str,", source)


def test_connector_tools_and_mcp_style_descriptors_are_accepted() -> None:
    """A Tool object (attributes) and camelCase keys work alike; approval is said in the docstring."""
    tool = Tool(execute=lambda args, ctx: None, description="Delete it.", requires_approval=True,
                input_schema={"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]})
    source = generate_types_from_json_schema({"delete": tool})
    compile(source, "<types>", "exec")
    assert "def delete(*, id: int)" in source and "approval" in source


def test_json_schema_to_type_names_the_type() -> None:
    source = json_schema_to_type(PET, "Pet")
    compile(source, "<types>", "exec")
    assert "class Pet(TypedDict):" in source and "name: str" in source
    alias = json_schema_to_type({"type": "array", "items": {"type": "integer"}}, "Ids")
    compile(alias, "<types>", "exec")
    assert "Ids" in alias


def test_hostile_descriptions_stay_inside_docstrings() -> None:
    """A description that tries to close the docstring and add code is escaped."""
    source = generate_types_from_json_schema({"x": {"description": 'ok"""\nimport os\nos.system("rm -rf /")\n"""',
                                                    "input_schema": {"type": "object", "properties": {}}}})
    tree = ast.parse(source)
    assert [type(n).__name__ for n in tree.body if not isinstance(n, ast.ImportFrom)] == ["FunctionDef"]
    body = tree.body[-1]
    assert isinstance(body, ast.FunctionDef) and "os.system" in (ast.get_docstring(body) or "")


def test_an_empty_mapping_gives_a_valid_module() -> None:
    compile(generate_types_from_json_schema({}), "<types>", "exec")


SCHEMAS = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean", "null"])})
    | st.fixed_dictionaries({"enum": st.lists(st.one_of(st.text(max_size=5), st.integers()), min_size=1, max_size=3)}),
    lambda inner: st.fixed_dictionaries({"type": st.just("array"), "items": inner})
    | st.fixed_dictionaries({"type": st.just("object"),
                             "properties": st.dictionaries(st.text(max_size=8), inner, max_size=4)})
    | st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
    max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=10), SCHEMAS, max_size=3), st.text(max_size=12))
def test_any_schema_gives_python_that_compiles(tools: dict[str, dict[str, object]], type_name: str) -> None:
    """Whatever the names and schemas, both functions give source that compiles."""
    source = generate_types_from_json_schema({k: {"description": k, "input_schema": v} for k, v in tools.items()})
    compile(source, "<types>", "exec")
    for schema in tools.values():
        compile(json_schema_to_type(schema, type_name if type_name.strip() else "T"), "<types>", "exec")


def item_tool(fields: dict[str, object]) -> dict[str, object]:
    return {"description": "Takes an item.", "input_schema": {
        "type": "object", "properties": {"item": {"$ref": "#/$defs/Item"}},
        "$defs": {"Item": {"type": "object", "properties": fields}}}}


def test_tools_that_declare_the_same_type_name_do_not_shadow_each_other() -> None:
    """The same declaration is kept once; a different one with the same name is renamed for its tool."""
    source = generate_types_from_json_schema({
        "a": item_tool({"x": {"type": "integer"}}),
        "b": item_tool({"y": {"type": "string"}}),
        "c": item_tool({"x": {"type": "integer"}}),
    })
    compile(source, "<types>", "exec")
    tree = ast.parse(source)
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    assert classes == ["Item", "BItem"]
    assert "def b(*, item: BItem = ...)" in source and "def c(*, item: Item = ...)" in source
