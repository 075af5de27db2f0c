"""Review 14x: small slips in the one-line descriptions a model and a person read.

- An approval-needing method whose summary has no full stop (most OpenAPI summaries: GitHub's
  "Create a pull request", the demo's "Create a pet") is declared with the docstring "Create a pet Needs
  approval." (describe.py appends " Needs approval." to the bare summary).
- Backquoted words lose their quotes but keep the gap: the demo notes connector's
  "with ``tag``, only the notes that have it" is searched and shown as "with tag , only".
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, OpenApiConnector, ToolSetConnector

pytestmark = pytest.mark.anyio

DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Pets", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {"/pets": {"post": {
        "operationId": "createPet", "summary": "Create a pet",
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}},
        "responses": {"201": {"description": "Created"}}}}},
}


def list_notes(tag: str = "") -> list[str]:
    """List notes, oldest first; with ``tag``, only the notes that have it."""
    return []


@pytest.fixture
async def rt() -> AsyncIterator[CodemodeRuntime]:
    connectors = [OpenApiConnector("pets", DOCUMENT), ToolSetConnector([list_notes], name="notes")]
    async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as runtime:
        yield runtime


async def test_the_approval_note_follows_a_full_sentence(rt: CodemodeRuntime) -> None:
    out = await rt.describe("pets.createPet")
    assert "Create a pet Needs approval" not in out.types, out.types
    assert "Create a pet. Needs approval." in out.types, out.types


async def test_a_backquoted_word_keeps_its_punctuation(rt: CodemodeRuntime) -> None:
    found = await rt.search("list notes")
    first = found.results[0]
    assert first.path == "notes.list_notes"
    assert "with tag, only" in first.description, first.description
