"""A request that timed out after it was sent is recorded as failed and the program is told to retry (review 14).

When an OpenAPI request times out (``httpx.TimeoutException``, connectors/openapi.py) the
connector raises ``ConnectorError: ... got no answer within N s (timeout). Try again later, or
raise `timeout` ...`` and the runtime records the call's entry as ``error``. But a read timeout
comes after the request was sent: the service may have applied it (a payment made, its answer
slow). The journal then says the approved call failed (rollback skips it), and the text tells the
program, and the model reading the outcome, to send it again: a second payment, approved by a
person who was told the first one failed. The MCP connector words its timeout the same way
("did not answer within N s (timeout). Try again"). README's own rule for an unknown outcome (a
host crash mid-call) is the opposite: the entry stays ``executing``, never run again, and
connectors key side effects by ``ctx.idempotency_key`` (which a new execution does not share).

The right outcome: a call whose request may have reached the service is not recorded as a
failure, and its error does not invite a retry (it says the outcome is unknown).
"""

from __future__ import annotations

import http.server
import time
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory
from tests.support import http_service, send

pytestmark = pytest.mark.anyio

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Bank", "version": "1"},
    "paths": {"/payments": {"post": {"operationId": "pay", "responses": {"200": {"description": "ok"}}}}},
}


@pytest.fixture
def slow_bank() -> Iterator[tuple[str, list[str]]]:
    """A service that makes the payment at once and answers after 2.5 s."""
    made: list[str] = []

    def respond(handler: http.server.BaseHTTPRequestHandler) -> None:
        made.append(handler.path)
        time.sleep(2.5)
        send(handler, b"{}")

    with http_service(respond) as base:
        yield base, made


async def test_a_timed_out_payment_is_not_recorded_as_failed(make_runtime: RuntimeFactory,
                                                             slow_bank: tuple[str, list[str]]) -> None:
    """It is an error if the approved payment the service made is journaled 'error' and the outcome says to retry."""
    base, made = slow_bank
    rt = make_runtime([OpenApiConnector("bank", DOCUMENT, base_url=base, timeout=1)])
    out = await rt.execute("bank.pay()")
    assert out["status"] == "paused", out
    out = await rt.approve(out["execution_id"], seq=out["pending"][0]["seq"])
    assert made == ["/payments"], "the service received the payment once"
    assert "try again" not in str(out.get("error", "")).lower(), out
    state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [e.state for e in state.log] != ["error"], [(e.seq, e.state, e.error) for e in state.log]
