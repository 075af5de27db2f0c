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
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory

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

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            made.append(self.path)
            if self.path.startswith("/refunds/"):
                time.sleep(2.5)
            body = json.dumps({"id": "c1"}).encode()
            with contextlib.suppress(OSError):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
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
