"""The code tool, like a runtime pass, ends the program with a HostError when checking a call's
arguments fails on the host's side (a schema that refers to itself forever raises RecursionError):
the connector is not called and the error says what happened and what to do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from codemode_kernel import Connector, create_code_tool
from codemode_kernel.connectors.base import Tool, tool
from tests.conftest import make_executor

pytestmark = pytest.mark.anyio

LOOPING = {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}


class Looping(Connector):
    name = "loop"

    def __init__(self) -> None:
        self.calls = 0

    def tools(self) -> dict[str, Tool]:
        def go(**_args: object) -> str:
            self.calls += 1
            return "ran"

        return {"go": tool(go, input_schema=LOOPING), "ok": tool(lambda: "fine", input_schema={"type": "object"})}


@pytest.fixture(params=["inprocess", "subprocess"])
def executor(request: pytest.FixtureRequest) -> Iterator[Any]:
    yield make_executor(request.param)


async def test_a_schema_check_that_raises_ends_the_program_and_calls_nothing(executor: Any) -> None:
    connector = Looping()
    code_tool = create_code_tool([connector], executor=executor)
    out = await code_tool.call("try:\n    loop.go(q=1)\nexcept BaseException:\n    pass\n'carried on'")
    assert connector.calls == 0
    assert out.get("result") != "carried on", out
    error = str(out.get("error", ""))
    assert out.get("error_type") == "HostError" and "could not check the arguments of loop.go" in error, out
    assert "RecursionError" in error and "schema is at fault" in error, out
    # The tool still serves the next program.
    assert (await code_tool.call("loop.ok()"))["result"] == "fine"
    await code_tool.aclose()
