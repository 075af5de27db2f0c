"""The connector policy (approval rules, reverts, their checks), the same for every kind; environment references."""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode_kernel import CodemodeRuntime, InProcessExecutor, McpConnector, OpenApiConnector, ToolSetConnector
from codemode_kernel.config import load_config
from codemode_kernel.connectors.base import Connector, Tool
from codemode_kernel.connectors.http_auth import HttpAuth
from codemode_kernel.connectors.openapi_document import OpenApiDocument
from codemode_kernel.connectors.policy import (
    ApprovalRule,
    ConnectorPolicy,
    RevertMapping,
    WithPolicy,
    expand_env,
    parse_reverts,
)
from codemode_kernel.demo.mcp_server import build_server
from codemode_kernel.errors import ConfigurationError, ConnectorError


def test_explicit_rules_win_over_the_default() -> None:
    """requires_approval beats no_approval, which beats the connector's default."""
    rule = ApprovalRule(("create_*", "get_secret"), ("create_draft",))
    assert rule.decide(["get_secret"], default=False)
    assert rule.decide(["create_item"], default=False)
    assert rule.decide(["create_draft"], default=True)  # requires_approval pattern matches too: it wins
    assert not ApprovalRule((), ("list_*",)).decide(["list_items"], default=True)
    assert ApprovalRule((), (), default_all=True).decide(["read"], default=False)


def test_a_name_in_both_lists_is_refused() -> None:
    """The same name cannot both need and not need approval."""
    with pytest.raises(ConfigurationError, match=r"\['x'\] is listed in both requires_approval and no_approval"):
        ApprovalRule.from_table({"requires_approval": ["x"], "no_approval": ["x"]}, "[connectors.c]")


def test_revert_templates_pick_from_result_and_args() -> None:
    """$result / $args paths (with list indices) are rendered; $$ is a literal dollar; nesting works."""
    mapping = RevertMapping("delete", {"id": "$result.items.0.id", "owner": "$args.owner", "note": "$$5",
                                       "all": "$result", "nested": {"ids": ["$result.items.1.id", 3]}})
    rendered = mapping.render({"owner": "me"}, {"items": [{"id": 7}, {"id": 8}]})
    assert rendered == {"id": 7, "owner": "me", "note": "$5", "all": {"items": [{"id": 7}, {"id": 8}]},
                        "nested": {"ids": [8, 3]}}
    with pytest.raises(ConnectorError, match=r"the revert argument 'id' = '\$result\.uid' finds nothing"):
        RevertMapping("delete", {"id": "$result.uid"}).render({}, {"id": 1})


def test_revert_tables_are_checked() -> None:
    """A revert table needs a method; templates must start with $result or $args."""
    assert parse_reverts({"reverts": {"a": "b"}}, "[connectors.c]") == {"a": RevertMapping("b", {})}
    with pytest.raises(ConfigurationError, match=r"reverts\.a must be a method name or a table"):
        parse_reverts({"reverts": {"a": {"args": {}}}}, "[connectors.c]")
    with pytest.raises(ConfigurationError, match=r"reverts\.a\.args\.x: '\$res\.id' must start with \$result"):
        parse_reverts({"reverts": {"a": {"method": "b", "args": {"x": "$res.id"}}}}, "[connectors.c]")


def test_environment_references() -> None:
    """${VAR} is replaced from the environment; a missing variable is named."""
    assert expand_env("Bearer ${T}", "header", {"T": "abc"}) == "Bearer abc"
    with pytest.raises(ConnectorError, match=r"header uses \$\{MISSING\}, but the environment variable MISSING"):
        expand_env("${MISSING}", "header", {})


def test_credentials_are_read_when_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Secrets come from the environment at request time; basic auth is base64 user:password."""
    auth = HttpAuth.basic(username="me", password_env="PW")
    monkeypatch.setenv("PW", "one")
    assert auth.apply("x")[0] == {"Authorization": "Basic bWU6b25l"}
    monkeypatch.setenv("PW", "two")
    assert auth.apply("x")[0] == {"Authorization": "Basic bWU6dHdv"}
    cookie = HttpAuth.api_key(name="sid", location="cookie", value="v")
    assert cookie.apply("x") == ({}, {}, {"sid": "v"}) and cookie.secret_names() == {("cookie", "sid")}


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(
        st.one_of(st.sampled_from(["type", "properties", "$ref", "items", "allOf", "oneOf", "nullable", "required",
                                   "readOnly", "additionalProperties", "exclusiveMinimum", "minimum", "enum"]),
                  st.text(max_size=5)), c, max_size=4)),
    max_leaves=15)
REFS = st.sampled_from(["#/components/schemas/A", "#/components/schemas/Nope", "#/paths", "x.yaml#/A", "#"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON, JSON, REFS)
def test_any_schema_in_a_document_is_read_or_refused_clearly(body: Any, component: Any, ref: str) -> None:
    """Whatever a schema holds, reading the document gives operations or a ConfigurationError, nothing else."""
    data = {"openapi": "3.0.3", "paths": {"/a/{id}": {"post": {
        "operationId": "a",
        "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"$ref": ref}}],
        "requestBody": {"content": {"application/json": {"schema": body}}},
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": component}}}}}}},
        "components": {"schemas": {"A": component}}}
    try:
        operations = OpenApiDocument(data, "prop.yaml").operations()
    except ConfigurationError as exc:
        assert str(exc).startswith("prop.yaml: ")
    else:
        assert [op.name for op in operations] == ["a"]


# -- one policy for every kind of connector (issue 11) -------------------------------------------

NOTES_API = {"openapi": "3.0.3", "info": {"title": "notes", "version": "1"}, "paths": {
    "/notes": {"post": {"operationId": "add_note", "responses": {"200": {"description": "ok"}}, "requestBody": {
        "content": {"application/json": {"schema": {"type": "object", "properties": {"title": {"type": "string"}}}}}}}},
    "/notes/{note_id}": {"delete": {"operationId": "delete_note", "responses": {"200": {"description": "ok"}},
                                    "parameters": [{"name": "note_id", "in": "path", "required": True,
                                                    "schema": {"type": "integer"}}]}}}}


def add_note(title: str) -> dict[str, Any]:
    """Add a note."""
    return {"id": 1, "title": title}


def delete_note(note_id: int) -> dict[str, Any]:
    """Delete a note."""
    return {"id": note_id}


def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
    """A revert function."""


def connector_of_kind(kind: str, **policy: Any) -> Connector:
    """A connector with the methods add_note and delete_note, of the given kind, with ``policy`` as configured."""
    if kind == "python":
        where = "[connectors.notes]"
        return WithPolicy(ToolSetConnector([add_note, delete_note], name="notes"),
                          ConnectorPolicy.from_arguments(policy.get("requires_approval", ()), (),
                                                         policy.get("reverts"), where), where=where)
    if kind == "mcp":
        return McpConnector("notes", server=build_server(), **policy)
    return OpenApiConnector("notes", NOTES_API, base_url="http://127.0.0.1:9", **policy)


KINDS = ["python", "mcp", "openapi"]


@pytest.mark.anyio
@pytest.mark.parametrize("policy, message", [
    ({"requires_approval": ["add_nte"]},
     "requires_approval names 'add_nte', which is not a method of this connector. Did you mean 'add_note'"),
    ({"reverts": {"add_nte": undo}},
     "reverts names 'add_nte', which is not a method of this connector. Did you mean 'add_note'"),
    ({"reverts": {"add_note": {"method": "delete_nte"}}},
     "reverts.add_note.method names 'delete_nte', which is not a method of this connector. Did you mean "
     "'delete_note'"),
])
async def test_every_kind_refuses_a_policy_naming_no_method_with_the_same_message(policy: dict[str, Any],
                                                                                   message: str) -> None:
    """It is an error if Python, MCP and OpenAPI connectors check their approval rules and reverts differently."""
    seen = {}
    for kind in KINDS:
        connector = connector_of_kind(kind, **policy)
        try:
            with pytest.raises(ConfigurationError) as caught:
                await _tools(connector)
        finally:
            await connector.aclose()
        seen[kind] = str(caught.value)
    assert all(message in text for text in seen.values()), seen


@pytest.mark.anyio
async def test_every_kind_applies_approval_and_reverts_alike() -> None:
    """The same configured policy gives the same approval and a revert on the same method, whatever the kind."""
    policy = {"requires_approval": ["add_*"], "reverts": {"add_note": {"method": "delete_note",
                                                                       "args": {"note_id": "$result.id"}}}}
    for kind in KINDS:
        connector = connector_of_kind(kind, **policy)
        try:
            tools = await _tools(connector)
        finally:
            await connector.aclose()
        assert tools["add_note"].requires_approval and tools["add_note"].revert is not None, kind
        assert tools["delete_note"].revert is None, kind


async def _tools(connector: Connector) -> Mapping[str, Tool]:
    raw = connector.tools()
    return await raw if inspect.isawaitable(raw) else raw


VAULT_MODULE = '''
from codemode_kernel import Connector, tool
from codemode_kernel.errors import ConfigurationError

TOKEN = "vault-token-0123456789abcdef"

class Vault(Connector):
    def secrets(self):
        return [TOKEN]

    def tools(self):
        self.failure_summary = "its vault is sealed"
        raise ConfigurationError("the vault at /srv/vault (token " + TOKEN + ") is sealed")

def vault():
    return Vault()
'''


def test_a_configured_python_connector_keeps_its_secrets_and_failure_summary(tmp_path: Path) -> None:
    """Approval rules in a python table must not hide the connector's secrets() or failure_summary.

    The model is told the connector's own short reason, not the generic one (nor the full reason).
    """
    (tmp_path / "pol_vault.py").write_text(VAULT_MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.vault]\npython = "pol_vault:vault"\n'
                                            'requires_approval = true\n')
    config = load_config(tmp_path)
    assert config.problems == ()
    (vault,) = config.connectors
    assert isinstance(vault, WithPolicy)
    assert list(vault.secrets()) == ["vault-token-0123456789abcdef"]

    async def run() -> str:
        async with CodemodeRuntime([vault], store="sqlite://", executor=InProcessExecutor()) as rt:
            out = await rt.execute("vault.open()")
            return str(out["error"])

    error = asyncio.run(run())
    assert "connector 'vault' is unavailable: its vault is sealed" in error
    assert "0123456789abcdef" not in error and "/srv/vault" not in error


ITEMS_MODULE = '''
from codemode_kernel import ToolSetConnector

ITEMS = {}

def add_item(title: str) -> dict:
    """Add an item."""
    item = {"id": len(ITEMS) + 1, "title": title}
    ITEMS[item["id"]] = item
    return item

def delete_item(item_id: int) -> dict:
    """Delete an item."""
    return ITEMS.pop(item_id)

def items():
    return ToolSetConnector([add_item, delete_item], name="items")
'''


def test_a_python_table_takes_reverts_like_mcp_and_openapi(tmp_path: Path) -> None:
    """reverts = { add_item = { method = "delete_item", args = ... } } makes a python method revertible."""
    (tmp_path / "pol_items.py").write_text(ITEMS_MODULE)
    (tmp_path / "codemode.toml").write_text(
        '[connectors.items]\npython = "pol_items:items"\n'
        'reverts = { add_item = { method = "delete_item", args = { item_id = "$result.id" } } }\n')
    config = load_config(tmp_path)
    assert config.problems == ()
    module = importlib.import_module("pol_items")

    async def run() -> str:
        async with CodemodeRuntime(list(config.connectors), store="sqlite://", executor=InProcessExecutor()) as rt:
            out = await rt.execute("items.add_item(title='a')")
            assert module.ITEMS == {1: {"id": 1, "title": "a"}}
            await rt.rollback(out["execution_id"])
            state = await rt.execution(out["execution_id"])
            assert state is not None
            return state.status

    assert asyncio.run(run()) == "rolled_back"
    assert module.ITEMS == {}
