"""Reading OpenAPI documents: 3.0 → JSON Schema, $ref resolution, parameter merging, malformed documents."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from codemode_kernel.connectors.openapi_document import OpenApiDocument, Operation, parse_text
from codemode_kernel.discovery.stubs import method_stub
from codemode_kernel.errors import ConfigurationError


def doc(paths: dict[str, Any], schemas: dict[str, Any] | None = None, version: str = "3.0.3",
        **components: Any) -> OpenApiDocument:
    data = {"openapi": version, "info": {"title": "T", "version": "1"}, "paths": paths,
            "components": {"schemas": schemas or {}, **components}}
    return OpenApiDocument(data, "test.yaml")


def ops(document: OpenApiDocument) -> dict[str, Operation]:
    return {op.name: op for op in document.operations()}


def body(schema: Any, required: bool = True, ctype: str = "application/json") -> dict[str, Any]:
    return {"required": required, "content": {ctype: {"schema": schema}}}


OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def test_openapi_30_nullable_and_exclusive_bounds_become_json_schema() -> None:
    """``nullable`` adds "null"; boolean exclusive bounds become numbers."""
    d = doc({"/x": {"post": {"operationId": "make", "requestBody": body({"$ref": "#/components/schemas/In"}),
                             "responses": OK}}},
            {"In": {"type": "object", "properties": {
                "a": {"type": "string", "nullable": True},
                "b": {"type": "integer", "minimum": 0, "exclusiveMinimum": True},
                "c": {"type": "string", "enum": ["x", "y"], "nullable": True},
                "d": {"$ref": "#/components/schemas/D", "nullable": True},
                "e": {"type": "integer", "readOnly": True}}},
             "D": {"type": "object", "properties": {"v": {"type": "integer"}}}})
    props = ops(d)["make"].input_schema["properties"]
    assert props["a"]["type"] == ["string", "null"]
    assert props["b"] == {"type": "integer", "exclusiveMinimum": 0}
    assert props["c"]["enum"] == ["x", "y", None]
    assert props["d"] == {"anyOf": [{"$ref": "#/$defs/D"}, {"type": "null"}]}
    assert "e" not in props  # readOnly properties are not inputs


def test_recursive_component_schemas_stay_references() -> None:
    """A schema that refers to itself is kept as a $defs reference, and the $defs travel with the input."""
    d = doc({"/t": {"post": {"operationId": "plant", "requestBody": body({"type": "object", "properties": {
        "tree": {"$ref": "#/components/schemas/Node"}}}), "responses": OK}}},
        {"Node": {"type": "object", "properties": {
            "kids": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
            "leaf": {"$ref": "#/components/schemas/Leaf"}}},
         "Leaf": {"type": "string"}})
    schema = ops(d)["plant"].input_schema
    assert schema["properties"]["tree"] == {"$ref": "#/$defs/Node"}
    assert set(schema["$defs"]) == {"Node", "Leaf"}
    assert schema["$defs"]["Node"]["properties"]["kids"]["items"] == {"$ref": "#/$defs/Node"}
    ast.parse(method_stub("plant", description="", input_schema=schema))


def test_parameters_from_path_item_and_operation_merge_with_the_body() -> None:
    """Path-level parameters are inherited and overridden; header names become snake_case; bodies merge."""
    d = doc({"/orgs/{org}/items": {
        "parameters": [{"name": "org", "in": "path", "required": True, "schema": {"type": "string"}},
                       {"name": "page", "in": "query", "schema": {"type": "integer"}}],
        "post": {"operationId": "orgs/create-item",
                 "parameters": [{"name": "page", "in": "query", "schema": {"type": "string"}, "description": "P."},
                                {"name": "X-Request-ID", "in": "header", "schema": {"type": "string"}},
                                {"$ref": "#/components/parameters/Verbose"}],
                 "requestBody": body({"type": "object", "required": ["title"],
                                      "properties": {"title": {"type": "string"}, "org": {"type": "string"}}}),
                 "responses": OK}}},
        parameters={"Verbose": {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}})
    op = ops(d)["orgs_create_item"]
    assert op.operation_id == "orgs/create-item"
    assert [(p.key, p.location) for p in op.parameters] == [("org", "path"), ("page", "query"),
                                                             ("x_request_id", "header"), ("verbose", "query")]
    assert op.input_schema["properties"]["page"] == {"type": "string", "description": "P."}
    # the body's "org" collides with the path parameter, so the body stays whole under "body"
    assert op.body is not None and op.body.key == "body"
    assert op.input_schema["required"] == ["org", "body"]


def test_non_object_bodies_are_the_body_argument() -> None:
    """An array (or any non-object) body is passed as ``body``."""
    array = {"type": "array", "items": {"type": "integer"}}
    d = doc({"/bulk": {"put": {"operationId": "bulk", "requestBody": body(array, required=False), "responses": OK}}})
    op = ops(d)["bulk"]
    assert op.input_schema["properties"]["body"] == {"type": "array", "items": {"type": "integer"}}
    assert "required" not in op.input_schema


def test_allof_bodies_are_flattened_for_merging() -> None:
    """A body that is allOf of objects merges all their properties."""
    d = doc({"/p": {"post": {"operationId": "p", "requestBody": body({"$ref": "#/components/schemas/Both"}),
                             "responses": OK}}},
            {"A": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
             "Both": {"allOf": [{"$ref": "#/components/schemas/A"},
                                {"type": "object", "properties": {"b": {"type": "integer"}}}]}})
    op = ops(d)["p"]
    assert set(op.input_schema["properties"]) == {"a", "b"} and op.input_schema["required"] == ["a"]


def test_output_schema_is_the_first_2xx_json_response() -> None:
    """The output schema comes from 200/201/...; text responses are strings; 204 has none."""
    d = doc({"/a": {"get": {"operationId": "a", "responses": {
        "404": {"description": "no"},
        "201": {"description": "The new item.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/R"}}}}}},
        "delete": {"operationId": "b", "responses": {"204": {"description": "gone"}}}},
        "/t": {"get": {"operationId": "t", "responses": {"200": {"description": "text",
                                                                 "content": {"text/plain": {"schema": {}}}}}}}},
        {"R": {"type": "object", "properties": {"id": {"type": "integer"}}}})
    found = ops(d)
    assert found["a"].output_schema == {"$ref": "#/$defs/R", "description": "The new item.",
                                        "$defs": {"R": {"type": "object", "properties": {"id": {"type": "integer"}}}}}
    assert found["b"].output_schema is None
    assert found["t"].output_schema == {"type": "string"}


def test_colliding_operation_ids_are_detected_by_the_connector_names() -> None:
    """Two operations whose names sanitize alike produce the same method name (the connector refuses them)."""
    d = doc({"/a": {"get": {"operationId": "list-items", "responses": OK}},
             "/b": {"get": {"operationId": "list_items", "responses": OK}}})
    assert [op.name for op in d.operations()] == ["list_items", "list_items"]


@pytest.mark.parametrize(("data", "message"), [
    ({"swagger": "2.0", "paths": {}}, r"`openapi` must be a 3\.x version string; got None\. Swagger 2\.0"),
    ({"openapi": "3.0.0", "paths": []}, "`paths` must be an object"),
    ({"openapi": "3.0.0", "paths": {"/a": {"get": {"parameters": [{"in": "query"}], "responses": {}}}}},
     r"paths\./a\.get\.parameters\[0\]: a parameter needs a `name`"),
    ({"openapi": "3.0.0", "paths": {"/a": {"get": {"parameters": [{"name": "q", "in": "body"}]}}}},
     r"paths\./a\.get\.parameters\[0\]: parameter 'q': `in` must be path, query, header or cookie"),
    ({"openapi": "3.0.0", "paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/Nope"}]}}}},
     r"paths\./a\.get\.parameters\[0\]: \$ref '#/components/parameters/Nope' does not resolve: # has no "
     "'components'"),
    ({"openapi": "3.0.0", "paths": {"/a": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Missing"}}}}}}}, "components": {"schemas": {}}},
     r"paths\./a\.post\.requestBody\.content\.application/json\.schema: \$ref '#/components/schemas/Missing' does "
     "not resolve"),
    ({"openapi": "3.0.0", "paths": {"/a": {"get": "nope"}}}, r"paths\./a\.get: an operation must be an object"),
    ({"openapi": "3.0.0", "paths": {"a": {}}}, r"paths\.a: a path must be a string starting with '/'"),
    ({"openapi": "3.0.0", "paths": {"/a": {"post": {"requestBody": {"description": "x"}}}}},
     r"paths\./a\.post\.requestBody: a request body needs a `content` object"),
    ({"openapi": "3.0.0", "paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/A"}]}}},
      "components": {"parameters": {"A": {"$ref": "#/components/parameters/B"},
                                    "B": {"$ref": "#/components/parameters/A"}}}},
     r"\$ref cycle"),
    ({"openapi": "3.0.0", "paths": {"/a": {"get": {"parameters": [{"name": "q", "in": "query",
                                                                   "schema": {"properties": []}}]}}}},
     r"paths\./a\.get\.parameters\[0\]\.schema\.properties: must be an object"),
])
def test_malformed_documents_name_the_path(data: dict[str, Any], message: str) -> None:
    """Each malformed document is a ConfigurationError naming where in the document the problem is."""
    with pytest.raises(ConfigurationError, match=message) as info:
        OpenApiDocument(data, "api.yaml").operations()
    assert str(info.value).startswith("api.yaml: ")


def test_syntax_errors_name_the_line() -> None:
    """Broken YAML or JSON text names the line."""
    with pytest.raises(ConfigurationError, match=r"api\.yaml: not valid YAML \(line 4, column 1\)"):
        parse_text("openapi: 3.0.0\npaths:\n  - a: [\n", "api.yaml")
    with pytest.raises(ConfigurationError, match=r"api\.json: not valid JSON \(line 1, column"):
        parse_text('{"openapi": }', "api.json")


def test_external_refs_accept_anything_and_say_so() -> None:
    """A reference to another file is not fetched: it becomes "any value" with a note."""
    d = doc({"/a": {"post": {"operationId": "a", "requestBody": body({"type": "object", "properties": {
        "x": {"$ref": "other.yaml#/X"}}}), "responses": OK}}})
    assert ops(d)["a"].input_schema["properties"]["x"] == {
        "description": "(external reference other.yaml#/X not loaded: any value)"}
