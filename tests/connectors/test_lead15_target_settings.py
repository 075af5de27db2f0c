"""What counts in a connector's target beyond its command or URL (review 15 H1, review 15x M10): the settings
that pick the backend do; a credential's value, which rotates while the backend stays, does not."""

from __future__ import annotations

import asyncio
import sys

import pytest

from codemode_kernel import McpConnector, OpenApiConnector
from codemode_kernel.connectors.http_auth import HttpAuth
from codemode_kernel.targets import fingerprint

DOC = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {}}
ARGS = ["-m", "codemode_kernel.demo.mcp_server"]


def stdio(**env: str) -> McpConnector:
    return McpConnector("memo", command=sys.executable, args=ARGS, cwd="/srv", env=env)


def test_a_rotated_token_in_env_is_the_same_target_and_another_database_is_not() -> None:
    assert stdio(NOTES_DB="/a.db", API_TOKEN="old").target == stdio(NOTES_DB="/a.db", API_TOKEN="new").target
    assert stdio(NOTES_DB="/a.db").target != stdio(NOTES_DB="/b.db").target


def test_a_url_password_rotates_but_its_user_and_host_count() -> None:
    same = stdio(DATABASE_URL="postgresql://app:one@db/prod").target
    assert same == stdio(DATABASE_URL="postgresql://app:two@db/prod").target
    assert same != stdio(DATABASE_URL="postgresql://app:one@db/staging").target


def test_env_references_are_read_as_the_connection_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAD15_TENANT", "team-a")
    a = McpConnector("memo", url="https://${LEAD15_TENANT}.example.org/mcp").target
    monkeypatch.setenv("LEAD15_TENANT", "team-b")
    assert a != McpConnector("memo", url="https://${LEAD15_TENANT}.example.org/mcp").target


def test_openapi_accounts_differ_by_the_variable_they_read_not_by_its_value(monkeypatch: pytest.MonkeyPatch) -> None:
    def api(env: str) -> OpenApiConnector:
        return OpenApiConnector("svc", DOC, base_url="https://api.example.org", auth=HttpAuth.bearer(token_env=env))

    monkeypatch.setenv("LEAD15_ALICE", "t1")
    before = fingerprint(api("LEAD15_ALICE"))
    monkeypatch.setenv("LEAD15_ALICE", "t2")  # rotated
    assert fingerprint(api("LEAD15_ALICE")) == before
    monkeypatch.setenv("LEAD15_BOB", "t3")
    assert fingerprint(api("LEAD15_BOB")) != before


def test_no_credential_is_stored_in_a_target_nor_its_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAD15_SECRET", "lead15-value-9f3")
    c = McpConnector("memo", command=sys.executable, args=ARGS, env={"X": "${LEAD15_SECRET}", "DB": "u:p@h"},
                     cwd="/srv")
    assert "lead15-value-9f3" not in (c.target or "") and "lead15-value-9f3" not in fingerprint(c)


def test_a_plain_mcp_configuration_keeps_the_target_it_had() -> None:
    """Executions recorded before these settings counted stay approvable: nothing is added when there is none."""
    assert McpConnector("memo", url="https://mcp.example.org/mcp").target == "mcp https://mcp.example.org/mcp"


def test_an_openapi_target_names_its_routes_once_the_document_is_read() -> None:
    """Where each method sends what (review 15 H6): a changed path is another target, a changed summary is not."""
    def target(path: str, summary: str) -> str | None:
        doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
               "paths": {path: {"delete": {"operationId": "drop", "summary": summary,
                                           "parameters": [{"name": "id", "in": "path", "required": True,
                                                           "schema": {"type": "string"}}],
                                           "responses": {"200": {"description": "ok"}}}}}}
        c = OpenApiConnector("svc", doc, base_url="https://api.example.org")
        asyncio.run(c.tools())
        return c.target

    first = target("/pets/{id}", "Delete a pet.")
    assert first is not None and " routes#" in first
    assert target("/pets/{id}", "Remove a pet.") == first
    assert target("/stores/{id}", "Delete a pet.") != first
