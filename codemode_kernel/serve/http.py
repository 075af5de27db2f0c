"""``codemode mcp --http HOST:PORT``: the MCP server over streamable HTTP, behind a bearer token (issue 15).

The SDK's streamable-HTTP app (Starlette) runs under uvicorn. Every HTTP request must carry
``Authorization: Bearer <token>``; the comparison is constant-time (``hmac.compare_digest``).
The token comes from ``CODEMODE_MCP_TOKEN`` (never from the command line, where ``ps`` shows
it); without one a token is generated and printed to stderr for the person starting the
server. The server binds to loopback unless ``--allow-remote`` says otherwise: a bearer token
over plain HTTP on a network is readable by anyone on the path (put TLS in front). On loopback
the SDK also checks the ``Host`` header (DNS rebinding).

Rejected: the SDK's OAuth machinery (an authorization server for one local user is ceremony);
a token on the command line (visible to every user of the machine).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import os
import secrets
from collections.abc import Callable, Mapping
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from codemode_kernel.errors import UsageError
from codemode_kernel.runtime import CodemodeRuntime
from codemode_kernel.serve.server import availability_hints, build_mcp_server

TOKEN_ENV = "CODEMODE_MCP_TOKEN"
MIN_TOKEN_CHARS = 16
PATH = "/mcp"


def parse_bind(text: str, *, allow_remote: bool = False) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; port 0 picks a free one); non-loopback hosts need ``allow_remote``."""
    host, sep, port_text = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise UsageError(f"--http needs HOST:PORT such as 127.0.0.1:8765 (port 0 picks a free one); got {text!r}.")
    if not allow_remote and not _loopback(host):
        raise UsageError(f"--http {text}: {host!r} is not a loopback address, so other machines could reach the "
                         "server and read its token on the wire. Bind to 127.0.0.1 (and tunnel or proxy with TLS), "
                         "or pass --allow-remote if you mean it.")
    return host, int(port_text)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_from_env(env: Mapping[str, str] | None = None) -> tuple[str, bool]:
    """The bearer token (from ``CODEMODE_MCP_TOKEN``, else a new one) and whether it was generated."""
    given = (os.environ if env is None else env).get(TOKEN_ENV, "").strip()
    if not given:
        return secrets.token_urlsafe(32), True
    if len(given) < MIN_TOKEN_CHARS:
        raise UsageError(f"{TOKEN_ENV} is {len(given)} characters long; use at least {MIN_TOKEN_CHARS} (e.g. the "
                         "output of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`), or leave it "
                         "unset to have one generated.")
    return given, False


class BearerAuth:
    """ASGI middleware: HTTP requests without the bearer token get 401 and never reach the app."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope.get("headers", ()) if k == b"authorization"), b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps({"error": "unauthorized", "error_description": (
                    "Send the codemode mcp server's token as `Authorization: Bearer <token>` (the server printed "
                    f"it when it started, or it is {TOKEN_ENV} in its environment).")}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="codemode"')]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


async def serve_http(runtime: CodemodeRuntime, host: str, port: int, token: str, *,
                     announce: Callable[[str], None], **options: Any) -> None:
    """Serve ``runtime`` on ``http://HOST:PORT/mcp`` until interrupted, then close the runtime.

    ``announce`` receives the URL once the socket listens (with the real port when ``port`` is 0).
    """
    async with runtime:
        hints = {**(options.pop("connector_hints", None) or {}), **availability_hints(runtime)}
        mcp_server = build_mcp_server(runtime, connector_hints=hints, **options)
        app = BearerAuth(mcp_server.streamable_http_app(streamable_http_path=PATH, host=host), token)
        # log_config=None: logging stays the command's own (escaped, on stderr); no access log.
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False,
                                               lifespan="on", log_level="warning"))
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.05)
        if server.started:
            bound = server.servers[0].sockets[0].getsockname()[1]
            shown = f"[{host}]" if ":" in host else host
            announce(f"http://{shown}:{bound}{PATH}")
        await task
