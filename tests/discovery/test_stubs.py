"""JSON Schema → Python declarations: what each kind of schema becomes."""

from __future__ import annotations

import ast
from typing import Any

from codemode_kernel.discovery.stubs import connector_stub, method_stub, type_declarations


def stub(input_schema: Any, output_schema: Any = None, **kw: Any) -> str:
    source = method_stub("demo.make", description=kw.pop("description", "Make a thing."), input_schema=input_schema,
                         output_schema=output_schema, **kw)
    ast.parse(source)
    exec(compile(source, "<stub>", "exec"), {})
    return source


def signature(source: str) -> str:
    """The text of the ``def`` line(s) of the method."""
    tree = ast.parse(source)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    return ast.unparse(func.args) + " -> " + ast.unparse(func.returns) if func.returns else ""


def obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, **({"required": required} if required else {}), **extra}


def test_required_keywords_have_no_default_and_optional_ones_have_ellipsis() -> None:
    """Required properties are plain keyword parameters; optional ones default to ``...`` (not None)."""
    src = stub(obj({"name": {"type": "string"}, "tag": {"type": "string"}}, ["name"]))
    assert signature(src) == "*, name: str, tag: str=... -> Any"


def test_schema_defaults_are_shown_as_parameter_defaults() -> None:
    """A JSON Schema default becomes the parameter's default value, said once (not again in the docs)."""
    src = stub(obj({"limit": {"type": "integer", "default": 20, "maximum": 100}}))
    assert "limit: int = 20" in src
    assert "limit (optional): Must be <= 100.\n" in src and "Default: 20" not in src
    unshown = stub(obj({"sizes": {"type": "array", "items": {"type": "integer"}, "default": [1, 2]}}))
    assert "sizes: list[int] = ..." in unshown and "Default: [1, 2]." in unshown


def test_a_filled_signature_packs_arguments_into_lines_of_the_width() -> None:
    """With fill, twenty arguments take a few lines of at most ``width`` characters, still valid Python."""
    props = {f"argument_{i:02d}": {"type": "string"} for i in range(20)}
    src = method_stub("make", description="Make.", input_schema=obj(props), width=100, fill=True)
    compile(src, "<stub>", "exec")
    lines = [ln for ln in src.splitlines() if "argument_" in ln]
    assert 4 <= len(lines) <= 6 and all(len(ln) <= 100 for ln in lines)
    assert "argument_00: str = ..., argument_01: str = ...," in src


def test_short_writes_open_objects_and_lists_without_parameters() -> None:
    """``short`` types an object or list with nothing declared inside as dict / list (no typing import for it)."""
    src = method_stub("make", description="Make.", input_schema=obj({"meta": {"type": "object"},
                                                                    "tags": {"type": "array"}}, ["meta"]),
                      output_schema={"type": "object"}, short=True)
    assert "meta: dict, tags: list = ...) -> dict:" in src and "Any" not in src


def test_nested_objects_are_named_typeddicts_with_notrequired() -> None:
    """A nested object becomes a TypedDict named after its path; optional keys are NotRequired."""
    src = stub(obj({"owner": obj({"login": {"type": "string"}, "age": {"type": "integer"}}, ["login"])}, ["owner"]))
    assert "class MakeOwner(TypedDict):\n    login: str\n    age: NotRequired[int]\n" in src
    assert "owner: MakeOwner" in signature(src)


def test_enum_and_const_are_literals() -> None:
    """``enum`` and ``const`` become Literal; a null member adds None."""
    src = stub(obj({"state": {"enum": ["open", "closed", None]}, "kind": {"const": "pet"},
                    "level": {"enum": [1, 2]}}))
    sig = signature(src)
    assert "state: Literal['open', 'closed'] | None=..." in sig
    assert "kind: Literal['pet']" in sig
    assert "level: Literal[1, 2]" in sig


def test_nullable_and_type_lists_add_none() -> None:
    """OpenAPI 3.0 ``nullable`` and ``type: [..., "null"]`` both give ``T | None``."""
    src = stub(obj({"a": {"type": "string", "nullable": True}, "b": {"type": ["integer", "null"]}}, ["a", "b"]))
    assert signature(src) == "*, a: str | None, b: int | None -> Any"


def test_anyof_and_oneof_are_unions() -> None:
    """Alternatives become a union of their types."""
    src = stub(obj({"v": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    "w": {"oneOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}]}}))
    assert "v: str | int" in src
    assert "w: bool | list[str]" in src


def test_oneof_that_only_lists_required_keys_keeps_the_object() -> None:
    """``oneOf: [{required: [a]}, {required: [b]}]`` on an object is a constraint, not new types."""
    src = stub(obj({"x": obj({"a": {"type": "string"}, "b": {"type": "string"}},
                             oneOf=[{"required": ["a"]}, {"required": ["b"]}])}))
    assert "x: MakeX" in src
    assert "class MakeX(TypedDict)" in src


def test_allof_is_merged_into_one_object() -> None:
    """``allOf`` of objects is one TypedDict with every property and the union of required keys."""
    src = stub(obj({"m": {"allOf": [obj({"a": {"type": "integer"}}, ["a"]),
                                    {"properties": {"b": {"type": "string"}}}]}}))
    assert "class MakeM(TypedDict):\n    a: int\n    b: NotRequired[str]\n" in src


def test_arrays_tuples_and_open_tuples() -> None:
    """``items`` gives a list; ``prefixItems`` a tuple, closed or open-ended."""
    src = stub(obj({
        "tags": {"type": "array", "items": {"type": "string"}},
        "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False},
        "head": {"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "number"}},
        "any": {"type": "array"},
    }))
    assert "tags: list[str]" in src
    assert "pair: tuple[int, str]" in src
    assert "head: tuple[int, *tuple[float, ...]]" in src
    assert "any: list[Any]" in src


def test_additional_properties() -> None:
    """A map is ``dict[str, T]``; extra keys beside properties are noted and accepted as ``**kwargs``."""
    src = stub(obj({"meta": {"type": "object", "additionalProperties": {"type": "number"}},
                    "free": {"type": "object"}}))
    assert "meta: dict[str, float]" in src
    assert "free: dict[str, Any]" in src
    src = stub(obj({"a": {"type": "string"}}, additionalProperties={"type": "integer"}))
    assert "**kwargs: int" in signature(src)
    nested = stub(obj({"x": obj({"a": {"type": "string"}}, additionalProperties=True)}))
    assert "Other keys are allowed too (values: any)." in nested


def test_refs_to_defs_definitions_and_components_are_named_once() -> None:
    """``$ref`` targets become declarations named after the target, emitted once."""
    schema = obj({"a": {"$ref": "#/$defs/Pet"}, "b": {"$ref": "#/$defs/Pet"}, "c": {"$ref": "#/definitions/Tag"},
                  "d": {"$ref": "#/components/schemas/new-owner"}},
                 **{"$defs": {"Pet": obj({"name": {"type": "string"}}, ["name"])},
                    "definitions": {"Tag": {"type": "string", "description": "A tag."}},
                    "components": {"schemas": {"new-owner": obj({"id": {"type": "integer"}})}}})
    src = stub(schema)
    assert src.count("class Pet(TypedDict)") == 1
    assert "Tag: TypeAlias = str" in src
    assert "class NewOwner(TypedDict)" in src
    assert "a: Pet = ..., b: Pet = ..., c: Tag = ..., d: NewOwner = ..." in src
    assert "c (optional): A tag." in src


def test_recursive_refs_terminate_and_refer_to_themselves() -> None:
    """A cycle through ``$ref`` refers to the declaration by name."""
    schema = obj({"root": {"$ref": "#/$defs/Node"}}, ["root"], **{"$defs": {
        "Node": obj({"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                     "json": {"$ref": "#/$defs/Json"}}),
        "Json": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/Json"}}]},
    }})
    src = stub(schema)
    assert "children: NotRequired[list[Node]]" in src
    assert "Json: TypeAlias = 'str | list[Json]'" in src


def test_unresolvable_refs_become_any_with_a_note() -> None:
    """A ``$ref`` that points nowhere is Any, and a comment says so."""
    src = stub(obj({"x": {"$ref": "#/$defs/Nope"}, "y": {"$ref": "other.json#/A"}}))
    assert "x: Any" in src
    assert "# note: $ref '#/$defs/Nope' could not be resolved" in src


def test_property_names_that_are_not_identifiers() -> None:
    """Keys like ``a-b`` or ``class`` use the functional TypedDict syntax; the method takes one dict."""
    src = stub(obj({"a-b": {"type": "integer"}, "class": {"type": "string"}}, ["a-b"]))
    assert "MakeInput = TypedDict('MakeInput', {'a-b': int, 'class': NotRequired[str]})" in src
    assert signature(src) == "args: MakeInput, / -> Any"
    assert "Call it with one dict argument" in src


def test_descriptions_with_quotes_newlines_and_backslashes_are_escaped() -> None:
    """Descriptions keep their text and cannot break out of the docstring."""
    nasty = 'Ends with a quote "\nhas """ triple quotes, a \\ backslash\x00 and a NUL'
    src = stub(obj({"x": {"type": "string", "description": nasty}}), description=nasty)
    tree = ast.parse(src)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    doc = ast.get_docstring(func) or ""
    assert doc.startswith(nasty)


def test_formats_and_constraints_are_noted() -> None:
    """Formats, patterns and bounds appear beside the field."""
    src = stub(obj({"when": {"type": "string", "format": "date-time", "description": "When."},
                    "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3}}))
    assert "when (optional): When. Format: date-time." in src
    assert "code (optional): At least 3 characters. Pattern: ^[A-Z]{3}$." in src


def test_output_schema_is_the_return_type() -> None:
    """The output schema becomes the return annotation, with its own declarations."""
    out = obj({"id": {"type": "integer"}, "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}}, ["id"],
              **{"$defs": {"Tag": {"type": "string"}}})
    src = stub(obj({}), out)
    assert "-> MakeResult:" in src
    assert "class MakeResult(TypedDict):\n    id: int\n    tags: NotRequired[list[Tag]]" in src


def test_approval_is_stated() -> None:
    """A method that needs approval says so in its docstring."""
    assert "Requires human approval" in stub(obj({}), requires_approval=True)


def test_unknown_schemas_fall_back_to_any() -> None:
    """Unknown types and shapes are Any, never an exception."""
    src = stub(obj({"a": {"type": "decimal"}, "b": {"not": {"type": "string"}}, "c": 42}))  # type: ignore[dict-item]
    assert "a: Any" in src and "b: Any" in src and "c: Any" in src


def test_deep_and_wide_schemas_stay_bounded() -> None:
    """A 200-level nesting and 500 definitions still give bounded, valid output."""
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        deep = obj({"x": deep}, ["x"])
    src = stub(obj({"deep": deep}))
    assert src.count("TypedDict)") < 80
    wide = obj({f"p{i}": obj({"v": {"type": "integer"}}) for i in range(500)})
    src = stub(wide, max_definitions=60)
    assert 50 <= src.count("(TypedDict)") <= 60
    assert "the arguments have more nested types than shown" in src


def test_dotted_names_keep_the_path_as_a_comment() -> None:
    """``connector.method`` names declare ``def method`` and keep the path in a comment."""
    src = stub(obj({}))
    assert "# demo.make\ndef make() -> Any:" in src


def test_type_declarations_for_a_standalone_schema() -> None:
    """A schema can be declared as a named type on its own."""
    src = type_declarations(obj({"n": {"type": "integer"}}, ["n"]), "snippet input")
    assert "class SnippetInput(TypedDict):\n    n: int\n" in src


def test_connector_stub_lists_methods_up_to_the_limit() -> None:
    """The connector summary lists methods with their first line and says how many more exist."""
    src = connector_stub("pets", "Pets API.", [("list_pets", "List pets.\nMore.", False),
                                                ("delete_pet", "Delete a pet.", True),
                                                ("other", "Other.", False)], limit=2)
    ast.parse(src)
    assert '"""List pets.\n\n        Full declaration: codemode.describe(\'pets.list_pets\').' in src
    assert "Delete a pet. (requires approval)" in src
    assert "# … and 1 more methods: use codemode.search(query) to find them." in src
