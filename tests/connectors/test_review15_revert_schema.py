"""A configured revert's arguments, rendered from the service's answer, skip the method's schema (review 15).

A program's call is checked against the method's input schema before anything is sent (DESIGN:
"Arguments are validated ... the connector is not called"). A configured revert
(``reverts = { createPet = { method = "deletePet", args = { petId = "$result.id" } } }``) renders
its arguments from the call's result - the service's answer - and ``policy.revert``'s
``run_revert`` hands them to the OpenAPI connector's ``request`` directly: no schema check. A
service that answers ``{"id": ["7", "8"]}`` (a buggy one, or one that says what it created in a
list) makes the rollback - which no person approves - send ``DELETE /stores/s1/pets/7%2C8``, which
a server decodes to ``7,8`` (many APIs read comma lists as several ids). ``petId`` is a string in
the document.

The right outcome: the revert's arguments are checked like a program's; one that breaks the
schema is a revert failure (RollbackError), and nothing is sent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory
from tests.support import json_service

pytestmark = pytest.mark.anyio

STORE_DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Stores", "version": "1"},
    "paths": {
        "/stores/{storeId}/pets": {
            "parameters": [{"name": "storeId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "post": {"operationId": "createPet", "responses": {"200": {"description": "ok"}}},
        },
        "/stores/{storeId}/pets/{petId}": {
            "parameters": [{"name": "storeId", "in": "path", "required": True, "schema": {"type": "string"}},
                           {"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "delete": {"operationId": "deletePet", "responses": {"200": {"description": "ok"}}},
        },
    },
}


@pytest.fixture
def store_service() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """Answers a POST with a list for the id, anything else with ok."""
    with json_service(lambda method, path: b'{"id": ["7", "8"]}' if method == "POST" else b'{"ok": true}') \
            as (base, seen):
        yield base, seen


async def test_a_revert_argument_that_breaks_the_schema_sends_nothing(
        make_runtime: RuntimeFactory, store_service: tuple[str, list[tuple[str, str]]]) -> None:
    base, seen = store_service
    reverts = {"createPet": {"method": "deletePet", "args": {"storeId": "$args.storeId", "petId": "$result.id"}}}
    rt = make_runtime([OpenApiConnector("stores", STORE_DOCUMENT, base_url=base, requires_approval=False,
                                        reverts=reverts)])
    out = await rt.execute("stores.createPet(storeId='s1')")
    assert out["status"] == "completed", out
    with contextlib.suppress(Exception):  # a revert refused before sending is the right outcome
        await rt.rollback(out["execution_id"])
    deletes = [path for method, path in seen if method == "DELETE"]
    assert deletes == [], f"the rollback sent {deletes}"
