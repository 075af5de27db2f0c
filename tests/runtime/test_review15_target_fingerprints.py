"""A connector's target fingerprint leaves out what picks the backend (review 15).

``targets.fingerprint`` (session 14) keeps an approval or a rollback on the backend the execution
used: another runtime over the same journal whose connector of that name "acts elsewhere" is
refused. What "elsewhere" means is each connector's ``target``: for a stdio MCP server its command,
arguments and folder (``McpConnector.target``, mcp.py:181-187), not its ``env``. Servers are very
often pointed at their backend by the environment (a database URL, a data folder, an account's
token): two tables that differ only in ``env`` are one target, so a person who approves (or rolls
back) from a notebook whose table now says ``env = { NOTES_FILE = "b.json" }`` runs the call on a
backend the execution never used, and the refusal the feature exists for never comes.

The right outcome: refused as for another command line (tests/runtime/test_lead14_connector_targets.py),
nothing approved, nothing written to the other backend.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from codemode_kernel import McpConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

SERVER = textwrap.dedent('''
    import json, os
    from mcp.server import MCPServer

    server = MCPServer("review15-notes")

    @server.tool()
    def add_note(text: str) -> dict:
        """Add a note to the notes file named by NOTES_FILE."""
        path = os.environ["NOTES_FILE"]
        notes = json.load(open(path)) if os.path.exists(path) else []
        notes.append(text)
        with open(path, "w") as f:
            json.dump(notes, f)
        return {"id": len(notes)}

    if __name__ == "__main__":
        server.run("stdio")
    ''')


def notes(folder: Path, notes_file: Path) -> McpConnector:
    return McpConnector("notes", command=sys.executable, args=["notes_server.py"], cwd=str(folder),
                        env={"NOTES_FILE": str(notes_file)}, requires_approval=["add_note"], connect_timeout=20)


async def test_approve_from_a_table_whose_env_points_elsewhere_runs_nothing(
        make_runtime: RuntimeFactory, tmp_path: Path) -> None:
    (tmp_path / "notes_server.py").write_text(SERVER, encoding="utf-8")
    mine, theirs = tmp_path / "mine.json", tmp_path / "theirs.json"
    theirs.write_text(json.dumps(["someone else's"]))
    first = make_runtime([notes(tmp_path, mine)])
    paused = await first.execute("notes.add_note(text='draft')")
    assert paused["status"] == "paused", paused

    other = make_runtime([notes(tmp_path, theirs)])  # the same table, its env pointed at another file
    out = await other.approve(paused["execution_id"], seq=0)
    assert json.loads(theirs.read_text()) == ["someone else's"], "the call ran on a backend the execution never used"
    assert out["status"] == "error" and out.get("refused") is True, out
    assert not mine.exists()


DOC = {
    "openapi": "3.0.0", "info": {"title": "accounts", "version": "1"},
    "paths": {"/notes": {"post": {"operationId": "addNote", "requestBody": {"content": {"application/json": {
        "schema": {"type": "object", "properties": {"text": {"type": "string"}}}}}},
        "responses": {"200": {"description": "ok"}}}}},
}


async def test_approve_from_a_connector_with_another_accounts_credentials_runs_nothing(
        make_runtime: RuntimeFactory) -> None:
    """One service, one base URL, two accounts (an ``X-Account`` header here; another token in ``auth``
    alike): the account is the backend, and the fingerprint is the base URL alone (openapi.py:165-167)."""
    import http.server
    import threading

    from codemode_kernel import OpenApiConnector

    seen: list[str | None] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(self.headers.get("X-Account"))
            body = b'{"id": 1}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        first = make_runtime([OpenApiConnector("notes", DOC, base_url=base, headers={"X-Account": "alice"})])
        paused = await first.execute("notes.addNote(text='draft')")
        assert paused["status"] == "paused", paused
        other = make_runtime([OpenApiConnector("notes", DOC, base_url=base, headers={"X-Account": "bob"})])
        out = await other.approve(paused["execution_id"], seq=0)
    finally:
        server.shutdown()
        server.server_close()
    assert seen == [], f"the approved POST went to account {seen}, not the execution's"
    assert out["status"] == "error" and out.get("refused") is True, out
