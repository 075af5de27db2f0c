"""`codemode mcp --http` on loopback refuses a foreign Host or Origin even with the token (review 12).

serve/http.py says: "On loopback the SDK also checks the Host header (DNS rebinding)". A web page
the person opens can make the browser send requests to 127.0.0.1 under its own name (DNS
rebinding) or from its own origin; the token is the first gate, these checks are the second, and
nothing pinned them: a request carrying the right token but ``Host: attacker.example`` or
``Origin: http://attacker.example`` must not reach the tool, while the same request with the
server's own Host goes through.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

from tests.serving.serving_support import HttpServer, make_project, start_http_server, stop

pytestmark = pytest.mark.anyio

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "review12", "version": "1"}}}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[HttpServer]:
    running = start_http_server(make_project(tmp_path))
    yield running
    stop(running)


async def test_a_foreign_host_or_origin_is_refused_with_the_right_token(server: HttpServer) -> None:
    """It is an error if a request with the token but another site's Host or Origin reaches the MCP app."""
    own = urlsplit(server.url).netloc
    base = {"Authorization": f"Bearer {server.token}", "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json"}
    async with httpx2.AsyncClient() as http:
        ok = await http.post(server.url, json=INITIALIZE, headers={**base, "Host": own})
        foreign_host = await http.post(server.url, json=INITIALIZE, headers={**base, "Host": "attacker.example"})
        foreign_origin = await http.post(server.url, json=INITIALIZE,
                                         headers={**base, "Host": own, "Origin": "http://attacker.example"})
    assert ok.status_code == 200, ok.text
    assert foreign_host.status_code in (403, 421), (foreign_host.status_code, foreign_host.text)
    assert foreign_origin.status_code == 403, (foreign_origin.status_code, foreign_origin.text)
