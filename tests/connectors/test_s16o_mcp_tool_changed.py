"""An approval (or a rollback's revert) runs an MCP tool as its server defines it *now* (session 15's note).

An execution records each connector's target (the command line, URL and settings of an MCP server); the
server's tool definitions are not part of it. A server is upgraded, or lists its tools from what it is
pointed at: ``delete_item`` takes another input, or the name ``delete_item`` now stands for another
tool (``delete-item`` became ``delete_item``). A restarted kernel lists the tools again, and approving
the paused ``delete_item(item='7')`` sends it to a tool the person was never shown; a rollback sends the
revert to a changed revert tool likewise.

The right outcome: an approval whose pending tool changed its input schema or the tool its name maps
to is refused, and nothing is sent; a rollback whose revert tool changed likewise. A change to another
tool, or to a description alone, refuses nothing.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import McpConnector
from codemode_kernel.errors import ConfigurationError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

#: A stdio server whose tools are those of the JSON file TOOLS_FILE (read at each listing); every call is
#: appended to CALLS_FILE as ``server name + arguments``, and answers ``{"id": "n1"}``.
SERVER = textwrap.dedent('''
    import json, os, sys
    from mcp import types
    from mcp.server import Server

    async def list_tools(ctx, params):
        with open(os.environ["TOOLS_FILE"], encoding="utf-8") as f:
            return types.ListToolsResult(tools=[types.Tool(**t) for t in json.load(f)])

    async def call_tool(ctx, params):
        with open(os.environ["CALLS_FILE"], "a", encoding="utf-8") as f:
            f.write(json.dumps([params.name, params.arguments]) + "\\n")
        return types.CallToolResult(content=[types.TextContent(type="text", text='{"id": "n1"}')])

    if __name__ == "__main__":
        import anyio
        from mcp.server.stdio import stdio_server

        server = Server("s16o-items", on_list_tools=list_tools, on_call_tool=call_tool)

        async def main():
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(main)
    ''')

ITEM = {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}


def tool(name: str, schema: dict[str, Any] = ITEM, description: str = "Delete an item.") -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": schema}


TOOLS = [tool("delete_item"), tool("add_item", description="Add an item."),
         tool("list_items", {"type": "object", "properties": {}}, "List the items.")]


class Items:
    """The server's files and a way to build a connector on it (a new one is a restarted kernel's)."""

    def __init__(self, tmp_path: Path) -> None:
        self.script = tmp_path / "items_server.py"
        self.script.write_text(SERVER, encoding="utf-8")
        self.tools_file = tmp_path / "tools.json"
        self.calls_file = tmp_path / "calls.jsonl"
        self.calls_file.write_text("", encoding="utf-8")
        self.serve(TOOLS)

    def serve(self, tools: list[dict[str, Any]]) -> None:
        self.tools_file.write_text(json.dumps(tools), encoding="utf-8")

    def connector(self) -> McpConnector:
        return McpConnector(
            "items", command=sys.executable, args=[str(self.script)], connect_timeout=20,
            env={"TOOLS_FILE": str(self.tools_file), "CALLS_FILE": str(self.calls_file)},
            requires_approval=["delete_item"],
            reverts={"add_item": {"method": "delete_item", "args": {"item": "$result.id"}}})

    def calls(self) -> list[list[Any]]:
        return [json.loads(line) for line in self.calls_file.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def items(tmp_path: Path) -> Items:
    return Items(tmp_path)


async def paused_delete(make_runtime: RuntimeFactory, items: Items) -> str:
    first = make_runtime([items.connector()])
    out = await first.execute("items.delete_item(item='7')")
    assert out["status"] == "paused", out
    await first.aclose()
    return str(out["execution_id"])


def replaced(name: str, new: dict[str, Any]) -> list[dict[str, Any]]:
    return [new if t["name"] == name else t for t in TOOLS]


async def test_an_approval_is_refused_when_the_pending_tool_takes_another_input(
        make_runtime: RuntimeFactory, items: Items) -> None:
    execution_id = await paused_delete(make_runtime, items)
    wider = {"type": "object", "properties": {"item": {"type": "string"}, "everything": {"type": "boolean",
                                                                                        "default": True}},
             "required": ["item"]}
    items.serve(replaced("delete_item", tool("delete_item", wider)))
    later = make_runtime([items.connector()])  # a restarted kernel lists the tools again
    out = await later.approve(execution_id, seq=0)
    assert out.get("refused") is True and out["error_type"] == "ConfigurationError", out
    assert "items.delete_item" in out["error"] and "runtime.reject(" in out["error"], out["error"]
    assert items.calls() == []
    state = await later.execution(execution_id)
    assert state is not None and state.status == "paused"


async def test_an_approval_is_refused_when_the_name_stands_for_another_tool(
        make_runtime: RuntimeFactory, items: Items) -> None:
    items.serve([tool("delete-item"), *TOOLS[1:]])  # the method delete_item is the server's 'delete-item'
    execution_id = await paused_delete(make_runtime, items)
    items.serve(TOOLS)  # ... and now the server's 'delete_item', another tool
    later = make_runtime([items.connector()])
    out = await later.approve(execution_id, seq=0)
    assert out.get("refused") is True and out["error_type"] == "ConfigurationError", out
    assert items.calls() == []


async def test_a_change_to_another_tool_or_to_a_description_refuses_nothing(
        make_runtime: RuntimeFactory, items: Items) -> None:
    execution_id = await paused_delete(make_runtime, items)
    tools = replaced("list_items", tool("list_items", {"type": "object", "properties": {"limit": {"type": "integer"}}}))
    tools = [tool("delete_item", description="Delete an item for good."), *tools[1:]]
    items.serve(tools)
    later = make_runtime([items.connector()])
    out = await later.approve(execution_id, seq=0)
    assert out["status"] == "completed", out
    assert items.calls() == [["delete_item", {"item": "7"}]]


async def test_a_rollback_is_refused_when_the_revert_tool_takes_another_input(
        make_runtime: RuntimeFactory, items: Items) -> None:
    first = make_runtime([items.connector()])
    out = await first.execute("items.add_item(item='x')\nraise ValueError('then it failed')")
    assert out["status"] == "error", out
    await first.aclose()
    assert items.calls() == [["add_item", {"item": "x"}]]
    other = {"type": "object", "properties": {"item": {"type": "string", "description": "a folder: all in it"}},
             "required": ["item"]}
    items.serve(replaced("delete_item", tool("delete_item", other)))
    later = make_runtime([items.connector()])
    with pytest.raises(ConfigurationError, match=r"items\.delete_item"):
        await later.rollback(out["execution_id"])
    assert items.calls() == [["add_item", {"item": "x"}]]  # no revert sent


async def test_a_rollback_goes_ahead_when_only_the_reverted_tool_changed(
        make_runtime: RuntimeFactory, items: Items) -> None:
    first = make_runtime([items.connector()])
    out = await first.execute("items.add_item(item='x')\nraise ValueError('then it failed')")
    await first.aclose()
    items.serve(replaced("add_item", tool("add_item", {"type": "object", "properties": {"name": {"type": "string"}}})))
    later = make_runtime([items.connector()])
    await later.rollback(out["execution_id"])
    assert items.calls() == [["add_item", {"item": "x"}], ["delete_item", {"item": "n1"}]]


async def test_an_execution_recorded_before_tool_definitions_were_stays_approvable(
        make_runtime: RuntimeFactory, items: Items, store_sql: Any) -> None:
    execution_id = await paused_delete(make_runtime, items)
    [(text,)] = store_sql("SELECT options FROM codemode_executions WHERE id = :id", id=execution_id)
    options = json.loads(text)
    assert "tools" in options  # what this change records, taken out: as an older version recorded it
    del options["tools"]
    store_sql("UPDATE codemode_executions SET options = :o WHERE id = :id", o=json.dumps(options), id=execution_id)
    items.serve(replaced("delete_item", tool("delete_item", {"type": "object", "properties": {"item": {}}})))
    later = make_runtime([items.connector()])
    out = await later.approve(execution_id, seq=0)
    assert out["status"] == "completed", out
    assert items.calls() == [["delete_item", {"item": "7"}]]
