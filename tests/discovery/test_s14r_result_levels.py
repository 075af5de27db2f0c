"""A ``.return`` describe over the detail cap keeps the result's own fields (review 14x H1).

Field docs go before nested declarations, and the root's fields stay to the last: a result with
more fields than the cap can hold lists the first ones and says how many there are. A result
that refers to itself names itself, and valid Python comes out at every level.
"""

from __future__ import annotations

import ast
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, OpenApiConnector
from codemode_kernel.discovery.describe import DETAIL_CAP

pytestmark = pytest.mark.anyio

WIDE: dict[str, Any] = {
    "type": "object",
    "properties": {f"field_number_{i:03d}": {"type": "object", "properties": {"a": {"type": "string"}}}
                   for i in range(700)},
    "required": ["field_number_000"],
}
NODE: dict[str, Any] = {
    "type": "object", "description": "A tree node.",
    "properties": {"name": {"type": "string", "description": "The node's name. " + "Long words. " * 30},
                   "children": {"type": "array", "items": {"$ref": "#/components/schemas/node"}}},
    "required": ["name"],
}
DOCUMENTED: dict[str, Any] = {
    "type": "object",
    "properties": {f"item_{i:02d}": {"type": "string", "description": f"What item {i} is. " + "More. " * 20,
                                     "example": f"https://example.com/item/{i}"} for i in range(80)},
}


def _get(operation: str, schema: str) -> dict[str, Any]:
    return {"get": {"operationId": operation, "responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}}}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shapes", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {"/wide": _get("wide", "wide"), "/node": _get("node", "node"), "/documented": _get("documented", "doc")},
    "components": {"schemas": {"wide": WIDE, "node": NODE, "doc": DOCUMENTED}},
}


@pytest.fixture
async def rt() -> AsyncIterator[CodemodeRuntime]:
    async with CodemodeRuntime([OpenApiConnector("shapes", DOCUMENT)], store="sqlite://",
                               executor=InProcessExecutor()) as runtime:
        yield runtime


async def test_a_result_with_too_many_fields_lists_the_first_ones(rt: CodemodeRuntime) -> None:
    out = await rt.describe("shapes.wide.return")
    assert len(out.types) <= DETAIL_CAP and out.truncated
    ast.parse(out.types)
    assert "class WideResult(TypedDict):" in out.types
    assert "field_number_000: dict" in out.types and "field_number_699" not in out.types
    assert " of its 700 fields are shown" in out.types, out.types


async def test_a_documented_result_drops_docs_before_fields(rt: CodemodeRuntime) -> None:
    out = await rt.describe("shapes.documented.return")
    assert len(out.types) <= DETAIL_CAP
    ast.parse(out.types)
    assert all(f"item_{i:02d}: " in out.types for i in range(80)), out.types
    assert "https://example.com/item/" not in out.types  # the examples went first


async def test_a_result_that_refers_to_itself_names_itself(rt: CodemodeRuntime) -> None:
    out = await rt.describe("shapes.node.return")
    ast.parse(out.types)
    assert "class NodeResult(TypedDict):" in out.types
    assert "children: NotRequired[list[NodeResult]]" in out.types, out.types


async def test_a_full_method_describe_points_at_its_result(rt: CodemodeRuntime) -> None:
    """When the full declaration types a large result as a bare dict, it says where the result is declared."""
    out = await rt.describe("shapes.wide", full=True)
    assert "def wide() -> dict[str, Any]:" in out.types, out.types
    assert "codemode.describe('shapes.wide.return') declares it" in out.types, out.types
