"""McpConnector against the demo server in-process: catalog, results, approval, reverts, configuration."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp.server import Server

from codemode_kernel.connectors.base import ExecutionContext, Tool
from codemode_kernel.connectors.mcp import McpConnector
from codemode_kernel.demo.mcp_server import NoteStore, build_server
from codemode_kernel.discovery.stubs import method_stub
from codemode_kernel.errors import ConfigurationError, ConnectorError

pytestmark = pytest.mark.anyio

CTX = ExecutionContext("exec-1", 0, "notes", "m")


async def call(tools: dict[str, Tool] | Any, name: str, **args: Any) -> Any:
    return await tools[name].execute(args, CTX)


@pytest.fixture
async def notes() -> Any:
    store = NoteStore()
    connector = McpConnector("notes", server=build_server(store), approval_from_annotations=True)
    yield connector, store
    await connector.aclose()


async def test_every_tool_becomes_a_method_with_sanitized_names(notes: Any) -> None:
    """One method per MCP tool; ``word-count`` becomes ``word_count``; descriptions and schemas carry over."""
    connector, _ = notes
    tools = await connector.tools()
    assert {"add_note", "list_notes", "get_note", "delete_note", "word_count", "shout", "summary_json", "chart",
            "fail", "slow", "whoami", "stats"} == set(tools)
    assert tools["add_note"].description == "Add a note and return it with its new id."
    assert tools["add_note"].input_schema["required"] == ["title"]
    assert set(tools["add_note"].input_schema["properties"]) == {"title", "body", "tags"}
    assert connector.instructions is None or isinstance(connector.instructions, str)


async def test_wrapped_outputs_are_unwrapped_in_schema_and_value(notes: Any) -> None:
    """The SDK's ``{"result": ...}`` wrapper is removed: the code gets the list or the number."""
    connector, _ = notes
    tools = await connector.tools()
    assert tools["word_count"].output_schema == {"type": "integer"}
    assert tools["list_notes"].output_schema is not None and tools["list_notes"].output_schema["type"] == "array"
    assert await call(tools, "word_count", text="one two three") == 3
    await call(tools, "add_note", title="milk", tags=["shop"])
    assert await call(tools, "list_notes") == [{"id": 1, "title": "milk", "body": "", "tags": ["shop"]}]


async def test_results_are_plain_values(notes: Any) -> None:
    """Structured content, JSON text, plain text and mixed content each arrive as plain values."""
    connector, _ = notes
    tools = await connector.tools()
    assert await call(tools, "add_note", title="a") == {"id": 1, "title": "a", "body": "", "tags": []}
    assert await call(tools, "shout", text="hi") == "HI"
    assert await call(tools, "summary_json") == {"count": 1, "tags": []}
    chart = await call(tools, "chart", title="sales")
    assert chart[0] == {"type": "text", "text": "Chart: sales"}
    assert chart[1]["type"] == "image" and chart[1]["mime_type"] == "image/png" and chart[1]["data"]


async def test_error_results_raise_connector_error_with_the_message(notes: Any) -> None:
    """An ``is_error`` result is a ConnectorError carrying the server's message."""
    connector, _ = notes
    tools = await connector.tools()
    with pytest.raises(ConnectorError, match=r"notes\.fail failed: .*the disk is full"):
        await call(tools, "fail", message="the disk is full")
    with pytest.raises(ConnectorError, match="no note with id 99"):
        await call(tools, "get_note", note_id=99)


async def test_approval_from_annotations(notes: Any) -> None:
    """destructive_hint → approval; read_only_hint → none; neither → none."""
    connector, _ = notes
    tools = await connector.tools()
    assert tools["delete_note"].requires_approval
    assert not tools["list_notes"].requires_approval
    assert not tools["add_note"].requires_approval


async def test_approval_from_configuration_names_and_patterns() -> None:
    """Names (server or sanitized) and patterns need approval; no_approval exempts; annotations off by default."""
    connector = McpConnector("notes", server=build_server(), requires_approval=["add_*", "word-count"],
                             no_approval=["delete_note"])
    tools = await connector.tools()
    assert {n for n, t in tools.items() if t.requires_approval} == {"add_note", "word_count"}
    everything = await McpConnector("notes", server=build_server(), requires_approval=True,
                                    no_approval=["list_*"]).tools()
    assert not everything["list_notes"].requires_approval and everything["add_note"].requires_approval


async def test_unknown_names_in_rules_are_refused() -> None:
    """An exact name that is no tool is a configuration error that suggests the right one."""
    connector = McpConnector("notes", server=build_server(), requires_approval=["add_notes"])
    with pytest.raises(ConfigurationError, match=r"requires_approval names 'add_notes'.*Did you mean 'add_note'"):
        await connector.tools()


async def test_revert_mapping_calls_another_tool(notes: Any) -> None:
    """A revert mapping calls the named tool with arguments taken from the result."""
    store = NoteStore()
    connector = McpConnector("notes", server=build_server(store),
                             reverts={"add_note": {"method": "delete_note", "args": {"note_id": "$result.id"}}})
    tools = await connector.tools()
    note = await call(tools, "add_note", title="temp")
    assert store.notes
    revert = tools["add_note"].revert
    assert revert is not None
    await revert({"title": "temp"}, note, CTX)
    assert store.notes == {}
    assert store.calls["delete_note"] == 1


async def test_declarations_of_every_tool_are_valid_python(notes: Any) -> None:
    """describe() material for each tool parses."""
    connector, _ = notes
    for name, t in (await connector.tools()).items():
        ast.parse(method_stub(name, description=t.description, input_schema=t.input_schema,
                              output_schema=t.output_schema, requires_approval=t.requires_approval))


def _paged_server(names: list[list[str]]) -> Server[Any]:
    """A low-level server that lists its tools in pages."""

    async def list_tools(ctx: Any, params: mcp_types.PaginatedRequestParams | None) -> mcp_types.ListToolsResult:
        page = int(params.cursor) if params is not None and params.cursor else 0
        tools = [mcp_types.Tool(name=n, description=f"tool {n}", input_schema={"type": "object"})
                 for n in names[page]]
        return mcp_types.ListToolsResult(tools=tools, next_cursor=str(page + 1) if page + 1 < len(names) else None)

    async def call_tool(ctx: Any, params: mcp_types.CallToolRequestParams) -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=params.name)])

    return Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_paging_of_list_tools_is_followed() -> None:
    """Every page of tools/list contributes methods."""
    connector = McpConnector("paged", server=_paged_server([["a", "b"], ["c"], ["d-e"]]))
    tools = await connector.tools()
    assert set(tools) == {"a", "b", "c", "d_e"}
    assert await call(tools, "d_e") == "d-e"


async def test_colliding_names_are_refused_naming_both() -> None:
    """Two tools that sanitize to one identifier are refused, naming both originals."""
    connector = McpConnector("paged", server=_paged_server([["list-items"], ["list_items"]]))
    with pytest.raises(ConfigurationError, match=r"'list-items' and 'list_items' both become the method name"):
        await connector.tools()


def test_constructor_needs_exactly_one_target() -> None:
    """command=, url= and server= are mutually exclusive, and one is needed."""
    with pytest.raises(ConfigurationError, match="exactly one of command="):
        McpConnector("x")
    with pytest.raises(ConfigurationError, match="exactly one of command="):
        McpConnector("x", command="a", url="http://127.0.0.1:1/mcp")


def test_from_config_builds_a_stdio_connector(tmp_path: Path) -> None:
    """A [connectors.x] table with an mcp command becomes a connector; cwd is relative to the file."""
    table = {"mcp": {"command": "python", "args": ["-m", "codemode_kernel.demo.mcp_server"], "cwd": "sub",
                     "env": {"A": "${HOME}"}},
             "requires_approval": ["add_*"], "approval_from_annotations": True, "timeout": 5, "hint": "Notes.",
             "reverts": {"add_note": {"method": "delete_note", "args": {"note_id": "$result.id"}}}}
    connector = McpConnector.from_config("notes", table, tmp_path)
    assert connector.name == "notes" and connector.instructions == "Notes." and connector.timeout == 5.0
    assert connector.approval_from_annotations
    assert connector._target.command == sys.executable  # "python" is the kernel's own interpreter, not PATH's
    shell = McpConnector.from_config("time", {"mcp": "mcp-server-time --local-timezone UTC"}, tmp_path)
    assert shell.name == "time"


@pytest.mark.parametrize(("table", "message"), [
    ({"mcp": {"command": "x"}, "requires_aproval": []},
     r"unknown key 'requires_aproval'\. Did you mean 'requires_approval'"),
    ({"mcp": {"command": "x", "url": "http://a"}}, "exactly one of `command`"),
    ({"mcp": {"url": "http://a", "args": ["x"]}}, "apply to `command` servers only"),
    ({"mcp": {"command": "x", "headers": {"a": "b"}}}, "applies to `url` servers only"),
    ({"mcp": {"command": "x", "args": "--flag"}}, "args must be a list of strings"),
    ({"mcp": {"command": "x"}, "timeout": -1}, "timeout must be a positive number"),
    ({"mcp": {"command": "x"}, "requires_approval": "yes"}, "requires_approval must be true, false or a list"),
    ({"mcp": {"command": "x"}, "reverts": {"a": {"method": "b", "args": {"x": "$resul.id"}}}},
     "must start with \\$result or \\$args"),
    ({"mcp": 3}, "mcp must be a table"),
])
def test_from_config_refuses_bad_tables(tmp_path: Path, table: dict[str, Any], message: str) -> None:
    """Each bad table is a ConfigurationError naming the table, the key and the problem."""
    with pytest.raises(ConfigurationError, match=message) as info:
        McpConnector.from_config("notes", table, tmp_path)
    assert str(info.value).startswith("[connectors.notes]")
