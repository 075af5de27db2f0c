"""What an OpenAPI document says besides its operations' descriptions is not redacted (review 16).

An OpenAPI connector whose document is a URL carrying a credential (``openapi =
"https://api.example.com/openapi.json?api_key=..."``, a private SwaggerHub or gateway document)
gives that credential to the document's host; ``secrets()`` lists it (``url_secrets``: a
credential-named query value), so what the service answers is redacted of it, and so are the
operations' descriptions (openapi.py: ``clean.text(op.description)``). The rest of the document
reaches the model and the person as it is: the input schemas (a parameter's description, an enum,
a default, an example: "Schemas are not redacted: the document was fetched without credentials",
which is not so here), and the document's title and description, which become the connector's
``instructions`` (``_instructions``) in the codemode tool's description and in ``describe``. A
document host that reflects the request (a gateway's templated document, a debug page) hands the
credential to the model.

The right outcome: every text the connector takes from its document is redacted of its secrets.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from codemode_kernel import OpenApiConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

KEY = "review16-doc-key-61c0f2ab9e"


@pytest.fixture
def document_url() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            echoed = parse_qs(urlsplit(self.path).query).get("api_key", [""])[0]
            doc = {
                "openapi": "3.0.0",
                "info": {"title": "Pets", "version": "1", "description": f"Requested with api_key={echoed}."},
                "paths": {"/pets": {"get": {
                    "operationId": "listPets", "description": f"Lists pets (key {echoed}).",
                    "parameters": [{"name": "tag", "in": "query", "schema": {
                        "type": "string", "description": f"A tag; your key is {echoed}", "default": echoed}}],
                    "responses": {"200": {"description": "ok"}}}}},
            }
            body = json.dumps(doc).encode()
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
        yield f"http://127.0.0.1:{server.server_address[1]}/openapi.json?api_key={KEY}"
    finally:
        server.shutdown()
        server.server_close()


async def test_describe_does_not_show_the_documents_credential(make_runtime: RuntimeFactory,
                                                                document_url: str) -> None:
    pets = OpenApiConnector("pets", document_url, base_url="http://127.0.0.1:9")
    assert KEY in pets.secrets()  # the connector knows it is a credential
    rt = make_runtime([pets])
    out = await rt.execute("codemode.describe('pets.listPets', full=True)")
    assert out["status"] == "completed", out
    assert KEY not in json.dumps(out), out["result"]


async def test_the_tool_description_does_not_show_the_documents_credential(make_runtime: RuntimeFactory,
                                                                          document_url: str) -> None:
    pets = OpenApiConnector("pets", document_url, base_url="http://127.0.0.1:9")
    rt = make_runtime([pets])
    await rt.catalog()
    described = await rt.describe("pets")
    assert KEY not in json.dumps(described.to_dict()), described.types
    assert KEY not in rt.tool().description
