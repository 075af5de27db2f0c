"""A path parameter cannot move an OpenAPI request to another path (review 13).

``OpenApiConnector.request`` puts a path parameter into the operation's path with
``quote(value, safe="")``: ``/`` becomes ``%2F``, but ``.`` is never quoted, so the values ``..``
and ``.`` stay dot segments, and httpx resolves them (RFC 3986 remove_dot_segments) before it
sends the request. ``pets.getPhoto(petId="7", photoId="..")`` asks ``GET /pets/7/photos/..``, and
the service receives ``GET /pets/7``: an operation the connector never exposed for that call
(with ``include``/``exclude``, one it does not expose at all). For ``DELETE
/pets/{petId}/photos/{photoId}`` the person approves ``deletePhoto(petId='7', photoId='..')``
and the service deletes pet 7: the approved call is not the request that is sent.

An empty value is let through too (only a missing or None one is refused): ``deletePhoto(petId='7',
photoId='')`` sends ``DELETE /pets/7/photos/``, which many services route to the collection.

A configured revert renders its arguments from the call's result (``petId = "$result.id"``), so a
service that answers ``{"id": ".."}`` steers the rollback (which asks no approval) to ``DELETE
/stores/s1``.

The right outcome: either the request goes to the operation's own path (the dots as data,
``%2E%2E``) or the call is refused before anything is sent; never a request to another path.
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

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1"},
    "paths": {
        "/pets/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {"operationId": "getPet", "responses": {"200": {"description": "ok"}}},
            "delete": {"operationId": "deletePet", "responses": {"200": {"description": "ok"}}},
        },
        "/pets/{petId}/photos/{photoId}": {
            "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}},
                           {"name": "photoId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {"operationId": "getPhoto", "responses": {"200": {"description": "ok"}}},
            "delete": {"operationId": "deletePhoto", "responses": {"200": {"description": "ok"}}},
        },
    },
}


@pytest.fixture
def service() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    with json_service() as (base, seen):
        yield base, seen


DOTS = {"dot dot": "..", "dot": "."}


@pytest.mark.parametrize("value", DOTS.values(), ids=DOTS.keys())
async def test_a_path_parameter_of_dots_stays_in_the_operations_path(
        make_runtime: RuntimeFactory, service: tuple[str, list[tuple[str, str]]], value: str) -> None:
    """It is an error if getPhoto(photoId='..') reaches the service as a request outside /pets/7/photos/."""
    base, seen = service
    rt = make_runtime([OpenApiConnector("pets", DOCUMENT, base_url=base, include=["getPhoto"])])
    out = await rt.execute(f"pets.getPhoto(petId='7', photoId={value!r})")
    assert out["status"] in ("completed", "error"), out
    assert all(path.startswith("/pets/7/photos/") for _method, path in seen), seen


async def test_the_approved_delete_is_the_request_that_is_sent(
        make_runtime: RuntimeFactory, service: tuple[str, list[tuple[str, str]]]) -> None:
    """It is an error if approving deletePhoto(petId='7', photoId='..') sends DELETE /pets/7."""
    base, seen = service
    rt = make_runtime([OpenApiConnector("pets", DOCUMENT, base_url=base)])
    out = await rt.execute("pets.deletePhoto(petId='7', photoId='..')")
    assert out["status"] == "paused", out
    assert out["pending"][0]["method"] == "deletePhoto"
    await rt.approve(out["execution_id"], seq=out["pending"][0]["seq"])
    assert ("DELETE", "/pets/7") not in seen, seen
    assert all(path.startswith("/pets/7/photos/") for _method, path in seen), seen


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
    """Answers a POST with the id '..' (a buggy or hostile service), anything else with ok."""
    with json_service(lambda method, path: b'{"id": ".."}' if method == "POST" else b'{"ok": true}') as (base, seen):
        yield base, seen


async def test_a_revert_argument_from_the_result_stays_in_the_operations_path(
        make_runtime: RuntimeFactory, store_service: tuple[str, list[tuple[str, str]]]) -> None:
    """It is an error if rolling back createPet (result id '..') sends DELETE /stores/s1 (no approval is asked)."""
    base, seen = store_service
    reverts = {"createPet": {"method": "deletePet", "args": {"storeId": "$args.storeId", "petId": "$result.id"}}}
    rt = make_runtime([OpenApiConnector("stores", STORE_DOCUMENT, base_url=base, requires_approval=False,
                                        reverts=reverts)])
    out = await rt.execute("stores.createPet(storeId='s1')")
    assert out["status"] == "completed", out
    with contextlib.suppress(Exception):  # a revert refused before sending is a right outcome
        await rt.rollback(out["execution_id"])
    deletes = [path for method, path in seen if method == "DELETE"]
    assert all(path.startswith("/stores/s1/pets/") for path in deletes), deletes


async def test_an_empty_path_parameter_is_refused(
        make_runtime: RuntimeFactory, service: tuple[str, list[tuple[str, str]]]) -> None:
    """It is an error if deletePhoto(petId='7', photoId='') sends DELETE /pets/7/photos/ (the whole collection)."""
    base, seen = service
    rt = make_runtime([OpenApiConnector("pets", DOCUMENT, base_url=base, requires_approval=False)])
    await rt.execute("pets.deletePhoto(petId='7', photoId='')")
    assert all(path.rstrip("/").count("/") == 4 for _method, path in seen), seen
