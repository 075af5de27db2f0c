"""OpenAPI answers and paths (s15o, items 1-3), against a real HTTP server on 127.0.0.1.

1. An answer over ``max_response_bytes`` to a request that was done (POST, PUT, PATCH, DELETE; HTTP 2xx)
   was an error, so the journal recorded as never done a request the service had done, and rollback
   skipped it. The right outcome: the call is ``applied``, its value says the body was not kept (status,
   the headers that say what was made, a note naming ``max_response_bytes`` and how to raise it), a
   replay gives the same value without sending again, and rollback reverts it. A GET or HEAD over the
   limit stays an error: nothing was done, and the program can ask for less.
2. A gzip answer was decoded by httpx a whole received chunk at a time: one 64 KB chunk of zeros is
   ~66 MB in the host before the limit applied. The right outcome: memory stays near the limit.
3. A ``?`` or ``#`` in an API's path key (and a query in ``base_url``) began the query or the fragment,
   and the path parameters after it went there: ``DELETE /files#{name}`` sent ``DELETE /files``. The
   right outcome: the request goes to the literal path, each parameter inside its own segment.
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import json
import threading
import tracemalloc
import zlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import pytest

from codemode_kernel import OpenApiConnector
from codemode_kernel.errors import ConnectorError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

BIG = 6_000  # bytes of an answer, over the limit the tests set
LIMIT = 1_000


def _op(method: str, op_id: str, params: tuple[str, ...] = ()) -> dict[str, Any]:
    op: dict[str, Any] = {"operationId": op_id, "responses": {"200": {"description": "ok"}}}
    if params:
        op["parameters"] = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                            for p in params]
    if method in ("post", "put", "patch"):
        op["requestBody"] = {"content": {"application/json": {"schema": {
            "type": "object", "properties": {"name": {"type": "string"}}}}}}
    return {method: op}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Reports", "version": "1"},
    "paths": {
        "/reports": {**_op("post", "makeReport"), **_op("get", "listReports")},
        "/reports/{id}": {**_op("put", "putReport", ("id",)), **_op("patch", "patchReport", ("id",)),
                          **_op("delete", "deleteReport", ("id",)), **_op("get", "getReport", ("id",))},
        "/bomb": _op("get", "getBomb"),
        "/small": {**_op("get", "getGzip"), **_op("post", "postDeflate")},
        "/files#{name}": _op("delete", "deleteFile", ("name",)),
        "/search?{q}": _op("get", "search", ("q",)),
        "/pets/{petId}": _op("get", "getPet", ("petId",)),
    },
}


class Service:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.base = ""


def _bomb(size: int) -> bytes:
    co = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b"\0" * 2**20
    return b"".join([*(co.compress(block) for _ in range(size // 2**20)), co.flush()])


BOMB = _bomb(256 * 2**20)  # 256 MB of zeros, ~250 kB of gzip


@pytest.fixture(scope="module")
def service() -> Iterator[Service]:
    state = Service()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            state.seen.append((self.command, self.path))
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            headers = {"Content-Type": "application/json"}
            if self.path.startswith("/bomb"):
                body, headers["Content-Encoding"] = BOMB, "gzip"
            elif self.path.startswith("/small") and self.command == "GET":
                body, headers["Content-Encoding"] = gzip.compress(b'{"ok": "gzip"}'), "gzip"
            elif self.path.startswith("/small"):
                body, headers["Content-Encoding"] = zlib.compress(b'{"ok": "deflate"}'), "deflate"
            elif self.path.startswith("/reports") and self.command != "DELETE":
                body = b'{"rows": "' + b"r" * BIG + b'"}'
                headers["Location"] = "/reports/42"
                headers["ETag"] = '"v1"'
                headers["X-Internal"] = "not for the program"
            else:
                body = b'{"ok": true}'
            status = 201 if self.command == "POST" else 200
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _answer

        def handle(self) -> None:
            with contextlib.suppress(OSError):  # a client that stops reading (a bounded reader) resets
                super().handle()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _connector(service: Service, **kwargs: Any) -> OpenApiConnector:
    conn = OpenApiConnector("reports", DOCUMENT, base_url=service.base, requires_approval=False,
                            reverts={"makeReport": {"method": "deleteReport", "args": {"id": "$args.name"}}},
                            **kwargs)
    conn.max_response_bytes = LIMIT
    return conn


# -- 1. an oversized answer to a request that was done ----------------------------------------------


@pytest.mark.parametrize(("code", "method", "path"), [
    ("reports.makeReport(name='q3')", "POST", "/reports"),
    ("reports.putReport(id='7', name='q3')", "PUT", "/reports/7"),
    ("reports.patchReport(id='7', name='q3')", "PATCH", "/reports/7"),
])
async def test_an_oversized_answer_to_a_done_request_is_a_value(
        make_runtime: RuntimeFactory, service: Service, code: str, method: str, path: str) -> None:
    """It is an error if a request the service did (HTTP 2xx) is journaled ``error`` because its answer was
    over max_response_bytes, or if the program is not told the status, where the result is and the limit."""
    rt = make_runtime([_connector(service)])
    before = len(service.seen)
    out = await rt.execute(f"r = {code}\nr")
    assert service.seen[before:] == [(method, path)]
    assert out["status"] == "completed", out
    value = out["result"]
    assert value["status"] == (201 if method == "POST" else 200)
    assert value["body"] is None and value["body_bytes_at_least"] > LIMIT
    assert value["headers"]["location"] == "/reports/42" and value["headers"]["etag"] == '"v1"'
    assert "x-internal" not in value["headers"]
    assert "max_response_bytes" in value["note"] and f"{LIMIT:,}" in value["note"] and "raise" in value["note"]
    state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [e.state for e in state.log] == ["applied"], [(e.seq, e.state, e.error) for e in state.log]


async def test_the_not_kept_value_replays_and_rolls_back(make_runtime: RuntimeFactory, service: Service) -> None:
    """It is an error if a later pass sends the request again, sees another value, or rollback skips it."""
    conn = OpenApiConnector("reports", DOCUMENT, base_url=service.base, requires_approval=["getPet"],
                            no_approval=["makeReport"],
                            reverts={"makeReport": {"method": "deleteReport", "args": {"id": "$args.name"}}})
    conn.max_response_bytes = LIMIT
    rt = make_runtime([conn])
    before = len(service.seen)
    out = await rt.execute("r = reports.makeReport(name='q4')\nreports.getPet(petId='1')\nr")
    assert out["status"] == "paused", out
    out2 = await rt.approve(out["execution_id"])
    assert out2["status"] == "completed", out2
    assert service.seen[before:] == [("POST", "/reports"), ("GET", "/pets/1")], "the POST was sent once"
    assert out2["result"]["status"] == 201 and out2["result"]["body"] is None
    await rt.rollback(out["execution_id"])
    assert service.seen[before:][-1] == ("DELETE", "/reports/q4"), "rollback reverted the POST"


@pytest.mark.parametrize("code", ["reports.listReports()", "reports.getReport(id='7')"])
async def test_an_oversized_answer_to_a_get_stays_an_error(
        make_runtime: RuntimeFactory, service: Service, code: str) -> None:
    """It is an error if a GET over the limit (nothing done) is a value instead of an error naming the limit."""
    rt = make_runtime([_connector(service)])
    out = await rt.execute(code)
    assert out["status"] == "error", out
    assert "max_response_bytes" in str(out["error"])


async def test_max_response_bytes_is_a_configuration_key(service: Service, tmp_path: Any) -> None:
    """It is an error if the note's advice (max_response_bytes in the connector's table) cannot be followed."""
    (tmp_path / "doc.json").write_text(json.dumps(DOCUMENT))
    conn = OpenApiConnector.from_config("reports", {"openapi": "doc.json", "base_url": service.base,
                                                    "max_response_bytes": 12_345}, tmp_path)
    assert conn.max_response_bytes == 12_345


# -- 2. a gzip bomb ---------------------------------------------------------------------------------


async def test_a_gzip_bomb_is_refused_with_memory_near_the_limit(service: Service) -> None:
    """It is an error if the host holds far more than max_response_bytes of a gzip answer at once: 256 MB of
    zeros in ~250 kB of gzip, read with the default limit (8,000,000 bytes)."""
    conn = OpenApiConnector("reports", DOCUMENT, base_url=service.base)
    await conn.tools()
    tracemalloc.start()
    try:
        with pytest.raises(ConnectorError, match="max_response_bytes"):
            await conn.request(conn._operations["getBomb"], {})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        await conn.aclose()
    assert peak < 3 * conn.max_response_bytes, f"peak traced memory {peak / 2**20:.0f} MB"


async def test_gzip_and_deflate_answers_are_still_decoded(service: Service) -> None:
    """It is an error if a gzip or deflate answer is no longer decoded."""
    conn = OpenApiConnector("reports", DOCUMENT, base_url=service.base, requires_approval=False)
    await conn.tools()
    try:
        assert await conn.request(conn._operations["getGzip"], {}) == {"ok": "gzip"}
        assert await conn.request(conn._operations["postDeflate"], {}) == {"ok": "deflate"}
    finally:
        await conn.aclose()


# -- 3. the path's shape ----------------------------------------------------------------------------


async def test_a_hash_or_question_mark_in_a_path_key_stays_in_the_path(service: Service) -> None:
    """It is an error if ``DELETE /files#{name}`` reaches the service as ``DELETE /files`` (the name in a
    fragment, never sent), or ``/search?{q}`` puts the parameter in the query."""
    conn = OpenApiConnector("reports", DOCUMENT, base_url=service.base, requires_approval=False)
    await conn.tools()
    try:
        before = len(service.seen)
        await conn.request(conn._operations["deleteFile"], {"name": "a.txt"})
        await conn.request(conn._operations["search"], {"q": "cats"})
    finally:
        await conn.aclose()
    assert service.seen[before:] == [("DELETE", "/files%23a.txt"), ("GET", "/search%3Fcats")]


async def test_a_query_in_base_url_goes_after_the_path(service: Service) -> None:
    """It is an error if base_url's query swallows the operation's path (``/v1?v=2/pets/7``)."""
    conn = OpenApiConnector("reports", DOCUMENT, base_url=service.base + "/v1?v=2", requires_approval=False)
    await conn.tools()
    try:
        before = len(service.seen)
        await conn.request(conn._operations["getPet"], {"petId": "7"})
    finally:
        await conn.aclose()
    assert service.seen[before:] == [("GET", "/v1/pets/7?v=2")]


@pytest.mark.parametrize("value", ["a?b", "a#b", "..%2F", "%2E%2E", "%3F", "%23", "a\\b", "..\\..", "%", "a/b",
                                   ".%2E", "%252F", "x?y=1#z"])
async def test_a_path_parameter_is_one_segment_holding_its_literal_text(service: Service, value: str) -> None:
    """It is an error if a path parameter's value changes the path's shape or adds a query or a fragment:
    the service must see one segment that decodes (once) to the value as written."""
    conn = OpenApiConnector("reports", DOCUMENT, base_url=service.base)
    await conn.tools()
    try:
        before = len(service.seen)
        await conn.request(conn._operations["getPet"], {"petId": value})
    finally:
        await conn.aclose()
    [(method, path)] = service.seen[before:]
    assert method == "GET" and path.startswith("/pets/")
    segment = path.removeprefix("/pets/")
    assert "/" not in segment and "?" not in segment and "#" not in segment and "\\" not in segment
    assert unquote(segment) == value
