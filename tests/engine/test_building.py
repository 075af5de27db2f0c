"""Building a runtime: connector and tool names are checked up front."""

from __future__ import annotations

import pytest

from codemode_kernel import CodemodeRuntime, Connector, Tool, ToolSetConnector, tool
from codemode_kernel.connectors.base import sanitize_identifier
from codemode_kernel.errors import ConfigurationError
from tests.support import Shop, echo


def test_duplicate_connector_names_are_refused() -> None:
    """It is an error to configure two connectors with one name."""
    with pytest.raises(ConfigurationError, match="two connectors are named 'shop'"):
        CodemodeRuntime([Shop(), Shop()], store="sqlite://")


def test_reserved_name_is_refused() -> None:
    """It is an error to name a connector `codemode`."""
    with pytest.raises(ConfigurationError, match="reserved"):
        CodemodeRuntime([Shop(name="codemode")], store="sqlite://")


def test_tools_that_sanitize_to_one_name_are_refused() -> None:
    """It is an error if two tool names become the same identifier; both are named."""

    class Clash(Connector):
        name = "clash"

        def tools(self) -> dict[str, Tool]:
            return {"list-items": tool(echo), "list_items": tool(echo)}

    with pytest.raises(ConfigurationError, match="'list-items' and 'list_items'"):
        CodemodeRuntime([Clash()], store="sqlite://")


@pytest.mark.parametrize(("raw", "ident"), [
    ("list-pull-requests", "list_pull_requests"), ("get /pets/{id}", "get_pets_id"), ("_private", "private"),
    ("2fa", "t_2fa"), ("class", "class_"), ("print", "print_"), ("", "tool"),
])
def test_sanitize_identifier(raw: str, ident: str) -> None:
    """Tool names become identifiers the sandbox accepts."""
    assert sanitize_identifier(raw) == ident


def test_toolset_schema_from_hints_and_docstring() -> None:
    """ToolSetConnector derives the input schema from type hints and the docstring."""

    def search_notes(query: str, limit: int = 10, tags: list[str] | None = None) -> list[dict[str, str]]:
        """Search notes.

        Args:
            query: Words to look for.
            limit: At most this many notes.
        """
        return []

    t = ToolSetConnector([search_notes], name="notes").tools()["search_notes"]
    assert t.description == "Search notes."
    assert t.input_schema == {
        "type": "object", "additionalProperties": False, "required": ["query"],
        "properties": {
            "query": {"type": "string", "description": "Words to look for."},
            "limit": {"type": "integer", "description": "At most this many notes.", "default": 10},
            "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
        },
    }


def test_toolset_refuses_unknown_names() -> None:
    """requires_approval naming an unknown function is a configuration error."""
    with pytest.raises(ConfigurationError, match="unknown function"):
        ToolSetConnector([echo], name="x", requires_approval={"nope"})


class Flaky(Connector):
    """A connector whose tool listing fails until it is told to recover (an MCP server that is down)."""

    name = "flaky"

    def __init__(self) -> None:
        self.up = False

    async def tools(self) -> dict[str, Tool]:  # type: ignore[override]
        if not self.up:
            raise RuntimeError("server did not start: exit status 1")
        return {"ping": tool(echo)}


@pytest.mark.anyio
async def test_unavailable_connector_does_not_block_others() -> None:
    """A connector whose tools() fails is left out with its reason, and retried on the next execution."""
    from codemode_kernel import InProcessExecutor

    flaky = Flaky()
    async with CodemodeRuntime([Shop(), flaky], store="sqlite://", executor=InProcessExecutor()) as rt:
        assert (await rt.execute("len(shop.list_items())"))["result"] == 1
        out = await rt.execute("flaky.ping(value=1)")
        assert out["status"] == "error"
        assert "connector 'flaky' is unavailable: its methods could not be listed" in out["error"]
        assert "exit status 1" not in out["error"]  # the reason is the author's (issue 10, item 5)
        assert (await rt.catalog()).unavailable["flaky"] == "RuntimeError: server did not start: exit status 1"
        flaky.up = True
        assert (await rt.execute("flaky.ping(value=1)"))["result"] == 1
