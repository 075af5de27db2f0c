"""A small pets-and-notes HTTP API for demos and tests, described by ``petstore.yaml``.

Run it on 127.0.0.1 (prints ``codemode demo listening on http://127.0.0.1:N``)::

    CODEMODE_DEMO_TOKEN=secret python -m codemode_kernel.demo.http_service --port 8765

Every operation except ``GET /health`` needs ``Authorization: Bearer <token>`` or
``X-API-Key: <token>``; the token is read from the variable named by ``--token-env``
(default ``CODEMODE_DEMO_TOKEN``; when it is unset the token is ``demo-token``). The
OpenAPI document is served at ``/openapi.yaml``; ``GET /_debug/requests`` (not in the
document, no auth) counts requests per operation, so tests can prove exactly-once calls.
Data lives in memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections import Counter
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from codemode_kernel.demo.serving import add_server_arguments, serve

DEFAULT_TOKEN_ENV = "CODEMODE_DEMO_TOKEN"
DEFAULT_TOKEN = "demo-token"
SPECIES = ("cat", "dog", "bird", "fish")
_OPEN_PATHS = ("/health", "/openapi.yaml", "/_debug/requests")


def document_text() -> str:
    """The OpenAPI document (YAML) of this service."""
    return resources.files("codemode_kernel.demo").joinpath("petstore.yaml").read_text(encoding="utf-8")


def _error(status: int, message: str, detail: Any = None) -> JSONResponse:
    body: dict[str, Any] = {"error": message}
    if detail is not None:
        body["detail"] = detail
    return JSONResponse(body, status_code=status)


class PetStore:
    """The service's state: pets, notes, files and request counts."""

    def __init__(self) -> None:
        self.pets: dict[int, dict[str, Any]] = {}
        self.notes: dict[int, dict[str, Any]] = {}
        self.files: dict[str, bytes] = {}
        self.next_id = 1
        self.requests: Counter[str] = Counter()

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1


def _check_new_pet(body: Any) -> str | None:
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    name, species = body.get("name"), body.get("species")
    if not isinstance(name, str) or not name:
        return "name must be a non-empty string"
    if species not in SPECIES:
        return f"species must be one of {', '.join(SPECIES)}"
    tags = body.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return "tags must be a list of strings"
    return None


def create_app(token: str, store: PetStore | None = None) -> ASGIApp:
    """The ASGI app; ``token`` is the bearer token / API key it accepts."""
    state = store or PetStore()

    async def json_body(request: Request) -> Any:
        raw = await request.body()
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return ...

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def openapi(request: Request) -> Response:
        return PlainTextResponse(document_text(), media_type="application/yaml")

    async def debug_requests(request: Request) -> Response:
        return JSONResponse(dict(state.requests))

    async def list_pets(request: Request) -> Response:
        params = request.query_params
        try:
            limit = int(params.get("limit", "20"))
        except ValueError:
            return _error(422, "limit must be an integer")
        species = params.get("species")
        tags = params.getlist("tag")
        pets = [p for p in state.pets.values()
                if (species is None or p["species"] == species) and all(t in p["tags"] for t in tags)]
        return JSONResponse(pets[:limit])

    async def create_pet(request: Request) -> Response:
        body = await json_body(request)
        problem = _check_new_pet(body)
        if problem:
            return _error(422, problem)
        pet = {"id": state.new_id(), "name": body["name"], "species": body["species"], "tags": body.get("tags", []),
               "birthday": body.get("birthday"), "created_at": datetime.now(UTC).isoformat(timespec="seconds")}
        if "category" in body:
            pet["category"] = body["category"]
        state.pets[pet["id"]] = pet
        return JSONResponse(pet, status_code=201)

    async def search_pets(request: Request) -> Response:
        body = await json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("query"), str):
            return _error(422, "query must be a string")
        species = body.get("species") or list(SPECIES)
        found = [p for p in state.pets.values()
                 if body["query"].lower() in p["name"].lower() and p["species"] in species]
        return JSONResponse(found)

    def pet_or_404(request: Request) -> dict[str, Any] | Response:
        try:
            pet_id = int(request.path_params["petId"])
        except ValueError:
            return _error(422, "petId must be an integer")
        pet = state.pets.get(pet_id)
        return pet if pet is not None else _error(404, f"no pet with id {pet_id}")

    async def pet_item(request: Request) -> Response:
        pet = pet_or_404(request)
        if isinstance(pet, Response):
            return pet
        if request.method == "GET":
            return JSONResponse(pet)
        if request.method == "DELETE":
            del state.pets[pet["id"]]
            return Response(status_code=204)
        body = await json_body(request)
        if not isinstance(body, dict) or not body:
            return _error(422, "the body must be a non-empty JSON object")
        for key in ("name", "tags"):
            if key in body:
                pet[key] = body[key]
        return JSONResponse(pet)

    async def pet_card(request: Request) -> Response:
        pet = pet_or_404(request)
        if isinstance(pet, Response):
            return pet
        return PlainTextResponse(f"{pet['name']} the {pet['species']}")

    async def notes(request: Request) -> Response:
        if request.method == "GET":
            pinned = request.query_params.get("pinned")
            items = [n for n in state.notes.values() if pinned is None or n["pinned"] == (pinned == "true")]
            return JSONResponse(items[: int(request.query_params.get("limit", "20"))])
        body = await json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("text"), str):
            return _error(422, "text must be a string")
        note = {"id": state.new_id(), "text": body["text"], "pinned": bool(body.get("pinned", False))}
        state.notes[note["id"]] = note
        return JSONResponse(note, status_code=201)

    async def note_item(request: Request) -> Response:
        note_id = int(request.path_params["noteId"])
        if state.notes.pop(note_id, None) is None:
            return _error(404, f"no note with id {note_id}")
        return Response(status_code=204)

    async def echo(request: Request) -> Response:
        body = await json_body(request)
        headers = {k: v for k, v in request.headers.items()
                   if k.lower() not in ("authorization", "x-api-key", "host", "content-length", "user-agent",
                                        "accept-encoding", "connection", "accept")}
        return JSONResponse({
            "word": request.path_params["word"],
            "query": {k: request.query_params.getlist(k) for k in request.query_params},
            "headers": headers,
            "cookies": dict(request.cookies),
            "body": None if body is ... else body,
        })

    async def contact_form(request: Request) -> Response:
        form = await request.form()
        return JSONResponse({"content_type": request.headers.get("content-type", ""),
                             "form": {k: str(v) for k, v in form.items()}})

    async def files(request: Request) -> Response:
        name = request.path_params["name"]
        if request.method == "PUT":
            state.files[name] = await request.body()
            return JSONResponse({"name": name, "size": len(state.files[name])})
        if name not in state.files:
            return _error(404, f"no file named {name!r}")
        return Response(state.files[name], media_type="application/octet-stream")

    async def slow(request: Request) -> Response:
        seconds = min(float(request.query_params.get("seconds", "1")), 30.0)
        await asyncio.sleep(seconds)
        return JSONResponse({"slept": seconds})

    async def broken(request: Request) -> Response:
        return PlainTextResponse("Internal failure: the flux capacitor is out of flux. " + "x" * 2000,
                                 status_code=500)

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/openapi.yaml", openapi, methods=["GET"]),
        Route("/_debug/requests", debug_requests, methods=["GET"]),
        Route("/pets", list_pets, methods=["GET"]),
        Route("/pets", create_pet, methods=["POST"]),
        Route("/pets/search", search_pets, methods=["POST"]),
        Route("/pets/{petId}", pet_item, methods=["GET", "PATCH", "DELETE"]),
        Route("/pets/{petId}/card", pet_card, methods=["GET"]),
        Route("/notes", notes, methods=["GET", "POST"]),
        Route("/notes/{noteId:int}", note_item, methods=["DELETE"]),
        Route("/echo/{word:path}", echo, methods=["POST"]),
        Route("/forms/contact", contact_form, methods=["POST"]),
        Route("/files/{name}", files, methods=["GET", "PUT"]),
        Route("/slow", slow, methods=["GET"]),
        Route("/broken", broken, methods=["GET"]),
    ]
    app = Starlette(routes=routes)
    accepted = {f"Bearer {token}"}

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            route = next((r.path for r in routes if r.matches(scope)[0] != Match.NONE), path)
            if path not in ("/_debug/requests", "/openapi.yaml"):
                state.requests[f"{scope['method']} {route}"] += 1
            if path not in _OPEN_PATHS:
                headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
                if headers.get("authorization") not in accepted and headers.get("x-api-key") != token:
                    response = _error(401, "missing or wrong credentials: send Authorization: Bearer <token> "
                                           "or X-API-Key: <token>")
                    await response(scope, receive, send)
                    return
        await app(scope, receive, send)

    return guarded


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m codemode_kernel.demo.http_service", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--token-env", default=DEFAULT_TOKEN_ENV,
                        help=f"variable holding the accepted token (default {DEFAULT_TOKEN_ENV})")
    add_server_arguments(parser, default_port=8765)
    args = parser.parse_args(argv)
    token = os.environ.get(args.token_env) or DEFAULT_TOKEN
    serve(create_app(token), args.host, args.port)


if __name__ == "__main__":
    main()
