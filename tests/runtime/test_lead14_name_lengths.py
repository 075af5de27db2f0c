"""Names the journal keeps are bounded and refused clearly when longer (review 14, M3; lead, session 14).

The journal keeps connector, method and step names in 256-character columns, which PostgreSQL
enforces. A step name over ``codec.MAX_NAME_CHARS`` (200) is refused in the program before it
takes a call number; a tool whose name is longer leaves its connector unavailable with the reason;
a connector name that long is refused when the runtime is built (as is a synchronous tool list
with such a name: the runtime resolves those when it is built).
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, Tool, ToolSetConnector
from codemode_kernel.codec import MAX_NAME_CHARS
from codemode_kernel.connectors.base import Connector
from codemode_kernel.errors import ConfigurationError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


async def test_a_step_name_over_the_limit_is_refused_in_the_program(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([])
    out = await rt.execute(f"try:\n    codemode.step('s' * {MAX_NAME_CHARS + 1}, lambda: 5)\nexcept ValueError as e:\n"
                           "    r = str(e)\nr")
    assert out["status"] == "completed", out
    assert out["result"] == f"a step's name is {MAX_NAME_CHARS + 1} characters; the limit is {MAX_NAME_CHARS}: give " \
                            "the step a shorter name"
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.log == [], "the refused step took no call number"
    fine = await rt.execute(f"codemode.step('s' * {MAX_NAME_CHARS}, lambda: 5)")
    assert fine == {"status": "completed", "execution_id": fine["execution_id"], "result": 5}, fine


class LongTool(Connector):
    """Lists its tools asynchronously, as an MCP server does."""

    name = "wide"

    async def tools(self) -> dict[str, Tool]:
        def run(args: dict[str, Any], ctx: Any) -> int:
            return 1

        return {"t" * (MAX_NAME_CHARS + 1): Tool(execute=run, description="A tool with a long name.",
                                                 input_schema={"type": "object"})}


async def test_a_tool_name_over_the_limit_leaves_its_connector_unavailable(make_runtime: RuntimeFactory) -> None:
    def ping() -> str:
        """Answer."""
        return "pong"

    rt = make_runtime([LongTool(), ToolSetConnector([ping], name="ok")])
    catalog = await rt.catalog()
    assert "wide" not in catalog.methods and "ok" in catalog.methods
    why = catalog.unavailable["wide"]
    assert f"has a name of {MAX_NAME_CHARS + 1} characters; the limit is {MAX_NAME_CHARS}" in why
    out = await rt.execute("ok.ping()")
    assert out["status"] == "completed" and out["result"] == "pong", out


def test_a_connector_name_over_the_limit_is_refused() -> None:
    def ping() -> str:
        """Answer."""
        return "pong"

    with pytest.raises(ConfigurationError, match=f"the limit is {MAX_NAME_CHARS}: choose a shorter name"):
        CodemodeRuntime([ToolSetConnector([ping], name="n" * (MAX_NAME_CHARS + 1))], store="sqlite://")
