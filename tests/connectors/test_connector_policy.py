"""Configuration shared by the real connectors: approval rules, revert templates, environment references."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode_kernel.connectors.http_auth import HttpAuth
from codemode_kernel.connectors.openapi_document import OpenApiDocument
from codemode_kernel.connectors.policy import ApprovalRule, RevertMapping, expand_env, parse_reverts
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
