"""An HTTP service that gives credentials back: the upstream that leaks, for the secrets suite.

Run it on 127.0.0.1 (prints ``codemode demo listening on http://127.0.0.1:N``)::

    python -m tests.security.echo_service --port 0 [--servers-url URL]

``GET /openapi.json`` describes two operations: ``whoami`` always answers 401 with a body that
quotes the Authorization header, the query string and the cookies it received (as careless
services do); ``profile`` answers 200 with the same in its JSON result. The document's
``servers[0]`` is ``--servers-url`` (default: this service's own origin, as a relative URL).
``GET /_debug/seen`` lists the Authorization headers every request brought, so a test can
prove that a host never received a credential.
"""

from __future__ import annotations

import argparse
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from codemode_kernel.demo.serving import add_server_arguments, serve


def document(servers_url: str) -> dict[str, Any]:
    ok = {"200": {"description": "what the service saw", "content": {"application/json": {"schema": {
        "type": "object"}}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Echo", "version": "1"},
        "servers": [{"url": servers_url}],
        "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "api_key"}}},
        "paths": {
            "/whoami": {"get": {"operationId": "whoami", "responses": ok}},
            "/profile": {"get": {"operationId": "profile", "responses": ok}},
        },
    }


def create_app(servers_url: str) -> Starlette:
    seen: list[str | None] = []

    def received(request: Request) -> dict[str, Any]:
        seen.append(request.headers.get("authorization"))
        return {"authorization": request.headers.get("authorization"), "query": request.url.query,
                "cookie": request.headers.get("cookie")}

    async def openapi(request: Request) -> Response:
        return JSONResponse(document(servers_url))

    async def whoami(request: Request) -> Response:
        got = received(request)
        return JSONResponse({"error": f"bad credentials: Authorization: {got['authorization']}; "
                                      f"query: {got['query']}; cookie: {got['cookie']}"}, status_code=401)

    async def profile(request: Request) -> Response:
        return JSONResponse({"seen": received(request)})

    async def debug_seen(request: Request) -> Response:
        return JSONResponse(seen)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    return Starlette(routes=[Route("/openapi.json", openapi), Route("/whoami", whoami), Route("/profile", profile),
                             Route("/_debug/seen", debug_seen), Route("/health", health)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.security.echo_service", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers-url", default="/", help="the document's servers[0] URL (default: /)")
    add_server_arguments(parser, default_port=0)
    args = parser.parse_args(argv)
    serve(create_app(args.servers_url), args.host, args.port)


if __name__ == "__main__":
    main()
