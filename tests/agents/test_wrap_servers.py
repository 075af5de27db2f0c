"""code_mcp_server and openapi_mcp_server, served to the mcp SDK's own Client (in process, stdio, HTTP).

The upstream servers are real: the demo notes server (in process, as a stdio subprocess and
over streamable HTTP) and the demo pets API on 127.0.0.1, reached by the host's ``request``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import mcp_types
import pytest
from mcp import Client, StdioServerParameters

from codemode_kernel import InProcessExecutor, McpConnector, code_mcp_server, openapi_mcp_server
from codemode_kernel.connectors.openapi_document import OpenApiDocument
from codemode_kernel.demo.mcp_server import NoteStore, build_server
from codemode_kernel.errors import ConfigurationError
from codemode_kernel.wrap_servers import resolved_document
from tests.connectors.services import TOKEN, Service, start

pytestmark = pytest.mark.anyio

PETSTORE = Path(__file__).resolve().parents[2] / "codemode_kernel" / "demo" / "petstore.yaml"


def outcome(result: mcp_types.CallToolResult) -> dict[str, Any]:
    """The structured outcome, checked to be the same JSON as the text content."""
    assert result.structured_content is not None
    text = result.content[0]
    assert isinstance(text, mcp_types.TextContent)
    assert json.loads(text.text) == result.structured_content
    return dict(result.structured_content)


@pytest.fixture(scope="module")
def pets() -> Iterator[Service]:
    service = start("codemode_kernel.demo.http_service", env={"CODEMODE_DEMO_TOKEN": TOKEN})
    yield service
    service.stop()


@pytest.fixture(scope="module")
def notes_over_http() -> Iterator[Service]:
    service = start("codemode_kernel.demo.mcp_server", ["--http"])
    yield service
    service.stop()


# -- code_mcp_server -------------------------------------------------------------------------------


async def test_one_code_tool_calls_the_upstream_tools_as_methods_of_one_global() -> None:
    """The global is named after the server; results are plain values; each upstream call runs once."""
    store = NoteStore()
    server = await code_mcp_server(build_server(store), executor=InProcessExecutor())
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == ["codemode"]
        assert "- codemode_demo_notes" in (tools[0].description or "")
        assert "add_note" not in (tools[0].description or "")  # connectors only, never methods
        result = await client.call_tool("codemode", {"code": (
            "n = codemode_demo_notes.add_note(title='milk', tags=['shop'])\n"
            "print('added', n['id'])\n"
            "[codemode_demo_notes.word_count(text='a b c'), codemode_demo_notes.list_notes(tag='shop')]")})
    assert result.is_error is False
    assert outcome(result) == {"result": [3, [{"id": 1, "title": "milk", "body": "", "tags": ["shop"]}]],
                               "logs": ["added 1"]}
    assert dict(store.calls) == {"add_note": 1, "word-count": 1, "list_notes": 1}


async def test_a_failed_program_is_an_mcp_error_result() -> None:
    """An upstream error the code does not catch: ``isError`` true, the outcome names the error."""
    server = await code_mcp_server(build_server(), executor=InProcessExecutor(), name="notes")
    async with Client(server) as client:
        result = await client.call_tool("codemode", {"code": "notes.fail(message='disk full')"})
        caught = await client.call_tool("codemode", {"code": (
            "try:\n    notes.fail(message='x')\nexcept Exception as e:\n    r = 'caught'\nr")})
    assert result.is_error is True
    out = outcome(result)
    assert out["error_type"] == "ConnectorError" and "disk full" in out["error"]
    assert caught.is_error is False and outcome(caught)["result"] == "caught"


async def test_a_stdio_server_is_named_after_its_command_and_stopped_with_the_wrapper() -> None:
    """``python -m pkg.mcp_server`` → the global ``mcp_server``; the upstream process ends when serving ends."""
    server = await code_mcp_server([sys.executable, "-m", "codemode_kernel.demo.mcp_server"],
                                   executor=InProcessExecutor())
    async with Client(server) as client:
        result = await client.call_tool("codemode", {"code": "mcp_server.whoami()['pid']"})
    pid = outcome(result)["result"]
    assert isinstance(pid, int) and pid != os.getpid()
    assert not _alive(pid)


SERVE_OVER_STDIO = """
import asyncio
from codemode_kernel import code_mcp_server
from codemode_kernel.demo.mcp_server import build_server

async def main():
    server = await code_mcp_server(build_server(), name="notes")   # the isolated executor, by default
    await server.run_stdio_async()

asyncio.run(main())
"""


async def test_the_wrapper_served_over_stdio_with_the_isolated_executor(tmp_path: Path) -> None:
    """As an agent host runs it: a process speaking MCP on stdio, each program in a confined worker."""
    script = tmp_path / "serve.py"
    script.write_text(SERVE_OVER_STDIO, encoding="utf-8")
    params = StdioServerParameters(command=sys.executable, args=[str(script)], cwd=str(tmp_path))
    async with Client(params) as client:
        result = await client.call_tool("codemode", {"code": (
            "n = notes.add_note(title='from stdio')\n[n['title'], notes.word_count(text='one two')]")})
        escape = await client.call_tool("codemode", {"code": "import os\nos.getcwd()"})
    assert outcome(result) == {"result": ["from stdio", 2], "logs": []}
    assert escape.is_error is True and outcome(escape)["error_type"] == "ImportError"


async def test_a_streamable_http_server_by_url(notes_over_http: Service) -> None:
    """A URL reaches a streamable-HTTP server; ``name`` names the global."""
    server = await code_mcp_server(notes_over_http.url, executor=InProcessExecutor(), name="remote")
    async with Client(server) as client:
        result = await client.call_tool("codemode", {"code": "remote.shout(text='hi')"})
    assert outcome(result)["result"] == "HI"


async def test_a_configured_connector_keeps_its_policy() -> None:
    """An McpConnector with approvals: the code tool refuses the method that needs one (no journal)."""
    store = NoteStore()
    connector = McpConnector("notes", server=build_server(store), requires_approval=["delete_note"])
    server = await code_mcp_server(connector, executor=InProcessExecutor())
    async with Client(server) as client:
        result = await client.call_tool("codemode", {"code": "notes.delete_note(note_id=1)"})
    assert result.is_error is True and outcome(result)["error_type"] == "ApprovalRequired"
    assert "delete_note" not in store.calls


async def test_bad_servers_are_refused_clearly() -> None:
    """An unreachable command fails when the wrapper is built; other values say what is accepted."""
    with pytest.raises(ConfigurationError, match="command /nonexistent/mcp-server"):
        await code_mcp_server(["/nonexistent/mcp-server"])
    with pytest.raises(ConfigurationError, match="must be an MCPServer, an McpConnector, a URL"):
        await code_mcp_server(42)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="must be a Python identifier"):
        await code_mcp_server(build_server(), name="my notes")


# -- openapi_mcp_server ----------------------------------------------------------------------------


def pets_request(service: Service, seen: list[dict[str, Any]]) -> Any:
    """The user's request function: it holds the credential and reaches the real API."""

    async def request(options: dict[str, Any]) -> Any:
        seen.append(options)
        async with httpx.AsyncClient(base_url=service.url, headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            response = await http.request(options["method"], options["path"], params=options.get("query"),
                                          json=options.get("body"))
        if response.status_code >= 400:
            raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
        return response.json()

    return request


async def test_search_reads_the_resolved_document(pets: Service) -> None:
    """``spec`` is the document with its local $refs resolved; nothing is sent to the API."""
    seen: list[dict[str, Any]] = []
    server = openapi_mcp_server(PETSTORE, pets_request(pets, seen), executor=InProcessExecutor())
    async with Client(server) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["search", "execute"]
        assert client.server_info.name == "api" and client.server_info.version == "1.0.0"
        result = await client.call_tool("search", {"code": (
            "item = spec['paths']['/pets/{petId}']\n"
            "pet = item['get']['responses']['200']['content']['application/json']['schema']['allOf'][0]\n"
            "[item['parameters'][0]['name'], item['get']['operationId'], pet['properties']['species']['enum'],\n"
            " pet['properties']['category']['properties']['parent']['oneOf'][0]]")})
    assert outcome(result)["result"] == ["petId", "getPet", ["cat", "dog", "bird", "fish"],
                                         {"$ref": "#/components/schemas/Category"}]  # recursive: kept
    assert seen == []


async def test_execute_forwards_requests_to_the_host_and_credentials_stay_there(pets: Service) -> None:
    """``api.request`` reaches the user's ``request`` once per call; the program never sees the token."""
    seen: list[dict[str, Any]] = []
    server = openapi_mcp_server(PETSTORE, pets_request(pets, seen), executor=InProcessExecutor())
    async with Client(server) as client:
        created = await client.call_tool("execute", {"code": (
            "pet = api.request(method='post', path='/pets', body={'name': 'Rex', 'species': 'dog'})\n"
            "got = api.request(method='GET', path='/pets/' + str(pet['id']))\n"
            "[got['id'], got['name'], got['species']]")})
        leaked = await client.call_tool("search", {"code": "str(spec)"})
    pet_id, name, species = outcome(created)["result"]
    assert (name, species) == ("Rex", "dog")
    assert [(o["method"], o["path"]) for o in seen] == [("POST", "/pets"), ("GET", f"/pets/{pet_id}")]
    assert seen[0]["body"] == {"name": "Rex", "species": "dog"}
    assert TOKEN not in json.dumps(outcome(created)) and TOKEN not in json.dumps(outcome(leaked))


async def test_a_failed_request_is_an_exception_in_the_code(pets: Service) -> None:
    """An HTTP error raised by ``request`` can be caught; uncaught it is an MCP error result."""
    seen: list[dict[str, Any]] = []
    server = openapi_mcp_server(PETSTORE, pets_request(pets, seen), executor=InProcessExecutor())
    async with Client(server) as client:
        missing = await client.call_tool("execute", {"code": "api.request(method='GET', path='/pets/999')"})
        bad = await client.call_tool("execute", {"code": "api.request(method='TRACE', path='/pets')"})
    assert missing.is_error is True and "HTTP 404" in outcome(missing)["error"]
    assert bad.is_error is True and outcome(bad)["error_type"] == "ArgumentError"
    assert [o["path"] for o in seen] == ["/pets/999"]  # the invalid method never reached the host's request


def test_recursive_references_stay_references() -> None:
    """A schema that contains itself keeps one ``$ref``; past the size budget, component schemas stay refs."""
    document = OpenApiDocument({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/nodes": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Node"}}}}}}}},
        "components": {"schemas": {"Node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}},
    }, "test")
    full = resolved_document(document)
    schema = full["paths"]["/nodes"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["properties"]["name"] == {"type": "string"}
    assert schema["properties"]["children"]["items"] == {"$ref": "#/components/schemas/Node"}
    kept = resolved_document(document, max_chars=10)
    assert kept["paths"]["/nodes"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Node"}


def test_bad_openapi_arguments_are_refused() -> None:
    """A name that is not an identifier, a missing file, a Swagger 2 document: clear errors."""
    async def request(options: dict[str, Any]) -> Any:
        return None

    with pytest.raises(ConfigurationError, match="must be a Python identifier"):
        openapi_mcp_server(PETSTORE, request, name="pet store")
    with pytest.raises(ConfigurationError, match="is not a file"):
        openapi_mcp_server("/nonexistent/openapi.yaml", request)
    with pytest.raises(ConfigurationError, match=r"Swagger 2\.0"):
        openapi_mcp_server({"swagger": "2.0", "paths": {}}, request)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_path_cannot_name_another_host() -> None:
    """``//host/...``, a URL, a backslash or a control character in ``path`` is refused before ``request`` runs."""
    seen: list[dict[str, Any]] = []

    async def request(options: dict[str, Any]) -> Any:
        seen.append(options)
        return "ok"

    server = openapi_mcp_server(PETSTORE, request, executor=InProcessExecutor())
    async with Client(server) as client:
        for path in ("//evil.example/steal", "http://evil.example/", "/\\evil.example", "/pets\r\nX-Injected: 1"):
            result = await client.call_tool("execute", {"code": f"api.request(method='GET', path={path!r})"})
            assert result.is_error is True and outcome(result)["error_type"] == "ArgumentError", path
        fine = await client.call_tool("execute", {"code": "api.request(method='GET', path='/pets/1?x=a/b')"})
    assert outcome(fine)["result"] == "ok"
    assert [o["path"] for o in seen] == ["/pets/1?x=a/b"]


async def test_long_results_reach_the_model_cut_with_a_note() -> None:
    """By default a result over 100,000 characters is cut with a note; ``transform_result=None`` keeps it whole."""
    async def request(options: dict[str, Any]) -> Any:
        return "x" * 150_000

    cut = openapi_mcp_server(PETSTORE, request, executor=InProcessExecutor())
    whole = openapi_mcp_server(PETSTORE, request, executor=InProcessExecutor(), transform_result=None)
    code = {"code": "api.request(method='GET', path='/big')"}
    async with Client(cut) as client:
        short = outcome(await client.call_tool("execute", code))["result"]
    async with Client(whole) as client:
        long = outcome(await client.call_tool("execute", code))["result"]
    assert len(short) <= 100_000 and short.endswith("showing 99,934 of 150,000 characters; ask for less]")
    assert long == "x" * 150_000
