"""A path parameter cannot move an OpenAPI request to another path (review 13).

``OpenApiConnector.request`` puts a path parameter into the operation's path with
``quote(value, safe="")``: ``/`` becomes ``%2F``, but ``.`` is never quoted, so the values ``..``
and ``.`` stay dot segments, and httpx resolves them (RFC 3986 remove_dot_segments) before it
sends the request. ``pets.getPhoto(petId="7", photoId="..")`` asks ``GET /pets/7/photos/..``, and
the service receives ``GET /pets/7``: an operation the connector never exposed for that call
(with ``include``/``exclude``, one it does not expose at all). For ``DELETE
/pets/{petId}/photos/{photoId}`` the person approves ``deletePhoto(petId='7', photoId='..')``
and the service deletes pet 7: the approved call is not the request that is sent.

The right outcome: either the request goes to the operation's own path (the dots as data,
``%2E%2E``) or the call is refused before anything is sent; never a request to another path.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory

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


class _Recorder(BaseHTTPRequestHandler):
    seen: list[tuple[str, str]]

    def _answer(self) -> None:
        self.seen.append((self.command, self.path))
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_DELETE = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def service() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    seen: list[tuple[str, str]] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


DOTS = {"dot dot": "..", "dot": "."}


@pytest.mark.xfail(strict=True, reason="review 13: a path parameter '..' or '.' moves the request to another path")
@pytest.mark.parametrize("value", DOTS.values(), ids=DOTS.keys())
async def test_a_path_parameter_of_dots_stays_in_the_operations_path(
        make_runtime: RuntimeFactory, service: tuple[str, list[tuple[str, str]]], value: str) -> None:
    """It is an error if getPhoto(photoId='..') reaches the service as a request outside /pets/7/photos/."""
    base, seen = service
    rt = make_runtime([OpenApiConnector("pets", DOCUMENT, base_url=base, include=["getPhoto"])])
    out = await rt.execute(f"pets.getPhoto(petId='7', photoId={value!r})")
    assert out["status"] in ("completed", "error"), out
    assert all(path.startswith("/pets/7/photos/") for _method, path in seen), seen


@pytest.mark.xfail(strict=True, reason="review 13: an approved deletePhoto(photoId='..') deletes the pet")
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
