"""OpenApiConnector against the demo pets service on 127.0.0.1 (and httpx.MockTransport at the edge)."""

from __future__ import annotations

import ast
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from codemode_kernel.connectors.base import ExecutionContext, Tool
from codemode_kernel.connectors.http_auth import HttpAuth
from codemode_kernel.connectors.openapi import OpenApiConnector
from codemode_kernel.demo.http_service import document_text
from codemode_kernel.discovery.stubs import method_stub
from codemode_kernel.errors import ConfigurationError, ConnectorError
from tests.connectors.services import TOKEN, Service

pytestmark = pytest.mark.anyio

DOC = Path(__file__).resolve().parents[2] / "codemode_kernel" / "demo" / "petstore.yaml"


def ctx(seq: int = 0) -> ExecutionContext:
    return ExecutionContext("exec-42", seq, "pets", "m")


@pytest.fixture
def token_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PETS_TOKEN", TOKEN)
    return "PETS_TOKEN"


@pytest.fixture
async def pets(pet_service: Service, token_env: str) -> Any:
    connector = OpenApiConnector("pets", DOC, base_url=pet_service.url, auth=HttpAuth.bearer(token_env=token_env),
                                 idempotency_header=True,
                                 reverts={"createPet": {"method": "deletePet", "args": {"petId": "$result.id"}}})
    tools = await connector.tools()
    yield connector, tools
    await connector.aclose()


async def run(tools: dict[str, Tool], method: str, seq: int = 0, **args: Any) -> Any:
    return await tools[method].execute(args, ctx(seq))


async def test_every_operation_is_a_method(pets: Any) -> None:
    """operationIds become methods; an operation without one is named from method and path."""
    _, tools = pets
    assert {"health", "listPets", "createPet", "searchPets", "getPet", "updatePet", "deletePet",
            "get_pets_petId_card", "listNotes", "createNote", "deleteNote", "echo", "submitContactForm",
            "uploadFile", "downloadFile", "slow", "broken"} == set(tools)
    assert tools["listPets"].description.startswith("List pets\n\nList the pets in the store")
    assert "HTTP: GET /pets" in tools["listPets"].description


async def test_default_approval_is_every_non_get(pets: Any) -> None:
    """GET/HEAD need no approval; every other method does."""
    _, tools = pets
    needing = {n for n, t in tools.items() if t.requires_approval}
    assert needing == {"createPet", "searchPets", "updatePet", "deletePet", "createNote", "deleteNote", "echo",
                       "submitContactForm", "uploadFile"}


async def test_input_schemas_merge_parameters_and_body(pets: Any) -> None:
    """Path/query parameters and an object body's properties form one input object; readOnly fields are out."""
    _, tools = pets
    create = tools["createPet"].input_schema
    assert set(create["properties"]) == {"name", "species", "tags", "birthday", "category"}
    assert create["required"] == ["name", "species"]
    assert create["additionalProperties"] is False
    assert create["$defs"]["Category"]["properties"]["parent"]["oneOf"][0] == {"$ref": "#/$defs/Category"}
    update = tools["updatePet"].input_schema
    assert set(update["properties"]) == {"petId", "name", "tags"} and update["required"] == ["petId"]
    assert "Authorization" not in json.dumps([t.input_schema for t in tools.values()])
    assert set(tools["echo"].input_schema["properties"]) == {"word", "times", "flags", "x_trace_id", "session"}


async def test_crud_round_trip(pets: Any, pet_service: Service) -> None:
    """Create, read, filter, update and delete a pet against the real service."""
    _, tools = pets
    created = await run(tools, "createPet", name="Rex", species="dog", tags=["good", "loud"])
    assert created["id"] >= 1 and created["name"] == "Rex" and "created_at" in created
    pet_id = created["id"]
    assert (await run(tools, "getPet", petId=pet_id))["name"] == "Rex"
    listed = await run(tools, "listPets", species="dog", tag=["good", "loud"], limit=5)
    assert [p["id"] for p in listed] == [pet_id]
    assert await run(tools, "listPets", species="dog", tag=["good", "quiet"]) == []
    updated = await run(tools, "updatePet", petId=pet_id, name="Rex II")
    assert updated["name"] == "Rex II" and updated["tags"] == ["good", "loud"]
    assert await run(tools, "get_pets_petId_card", petId=pet_id) == "Rex II the dog"
    assert await run(tools, "deletePet", petId=pet_id) is None
    with pytest.raises(ConnectorError, match=rf"pets\.getPet: GET /pets/{{petId}} returned HTTP 404 Not Found: no pet "
                                             rf"with id {pet_id}"):
        await run(tools, "getPet", petId=pet_id)


async def test_every_kind_of_parameter_arrives(pets: Any) -> None:
    """Path (escaped), query (arrays exploded), header, cookie and body reach the service as declared."""
    _, tools = pets
    echoed = await run(tools, "echo", seq=7, word="a b/c?", times=3, flags=["x", "y"], x_trace_id="t-1",
                       session="s-9")
    assert echoed["word"] == "a b/c?"
    assert echoed["query"] == {"times": ["3"], "flags": ["x", "y"]}
    assert echoed["headers"]["x-trace-id"] == "t-1"
    assert echoed["headers"]["idempotency-key"] == "exec-42:7"
    assert echoed["cookies"] == {"session": "s-9"}
    assert echoed["body"] is None
    # A cookie value that would add a cookie ('; ' joins them) is refused, nothing sent (review 13's notes).
    with pytest.raises(ConnectorError, match=r"pets\.echo: the cookie parameter 'session' holds a character"):
        await run(tools, "echo", seq=8, word="w", session="dark; admin=1")
    extra = await run(tools, "echo", word="w", anything={"nested": [1, 2]}, flag=True)
    assert extra["body"] == {"anything": {"nested": [1, 2]}, "flag": True}


async def test_form_and_binary_bodies(pets: Any) -> None:
    """Form bodies are form-encoded; octet-stream bodies are bytes both ways."""
    _, tools = pets
    form = await run(tools, "submitContactForm", email="a@b.org", message="hi there")
    assert form["content_type"].startswith("application/x-www-form-urlencoded")
    assert form["form"] == {"email": "a@b.org", "message": "hi there"}
    data = bytes(range(256))
    assert await run(tools, "uploadFile", name="blob.bin", body=data) == {"name": "blob.bin", "size": 256}
    assert await run(tools, "downloadFile", name="blob.bin") == data


async def test_error_statuses_carry_status_and_a_short_excerpt(pets: Any) -> None:
    """Non-2xx responses raise with the status and a bounded excerpt of the body."""
    _, tools = pets
    with pytest.raises(ConnectorError, match="returned HTTP 422 Unprocessable Entity: species must be one of") as info:
        await run(tools, "createPet", name="Nemo", species="whale")
    with pytest.raises(ConnectorError, match=r"HTTP 500 Internal Server Error: Internal failure: the flux") as info:
        await run(tools, "broken")
    assert len(str(info.value)) < 500 and "characters)" in str(info.value)


async def test_timeouts_are_clear_errors(pet_service: Service, token_env: str) -> None:
    """A response slower than ``timeout`` fails the call with a timeout message."""
    connector = OpenApiConnector("pets", DOC, base_url=pet_service.url, auth=HttpAuth.bearer(token_env=token_env),
                                 timeout=0.5)
    tools = await connector.tools()
    started = time.monotonic()
    with pytest.raises(ConnectorError, match=r"pets\.slow: GET /slow got no answer within 0\.5 s \(timeout\)"):
        await run(tools, "slow", seconds=2)
    assert time.monotonic() - started < 3
    await connector.aclose()


async def test_auth_by_api_key_with_name_from_the_document(pet_service: Service, token_env: str) -> None:
    """An API key without a name uses the document's apiKey scheme (header X-API-Key)."""
    connector = OpenApiConnector("pets", DOC, base_url=pet_service.url, auth=HttpAuth.api_key(value_env=token_env))
    tools = await connector.tools()
    assert isinstance(await run(tools, "listNotes"), list)
    await connector.aclose()


async def test_missing_or_wrong_credentials(pet_service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unset variable is named (the request is not sent); a wrong token is the service's 401."""
    monkeypatch.delenv("PETS_TOKEN", raising=False)
    connector = OpenApiConnector("pets", DOC, base_url=pet_service.url, auth=HttpAuth.bearer(token_env="PETS_TOKEN"))
    tools = await connector.tools()
    with pytest.raises(ConnectorError, match="reads the environment variable PETS_TOKEN, which is not set"):
        await run(tools, "listPets")
    assert await run(tools, "health") == {"status": "ok"}  # security: [] sends no credentials
    monkeypatch.setenv("PETS_TOKEN", "not-the-token")
    with pytest.raises(ConnectorError, match="HTTP 401 Unauthorized: missing or wrong credentials"):
        await run(tools, "listPets")
    await connector.aclose()


async def test_unreachable_base_url() -> None:
    """Nothing listening: the error names the origin and suggests checking base_url."""
    connector = OpenApiConnector("pets", DOC, base_url="http://127.0.0.1:9")
    tools = await connector.tools()
    with pytest.raises(ConnectorError, match=r"pets\.health: GET http://127\.0\.0\.1:9/health failed: could not "
                                             r"connect .*Is the service running, and is base_url right\?"):
        await run(tools, "health")
    await connector.aclose()


async def test_document_from_a_url_and_base_url_from_its_servers(pet_service: Service, token_env: str) -> None:
    """A URL document is fetched; without base_url the document's servers entry is used."""
    connector = OpenApiConnector("pets", pet_service.url + "/openapi.yaml", base_url=pet_service.url,
                                 auth={"type": "bearer", "token_env": token_env})
    tools = await connector.tools()
    assert "createPet" in tools and connector.instructions and "Codemode demo pets" in connector.instructions
    assert isinstance(await run(tools, "listPets"), list)
    await connector.aclose()
    no_base = OpenApiConnector("pets", {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}})
    with pytest.raises(ConfigurationError, match="no base URL"):
        await no_base.tools()


async def test_revert_mapping_deletes_what_was_created(pets: Any, pet_service: Service) -> None:
    """createPet's revert calls deletePet with the id from the result."""
    _, tools = pets
    created = await run(tools, "createPet", name="Tmp", species="cat")
    revert = tools["createPet"].revert
    assert revert is not None
    before = pet_service.requests().get("DELETE /pets/{petId}", 0)
    await revert({"name": "Tmp", "species": "cat"}, created, ctx())
    assert pet_service.requests()["DELETE /pets/{petId}"] == before + 1
    with pytest.raises(ConnectorError, match="HTTP 404"):
        await run(tools, "getPet", petId=created["id"])


async def test_approval_rules_from_configuration(pet_service: Service) -> None:
    """requires_approval adds, no_approval removes, booleans replace the default."""
    connector = OpenApiConnector("pets", DOC, base_url=pet_service.url, requires_approval=["getPet"],
                                 no_approval=["searchPets", "tag:notes"])
    tools = await connector.tools()
    assert tools["getPet"].requires_approval and not tools["searchPets"].requires_approval
    assert not tools["createNote"].requires_approval and tools["createPet"].requires_approval
    none = await OpenApiConnector("pets", DOC, base_url=pet_service.url, requires_approval=False).tools()
    assert not any(t.requires_approval for t in none.values())


async def test_include_and_exclude_choose_operations(pet_service: Service) -> None:
    """include/exclude take names, operationIds and tag:<tag>."""
    connector = OpenApiConnector("pets", DOC, base_url=pet_service.url, include=["tag:pets"], exclude=["delete*"])
    assert set(await connector.tools()) == {"listPets", "createPet", "searchPets", "getPet", "updatePet",
                                            "get_pets_petId_card"}


async def test_declarations_of_every_operation_are_valid_python(pets: Any) -> None:
    """describe() material for every operation parses, and names the merged arguments."""
    _, tools = pets
    for name, t in tools.items():
        source = method_stub(name, description=t.description, input_schema=t.input_schema,
                             output_schema=t.output_schema, requires_approval=t.requires_approval)
        ast.parse(source)
    create = tools["createPet"]
    source = method_stub("createPet", description=create.description, input_schema=create.input_schema,
                         output_schema=create.output_schema)
    assert "species: Species" in source and "Species: TypeAlias = Literal['cat', 'dog', 'bird', 'fish']" in source
    assert "class Category(TypedDict):" in source and "parent: NotRequired[Category | None]" in source


async def test_injected_mock_transport() -> None:
    """A transport can be injected; requests carry auth and the idempotency key, responses are decoded."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.method == "POST":
            return httpx.Response(201, json={"id": 7, "name": "Mock", "species": "cat", "created_at": "now"})
        return httpx.Response(503, json={"message": "down for maintenance"})

    connector = OpenApiConnector("pets", DOC, base_url="http://pets.invalid/api",
                                 auth=HttpAuth.api_key(name="key", location="query", value="k-1"),
                                 idempotency_header="X-Once", transport=httpx.MockTransport(handler))
    tools = await connector.tools()
    assert (await tools["createPet"].execute({"name": "Mock", "species": "cat"}, ctx(3)))["id"] == 7
    assert str(seen[0].url) == "http://pets.invalid/api/pets?key=k-1"
    assert seen[0].headers["X-Once"] == "exec-42:3"
    assert json.loads(seen[0].content) == {"name": "Mock", "species": "cat"}
    with pytest.raises(ConnectorError, match=r"HTTP 503 Service Unavailable: down for maintenance"):
        await tools["listPets"].execute({}, ctx())
    await connector.aclose()


def test_from_config_builds_a_connector(tmp_path: Path) -> None:
    """A [connectors.x] table becomes a connector; the document path is relative to the file."""
    (tmp_path / "petstore.yaml").write_text(document_text())
    table = {"openapi": "petstore.yaml", "base_url": "http://127.0.0.1:8765",
             "auth": {"type": "bearer", "token_env": "PETSTORE_TOKEN"}, "requires_approval": ["getPet"],
             "no_approval": ["searchPets"], "idempotency_header": True, "timeout": 5, "hint": "Pets.",
             "reverts": {"createPet": {"method": "deletePet", "args": {"petId": "$result.id"}}},
             "headers": {"X-Client": "codemode"}, "include": ["tag:pets"]}
    connector = OpenApiConnector.from_config("pets", table, tmp_path)
    assert connector.instructions == "Pets." and connector.timeout == 5.0
    assert connector.idempotency_header == "Idempotency-Key"


@pytest.mark.parametrize(("table", "message"), [
    ({"openapi": "missing.yaml"}, r"openapi = 'missing\.yaml': no such file"),
    ({"openapi": 3}, "openapi must be a path"),
    ({"openapi": "petstore.yaml", "auth": {"type": "oauth"}}, 'auth.type must be "bearer", "api_key" or "basic"'),
    ({"openapi": "petstore.yaml", "auth": {"type": "bearer"}}, "needs exactly one of token or token_env"),
    ({"openapi": "petstore.yaml", "auth": {"type": "bearer", "token_env": "X", "scope": "y"}}, "unknown key 'scope'"),
    ({"openapi": "petstore.yaml", "base_url": "127.0.0.1:8765"}, "base_url must be an http"),
    ({"openapi": "petstore.yaml", "idempotency_header": 1}, "idempotency_header must be"),
    ({"openapi": "petstore.yaml", "reverts": {"createPet": 5}}, "reverts.createPet must be a method name"),
])
def test_from_config_refuses_bad_tables(tmp_path: Path, table: dict[str, Any], message: str) -> None:
    """Bad tables name the table, the key and the problem."""
    (tmp_path / "petstore.yaml").write_text(document_text())
    with pytest.raises(ConfigurationError, match=message) as info:
        OpenApiConnector.from_config("pets", table, tmp_path)
    assert str(info.value).startswith("[connectors.pets]")


async def test_unknown_operation_names_in_configuration_are_refused(pet_service: Service) -> None:
    """A misspelt operation in approval rules or reverts is a ConfigurationError with a suggestion."""
    connector = OpenApiConnector("pets", DOC, base_url=pet_service.url, requires_approval=["getPets"])
    with pytest.raises(ConfigurationError, match=r"requires_approval names 'getPets'.*Did you mean 'getPet'"):
        await connector.tools()
    connector = OpenApiConnector("pets", DOC, base_url=pet_service.url,
                                 reverts={"createPet": {"method": "removePet"}})
    with pytest.raises(ConfigurationError, match=r"reverts\.createPet\.method names 'removePet'"):
        await connector.tools()
