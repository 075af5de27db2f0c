"""A service's deeply nested JSON answer makes a call that ran look failed (review 14).

``codec.loads_data`` (codec.py:381) is ``json.loads``, which raises ``RecursionError`` (not a
``ValueError``) for an array nested past the interpreter's recursion limit. The OpenAPI
connector's ``_decode`` (openapi.py:522-528) and the MCP connector's ``_parse_text``
(mcp.py:~600) keep the text only for ``ValueError``, so a POST that the service applied and then
answered with ``[[[[...]]]]`` (100,000 levels, 200 kB) ends ``ConnectorError: RecursionError:
maximum recursion depth exceeded while decoding a JSON array`` and its journal entry is ``error``:
rollback skips it, and the model is told the call failed. Review 13 (H2) named this road; the
150-level answer it also named is now ``applied``, this one is not.

The same road, by the answer's charset: ``_decode`` reads a ``text/*`` body (and a JSON body it
cannot parse) with ``response.text``, which decodes with the charset the service names, and a
charset such as ``utf-16`` (bytes without a BOM: ``UnicodeError``), ``rot13`` (``TypeError``),
``hex`` (``AssertionError``) or ``undefined`` raises from inside the connector after the POST ran.

The right outcome: the call that ran is recorded ``applied`` (its answer kept as text, as for any
other body that is not JSON data, or not kept with a note).
"""

from __future__ import annotations

import contextlib
import http.server
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory
from tests.support import http_service, json_service, send

pytestmark = pytest.mark.anyio

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Stats", "version": "1"},
    "paths": {"/records": {"post": {"operationId": "record", "responses": {"200": {"description": "ok"}}}}},
}
DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.fixture
def service() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    with json_service(lambda method, path: DEEP) as (base, seen):
        yield base, seen


async def test_a_deeply_nested_answer_leaves_the_call_applied(
        make_runtime: RuntimeFactory, service: tuple[str, list[tuple[str, str]]]) -> None:
    """It is an error if the approved POST reached the service once and its entry is not ``applied``."""
    base, seen = service
    rt = make_runtime([OpenApiConnector("stats", DOCUMENT, base_url=base)])
    out = await rt.execute("r = stats.record()\n'done'")
    assert out["status"] == "paused", out
    await rt.approve(out["execution_id"], seq=out["pending"][0]["seq"])
    assert seen == [("POST", "/records")], seen
    state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [e.state for e in state.log] == ["applied"], [(e.seq, e.state, e.error) for e in state.log]


@contextlib.contextmanager
def _text_service(charset: str) -> Iterator[tuple[str, list[str]]]:
    """A service that answers every POST 200 with ``text/plain; charset=<charset>`` and the body ``ok``."""
    seen: list[str] = []

    def respond(handler: http.server.BaseHTTPRequestHandler) -> None:
        seen.append(handler.path)
        send(handler, b"ok", content_type=f"text/plain; charset={charset}")

    with http_service(respond) as base:
        yield base, seen


@pytest.mark.parametrize("charset", ["utf-16", "rot13", "hex", "undefined"])
async def test_an_undecodable_charset_leaves_the_call_applied(make_runtime: RuntimeFactory, charset: str) -> None:
    """It is an error if the approved POST reached the service once and its entry is not ``applied``."""
    with _text_service(charset) as (base, seen):
        rt = make_runtime([OpenApiConnector("stats", DOCUMENT, base_url=base)])
        out = await rt.execute("r = stats.record()\n'done'")
        assert out["status"] == "paused", out
        await rt.approve(out["execution_id"], seq=out["pending"][0]["seq"])
        assert seen == ["/records"], seen
        state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [e.state for e in state.log] == ["applied"], [(e.seq, e.state, e.error) for e in state.log]
