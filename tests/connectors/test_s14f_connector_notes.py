"""Review 14's connector notes (s14f): openapi_mcp_server's path refuses dot segments and C1 controls, a
header value an HTTP header cannot hold is named as such (not 'Is the service running?'), configuration
problems never echo the values beside the wrong one, and an OpenAPI answer without a length is cut off at
the connector's cap; a request sent and unanswered is an unknown outcome, one refused at connect is not."""

from __future__ import annotations

import http.server
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from codemode_kernel import InProcessExecutor, McpConnector, OpenApiConnector, openapi_mcp_server
from codemode_kernel.connectors.base import ExecutionContext
from codemode_kernel.errors import ConfigurationError, ConnectorError, OutcomeUnknown
from tests.support import http_service, json_service, mute_tcp_service

pytestmark = pytest.mark.anyio

CTX = ExecutionContext("exec-1", 0, "api", "m")
SECRET = "Bearer s3cret-review14-token"

API: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "Api", "version": "1"},
    "paths": {
        "/items": {
            "get": {"operationId": "listItems", "parameters": [
                {"name": "X-Trace", "in": "header", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}}},
            "post": {"operationId": "addItem", "responses": {"200": {"description": "ok"}}}},
    },
}


async def run(connector: OpenApiConnector, method: str, **args: Any) -> Any:
    tools = await connector.tools()
    return await tools[method].execute(args, CTX)


# -- openapi_mcp_server's path ---------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/../admin", "/v1/%2e%2e/admin", "/v1/%2E%2E/admin", "/v1\\..\\admin",
                                  "/./admin", "/v1/x\x85y", "/v1/\x9b2J"])
async def test_the_wrapped_apis_path_refuses_dot_segments_and_c1_controls(path: str) -> None:
    """It is an error if ``api.request`` hands the host's ``request`` a path with a '..' segment or a C1 control."""
    seen: list[dict[str, Any]] = []

    async def request(options: dict[str, Any]) -> Any:
        seen.append(options)
        return {"ok": True}

    server = openapi_mcp_server(API, request, executor=InProcessExecutor())
    async with Client(server) as client:
        result = await client.call_tool("execute", {"code": f"api.request(method='GET', path={path!r})"})
    assert result.is_error is True, result
    assert seen == []


async def test_the_wrapped_apis_ordinary_paths_still_go_through() -> None:
    """It is an error if a path with dots inside a segment ('/files/a..b', '/.well-known') is refused."""
    seen: list[str] = []

    async def request(options: dict[str, Any]) -> Any:
        seen.append(options["path"])
        return {"ok": True}

    server = openapi_mcp_server(API, request, executor=InProcessExecutor())
    async with Client(server) as client:
        result = await client.call_tool("execute", {"code": (
            "[api.request(method='GET', path=p)['ok'] for p in ['/files/a..b', '/.well-known/x', '/v1/...']]")})
    assert isinstance(result.structured_content, dict) and result.structured_content["result"] == [True] * 3
    assert seen == ["/files/a..b", "/.well-known/x", "/v1/..."]


# -- header values ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["a\r\nX-Injected: 1", "a\x00b", " leading", "caf\u00e9", "\u65e5\u672c"])
async def test_a_header_value_a_header_cannot_hold_is_named_and_not_sent(value: str) -> None:
    """It is an error if a bad header argument reads as a service problem ('Is the service running?') or
    escapes as a bare UnicodeEncodeError, or if anything is sent."""
    with json_service() as (base, seen):
        connector = OpenApiConnector("api", API, base_url=base)
        with pytest.raises(ConnectorError) as caught:
            await run(connector, "listItems", x_trace=value)
        await connector.aclose()
    text = str(caught.value)
    assert "header parameter 'x_trace'" in text and "nothing was sent" in text, text
    assert "service running" not in text, text
    assert seen == []


# -- configuration problems ------------------------------------------------------------------------


def test_a_wrong_header_entry_is_named_without_the_other_headers(tmp_path: Path) -> None:
    """It is an error if the problem with one header's type prints a literal Authorization header beside it."""
    (tmp_path / "api.json").write_text(json.dumps(API))
    table = {"openapi": "api.json", "base_url": "http://127.0.0.1:1",
             "headers": {"Authorization": SECRET, "X-Retries": 3}}
    with pytest.raises(ConfigurationError) as caught:
        OpenApiConnector.from_config("api", table, tmp_path)
    text = str(caught.value)
    assert "s3cret" not in text, text
    assert "'X-Retries' is a number" in text, text


def test_a_wrong_mcp_argument_is_named_without_the_other_arguments(tmp_path: Path) -> None:
    """It is an error if the problem with one of mcp.args prints a literal --token=... beside it."""
    table = {"mcp": {"command": "srv", "args": ["--token=s3cret-review14-token", 7]}}
    with pytest.raises(ConfigurationError) as caught:
        McpConnector.from_config("srv", table, tmp_path)
    text = str(caught.value)
    assert "s3cret" not in text, text
    assert "item 2 is a number" in text, text


# -- answers and the outcome of a request ----------------------------------------------------------


@pytest.fixture
def chunked_feed() -> Iterator[tuple[str, list[int]]]:
    """A GET answered 200 text/plain with chunked encoding (no length), 64 MB in 64 KiB chunks."""
    sent = [0]

    def respond(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        chunk = b"a" * 65536
        for _ in range(1024):
            handler.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            sent[0] += len(chunk)
        handler.wfile.write(b"0\r\n\r\n")

    with http_service(respond, http11=True) as base:
        yield base, sent


async def test_an_answer_without_a_length_is_cut_off_at_the_cap(chunked_feed: tuple[str, list[int]]) -> None:
    """It is an error if a chunked answer is read on past ``max_response_bytes``, or refused without naming it."""
    base, sent = chunked_feed
    connector = OpenApiConnector("api", API, base_url=base)
    connector.max_response_bytes = 1_000_000
    with pytest.raises(ConnectorError) as caught:
        await run(connector, "listItems")
    await connector.aclose()
    assert "1,000,000 bytes" in str(caught.value) and "max_response_bytes" in str(caught.value), caught.value
    assert sent[0] < 32 * 2**20, f"the service wrote {sent[0]:,} bytes"


@pytest.fixture
def hangs_up() -> Iterator[tuple[str, list[bytes]]]:
    """A TCP service that reads each request and closes the connection without answering."""
    with mute_tcp_service(hang_up=True) as (base, received):
        yield base, received


async def test_a_post_the_service_hung_up_on_is_an_unknown_outcome(hangs_up: tuple[str, list[bytes]]) -> None:
    """It is an error if a POST that reached the service, which closed without answering, reads as a plain
    failure with 'Is the service running?' (the service may have done it)."""
    base, received = hangs_up
    connector = OpenApiConnector("api", API, base_url=base)
    with pytest.raises(OutcomeUnknown) as caught:
        await run(connector, "addItem")
    await connector.aclose()
    text = str(caught.value)
    assert "may have done it" in text and "try again" not in text.lower() and "running" not in text, text
    assert [r.split(b" ", 1)[0].decode() for r in received] == ["POST"]


async def test_a_refused_connection_is_a_plain_failure() -> None:
    """It is an error if a POST that could not connect (nothing sent) is reported as an unknown outcome."""
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    connector = OpenApiConnector("api", API, base_url=f"http://127.0.0.1:{port}")
    with pytest.raises(ConnectorError) as caught:
        await run(connector, "addItem")
    await connector.aclose()
    assert not isinstance(caught.value, OutcomeUnknown), caught.value
    assert "could not connect" in str(caught.value), caught.value




@pytest.fixture
def huge_document() -> Iterator[tuple[str, list[int]]]:
    """A remote OpenAPI document announced as 1 GiB, written 64 KiB at a time until the client goes."""
    sent = [0]

    def respond(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(2**30))
        handler.end_headers()
        for _ in range(2**14):
            handler.wfile.write(b" " * 65536)
            sent[0] += 65536

    with http_service(respond, http11=True) as base:
        yield f"{base}/openapi.json", sent


async def test_a_huge_remote_document_is_refused_unread(huge_document: tuple[str, list[int]]) -> None:
    """It is an error if the host reads a remote document far past what it reads of one, or does not say why."""
    url, sent = huge_document
    connector = OpenApiConnector("api", url, base_url="http://127.0.0.1:1")
    with pytest.raises(ConfigurationError) as caught:
        await connector.tools()
    await connector.aclose()
    assert "1,073,741,824 bytes" in str(caught.value) and "bytes" in str(caught.value), caught.value
    assert sent[0] < 256 * 2**20, f"the host read {sent[0]:,} bytes of the document"
