"""A POST answered 502/504 by a gateway is recorded as a call that did not happen (review 15).

Review 14 H5 made a request that was sent and got no answer an unknown outcome
(``OutcomeUnknown``: entry ``executing``, never run again, skipped by rollback, no "try again").
The same situation reaches the connector as an *answer* when a proxy or gateway stands in front
of the service (every cloud load balancer, API gateway, nginx): the upstream got the request and
did not answer in time, and the gateway says ``504 Gateway Timeout`` (or ``502 Bad Gateway`` when
the upstream connection broke mid-request). ``OpenApiConnector.request`` (openapi.py, ``if not ok``)
raises a plain ConnectorError for every non-2xx answer, so the runtime records the approved POST
``error``: "did not happen" to rollback, to the person and to the model, which may send it again.

The right outcome: for a method that is not safe (POST, PUT, PATCH, DELETE), a 502 or 504 is an
unknown outcome as a timeout is: the entry is not ``error``.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Bank", "version": "1"},
    "paths": {"/payments": {"post": {"operationId": "pay", "responses": {"200": {"description": "ok"}}}}},
}


@pytest.fixture(params=[504, 502])
def gateway(request: pytest.FixtureRequest) -> Iterator[tuple[str, list[str]]]:
    """A service behind a gateway: the payment is made, and the gateway gives up on the answer."""
    made: list[str] = []
    status = request.param

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            made.append(self.path)
            body = b"<html><body><h1>Gateway Timeout</h1></body></html>"
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", made
    finally:
        server.shutdown()
        server.server_close()


async def test_a_payment_the_gateway_gave_up_on_is_not_recorded_as_failed(
        make_runtime: RuntimeFactory, gateway: tuple[str, list[str]]) -> None:
    base, made = gateway
    rt = make_runtime([OpenApiConnector("bank", DOCUMENT, base_url=base)])
    out = await rt.execute("bank.pay()")
    assert out["status"] == "paused", out
    out = await rt.approve(out["execution_id"], seq=0)
    assert made == ["/payments"], "the service received the payment once"
    state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [e.state for e in state.log] == ["executing"], [(e.seq, e.state, e.error) for e in state.log]
    assert "try again" not in str(out.get("error", "")).lower(), out
