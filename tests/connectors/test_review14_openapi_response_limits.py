"""An OpenAPI service's answer is read without a size or time bound (review 14).

``OpenApiConnector.request`` (connectors/openapi.py) awaits ``httpx.AsyncClient.request``, which
reads the whole body into the host's memory before ``_decode`` looks at it; only afterwards does
the runtime refuse a result over ``codec.MAX_VALUE_CHARS`` (1,000,000 characters). A service (the
threat model's hostile connector) that answers 300 MB made the host read all 300 MB (peak RSS
978 MB with the in-process executor) for a call whose value could never exceed 1 MB; a few GB end
the kernel. And ``timeout`` (README: "seconds per request") is httpx's timeout between two reads,
not for the request: a service that sends a byte every 0.3 s held a ``timeout = 2`` call for 30 s,
and one that never stops holds the pass (and the kernel's cell) for as long as it likes.

The right outcome: the connector stops reading once the body passes what a call's value may hold
(an error naming the limit, the connection dropped) and a request that has not finished within
``timeout`` ends as the timeout error the connector already words.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory
from tests.support import http_service

pytestmark = pytest.mark.anyio

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Feed", "version": "1"},
    "paths": {"/feed": {"get": {"operationId": "getFeed", "responses": {"200": {"description": "ok"}}}}},
}

MB = 2**20


class Sent:
    """How many body bytes the service managed to write before the client went away."""

    def __init__(self) -> None:
        self.bytes = 0


def _serve(body: Callable[[Any, Sent], None]) -> Iterator[tuple[str, Sent]]:
    sent = Sent()
    # An OSError while it writes (the client closed the connection: what a bounded reader does) ends the answer.
    with http_service(lambda handler: body(handler, sent), http11=True) as base:
        yield base, sent


def _huge(handler: Any, sent: Sent) -> None:
    """256 MB of text, announced with its length."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", str(256 * MB))
    handler.end_headers()
    chunk = b"a" * MB
    for _ in range(256):
        handler.wfile.write(chunk)
        sent.bytes += len(chunk)


def _trickle(handler: Any, sent: Sent) -> None:
    """40 bytes, one every 0.25 s (10 s in all): never 2 s without a byte."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "40")
    handler.end_headers()
    for _ in range(40):
        handler.wfile.write(b"a")
        handler.wfile.flush()
        sent.bytes += 1
        time.sleep(0.25)


@pytest.fixture
def huge_service() -> Iterator[tuple[str, Sent]]:
    yield from _serve(_huge)


@pytest.fixture
def trickle_service() -> Iterator[tuple[str, Sent]]:
    yield from _serve(_trickle)


async def test_a_huge_answer_is_not_read_whole_into_the_host(
        make_runtime: RuntimeFactory, huge_service: tuple[str, Sent]) -> None:
    """It is an error if the host reads 256 MB of an answer whose value may hold at most 1,000,000 characters."""
    base, sent = huge_service
    rt = make_runtime([OpenApiConnector("feed", DOCUMENT, base_url=base)])
    out = await rt.execute("r = feed.getFeed()\nlen(r)")
    assert out["status"] == "error", out
    assert sent.bytes < 64 * MB, f"the host read {sent.bytes / MB:.0f} MB of the answer before refusing it"


async def test_a_trickling_answer_ends_at_the_request_timeout(
        make_runtime: RuntimeFactory, trickle_service: tuple[str, Sent]) -> None:
    """It is an error if a ``timeout=2`` request goes on until a service that sends a byte every 0.25 s stops."""
    base, sent = trickle_service
    rt = make_runtime([OpenApiConnector("feed", DOCUMENT, base_url=base, timeout=2)])
    out = await rt.execute("feed.getFeed()")
    assert out["status"] == "error", out
    assert "timeout" in str(out.get("error")), out
    assert sent.bytes < 40, "the whole trickle was read"
