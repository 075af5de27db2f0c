"""A setting named like a credential is counted by its name alone, though it picks the backend (review 16).

``targets.secret_part`` (session 15) hashes the settings that pick an OpenAPI connector's account or an
MCP server's backend into the connector's target, so an approval (or a rollback) from a runtime whose
connector of that name acts elsewhere is refused. A setting whose *name* matches ``looks_secret`` (a
substring test: pass, auth, key, session, private, token, ...) counts by its name only, value and all,
"because a credential rotates while the backend stays". Two holes:

* which credential is used is itself the account: ``Authorization = "Bearer ${ALICE_TOKEN}"`` and
  ``"Bearer ${BOB_TOKEN}"`` are one fingerprint, though the configuration names another account's
  variable (an OpenAPI ``auth`` table's ``token_env`` *is* counted: http_auth.identity);
* the substring test takes ordinary settings for credentials: ``X-Author`` (auth), ``KEYSPACE`` (key),
  ``SESSION_DB`` (session) pick whose data is written, and their values are dropped.

The right outcome: refused as for another base URL, nothing sent to the other account.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

DOC = {
    "openapi": "3.0.0", "info": {"title": "accounts", "version": "1"},
    "paths": {"/notes": {"post": {"operationId": "addNote", "requestBody": {"content": {"application/json": {
        "schema": {"type": "object", "properties": {"text": {"type": "string"}}}}}},
        "responses": {"200": {"description": "ok"}}}}},
}


@pytest.fixture
def service() -> Iterator[tuple[str, list[dict[str, str]]]]:
    seen: list[dict[str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(dict(self.headers.items()))
            body = json.dumps({"id": 1}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


async def test_approve_with_another_accounts_token_variable_runs_nothing(
        make_runtime: RuntimeFactory, service: tuple[str, list[dict[str, str]]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    base, seen = service
    monkeypatch.setenv("REVIEW16_ALICE_TOKEN", "alice-token-0a1b2c3d4e")
    monkeypatch.setenv("REVIEW16_BOB_TOKEN", "bob-token-9f8e7d6c5b")
    first = make_runtime([OpenApiConnector("notes", DOC, base_url=base,
                                           headers={"Authorization": "Bearer ${REVIEW16_ALICE_TOKEN}"})])
    paused = await first.execute("notes.addNote(text='draft')")
    assert paused["status"] == "paused", paused
    other = make_runtime([OpenApiConnector("notes", DOC, base_url=base,
                                           headers={"Authorization": "Bearer ${REVIEW16_BOB_TOKEN}"})])
    out = await other.approve(paused["execution_id"], seq=0)
    assert [h.get("Authorization") for h in seen] == [], "the approved POST went out as another account"
    assert out["status"] == "error" and out.get("refused") is True, out


@pytest.mark.parametrize("header", ["X-Author", "X-Keyspace", "X-Session-Db"])
async def test_approve_from_a_connector_whose_tenant_header_changed_runs_nothing(
        make_runtime: RuntimeFactory, service: tuple[str, list[dict[str, str]]], header: str) -> None:
    base, seen = service
    first = make_runtime([OpenApiConnector("notes", DOC, base_url=base, headers={header: "alice"})])
    paused = await first.execute("notes.addNote(text='draft')")
    assert paused["status"] == "paused", paused
    other = make_runtime([OpenApiConnector("notes", DOC, base_url=base, headers={header: "bob"})])
    out = await other.approve(paused["execution_id"], seq=0)
    assert seen == [], f"the approved POST went out with {header}: bob, not the execution's alice"
    assert out["status"] == "error" and out.get("refused") is True, out
