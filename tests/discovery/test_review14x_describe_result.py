"""Review 14x: ``codemode.describe('conn.method.return')`` of a large result, as a model reads it.

A result shaped like GitHub's ``full-repository`` (about a hundred documented fields, a few of
them nested objects) is too long for the 8,000-character detail cap with every field's doc.
Today the cap's fallback levels only cut *nested definitions* (40, 12, 3, 0), never the field
docs, so the last level declares the whole result as ``dict[str, Any]``: the model learns
nothing, not even that the repository has a ``full_name``. In the GitHub document this is
``repos_get``, ``orgs_get``, ``repos_update``, ``repos_create_for_authenticated_user`` and 31
more of the 930 methods that declare a result. The note above it also says "the arguments
have more nested types" in a describe of the *result* (222 GitHub ``.return`` describes).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, OpenApiConnector
from codemode_kernel.discovery.describe import DETAIL_CAP

pytestmark = pytest.mark.anyio


def _user() -> dict[str, Any]:
    props = {f"user_field_{i}": {"type": "string", "description": f"User detail {i}.",
                                 "example": f"https://api.example.com/users/octocat/detail_{i}"} for i in range(20)}
    props["login"] = {"type": "string", "example": "octocat"}
    return {"type": "object", "title": "Simple User", "description": "A user.", "properties": props,
            "required": ["login"]}


def _repository() -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": {"type": "integer", "description": "Unique identifier of the repository.", "example": 42},
        "full_name": {"type": "string", "example": "octocat/Hello-World"},
        "default_branch": {"type": "string", "description": "The default branch of the repository.",
                           "example": "main"},
        "stargazers_count": {"type": "integer", "example": 80},
        "owner": {"$ref": "#/components/schemas/simple-user"},
        "license": {"$ref": "#/components/schemas/simple-user"},
        "organization": {"$ref": "#/components/schemas/simple-user"},
    }
    for i in range(90):
        props[f"detail_{i:02d}_url"] = {"type": "string", "format": "uri",
                                        "description": f"Where detail {i} of the repository is read.",
                                        "example": f"https://api.example.com/repos/octocat/Hello-World/detail_{i}"}
    return {"type": "object", "title": "Full Repository", "description": "Full Repository",
            "properties": props, "required": ["id", "full_name", "default_branch", "owner"]}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Code hosting", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {"/repos/{owner}/{repo}": {"get": {
        "operationId": "repos_get", "summary": "Get a repository",
        "parameters": [{"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}},
                       {"name": "repo", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "Response", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/full-repository"}}}}}}}},
    "components": {"schemas": {"full-repository": _repository(), "simple-user": _user()}},
}


@pytest.fixture
async def rt() -> AsyncIterator[CodemodeRuntime]:
    async with CodemodeRuntime([OpenApiConnector("hub", DOCUMENT)], store="sqlite://",
                               executor=InProcessExecutor()) as runtime:
        yield runtime


async def test_a_large_result_still_names_its_fields(rt: CodemodeRuntime) -> None:
    """Within the detail cap, the result's own fields are declared (nested objects may shrink to dict)."""
    out = await rt.describe("hub.repos_get.return")
    assert len(out.types) <= DETAIL_CAP
    for name in ("full_name", "default_branch", "stargazers_count", "owner"):
        assert name in out.types, out.types


async def test_the_note_of_a_result_describe_speaks_of_the_result(rt: CodemodeRuntime) -> None:
    """A describe of the result never says the *arguments* were cut short (the method has two strings)."""
    out = await rt.describe("hub.repos_get.return")
    full = await rt.describe("hub.repos_get", full=True)
    for text in (out.types, full.types):
        assert "the arguments have more nested types" not in text, text
        assert "the result have" not in text, text  # "the result has"
