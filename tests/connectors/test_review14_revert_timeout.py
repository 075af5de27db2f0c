"""A revert that timed out after it was sent runs again on the next rollback (review 14).

``CodemodeRuntime.rollback`` claims each applied call (``applied`` -> ``reverted`` with the note
``REVERT_UNKNOWN``) before its revert runs, so a host that stops mid-revert never runs it twice
("that outcome is unknown ... the revert is not run again", runtime.py). But when the revert
*raises*, the entry goes back to ``applied`` (runtime.py ``set_entry(... ["reverted"], "applied")``)
and the next rollback runs the revert again. An OpenAPI revert raises for a read timeout
(review 14 H5: the request was sent, the service may have done it): a refund that the service
made and answered slowly is made again by the person's second ``rollback``, told by
``RollbackError`` that the first one failed.

The right outcome: a revert whose request may have reached the service is not run again by a
later rollback (its outcome is unknown, as for a host that stopped mid-revert).
"""

from __future__ import annotations

import contextlib
import http.server
import json
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
    "info": {"title": "Payments", "version": "1"},
    "paths": {
        "/charges": {"post": {"operationId": "charge", "responses": {"200": {"description": "ok"}}}},
        "/refunds/{chargeId}": {"post": {
            "operationId": "refund",
            "parameters": [{"name": "chargeId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}}}},
    },
}


@pytest.fixture
def payments() -> Iterator[tuple[str, list[str]]]:
    """Charges answer at once; a refund is made at once and answered after 2.5 s."""
    made: list[str] = []

    def respond(handler: http.server.BaseHTTPRequestHandler) -> None:
        made.append(handler.path)
        if handler.path.startswith("/refunds/"):
            time.sleep(2.5)
        send(handler, json.dumps({"id": "c1"}).encode())

    with http_service(respond) as base:
        yield base, made


async def test_a_timed_out_refund_is_not_made_twice(make_runtime: RuntimeFactory,
                                                    payments: tuple[str, list[str]]) -> None:
    """It is an error if two rollbacks make two refunds of one charge."""
    base, made = payments
    rt = make_runtime([OpenApiConnector("pay", DOCUMENT, base_url=base, timeout=1, no_approval=["charge"],
                                        reverts={"charge": {"method": "refund", "args": {"chargeId": "$result.id"}}})])
    out = await rt.execute("pay.charge()")
    assert out["status"] == "completed", out
    for _ in range(2):  # the person retries the rollback the first attempt reported as failed
        with contextlib.suppress(Exception):
            await rt.rollback(out["execution_id"])
    assert made.count("/refunds/c1") == 1, made
