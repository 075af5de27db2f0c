"""Issue 14's defects 2-4, each pinned by the spec that failed before its fix.

2. What ``runtime.tool().call`` returns (and ``codemode mcp`` sends) is plain JSON.
3. A pass that outlives ``expire_paused`` reports the stored state, not ``completed``.
4. Code over 1,000,000 characters is refused before anything is recorded; a
   ``transform_result`` that raises returns the raw result, with a warning in the logs.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, ExecutionContext, Tool, ToolSetConnector, tool
from codemode_kernel.connectors.base import Connector
from codemode_kernel.serve import build_mcp_server
from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

EXTRA_TYPES = "(b'hi', datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5), (1, (2, 3)), {'k': b'\\x00'})"


def _strict_json(value: Any) -> Any:
    """What a model SDK does with a tool result: json.dumps, strictly."""
    return json.loads(json.dumps(value, allow_nan=False))


async def test_the_tool_returns_plain_json(make_runtime: RuntimeFactory) -> None:
    """bytes become {"$bytes": base64}, dates and datetimes ISO strings, tuples lists; JSON as it was stays."""
    rt = make_runtime([Shop()])
    out = await rt.tool().call(f"[{EXTRA_TYPES}, {{'n': 1, 'f': 1.5, 'none': None, 's': 'x'}}]")
    assert out["status"] == "completed"
    assert _strict_json(out) == out
    assert out["result"] == [
        [{"$bytes": "aGk="}, "2020-01-02", "2020-01-02T03:04:05", [1, [2, 3]], {"k": {"$bytes": "AA=="}}],
        {"n": 1, "f": 1.5, "none": None, "s": "x"}]


async def test_the_tools_paused_output_is_plain_json(make_runtime: RuntimeFactory) -> None:
    """The pending call's arguments, shown to the model, are plain JSON too."""

    def store_blob(blob: bytes, when: Any = None) -> str:
        """Store a blob."""
        return "stored"

    blobs = ToolSetConnector([store_blob], name="blobs", requires_approval={"store_blob"})
    rt = make_runtime([blobs])
    out = await rt.tool().call("blobs.store_blob(blob=b'\\x01', when=(1, datetime.date(2021, 5, 6)))")
    assert out["status"] == "paused" and _strict_json(out) == out
    assert out["pending"][0]["args"] == {"blob": {"$bytes": "AQ=="}, "when": [1, "2021-05-06"]}
    # The runtime's own API keeps Python values (a notebook shows them as they are).
    pending = await rt.pending(out["execution_id"])
    assert pending[0].args == {"blob": b"\x01", "when": (1, __import__("datetime").date(2021, 5, 6))}


async def test_codemode_mcp_sends_the_same_plain_json(make_runtime: RuntimeFactory) -> None:
    """The MCP server's structured result is the tool's plain JSON, not the journal's tagged form."""
    from mcp import Client

    rt = make_runtime([Shop()])
    async with Client(build_mcp_server(rt)) as client:
        result = await client.call_tool("codemode", {"code": EXTRA_TYPES})
    sent = result.structured_content
    assert sent is not None and sent["status"] == "completed"
    assert sent["result"] == [{"$bytes": "aGk="}, "2020-01-02", "2020-01-02T03:04:05", [1, [2, 3]],
                              {"k": {"$bytes": "AA=="}}]


class Expirer(Connector):
    """A connector whose call, mid-pass, has another runtime instance expire every running execution."""

    name = "other"

    def __init__(self) -> None:
        self.peer: CodemodeRuntime | None = None

    async def expire_everything(self, ctx: ExecutionContext) -> str:
        assert self.peer is not None
        # max_age < 0: every running execution counts as stale, as one left by a crashed host would.
        expired = await self.peer.expire_paused(max_age=timedelta(seconds=-1))
        assert ctx.execution_id in expired
        return "expired"

    def tools(self) -> dict[str, Tool]:
        return {"expire_everything": tool(self.expire_everything)}


@pytest.mark.parametrize("then", ["'done'", "shop.create_item(title='late')", "1 / 0"])
async def test_a_pass_that_outlives_its_expiry_reports_the_stored_state(make_runtime: RuntimeFactory,
                                                                        then: str) -> None:
    """Another instance expired the execution while its pass ran: the caller gets the stored 'error',
    not 'completed' (nor 'paused'), and the store keeps what the expiry recorded."""
    expirer, shop = Expirer(), Shop()
    rt = make_runtime([expirer, shop])
    expirer.peer = make_runtime([expirer, shop])
    out = await rt.execute(f"other.expire_everything()\n{then}")
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "error" and state.error_type == "Expired"
    assert out["status"] == "error" and out["error_type"] == "Expired", out
    assert "another host" in out["error"] and "not recorded" in out["error"]
    assert shop.calls["create_item"] == 0
    assert (await rt.approve(out["execution_id"]))["refused"] is True
    assert rt.store.integrity_problems() == []


async def test_code_over_the_limit_is_refused_before_anything_is_recorded(make_runtime: RuntimeFactory) -> None:
    """Code over 1,000,000 characters: an error naming the limit, and no execution in the store."""
    rt = make_runtime([Shop()])
    out = await rt.execute("x = 1\n" + "#" * 1_000_001)
    assert out["status"] == "error" and out["error_type"] == "ValueTooLarge" and "1,000,000" in out["error"]
    assert await rt.executions() == []
    assert await rt.execution(out["execution_id"]) is None


async def test_a_transform_that_raises_returns_the_raw_result_and_warns(make_runtime: RuntimeFactory,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    """transform_result failing does not fail the execution: the caller gets the raw result, the log a warning."""
    rt = make_runtime([Shop()], transform_result=lambda r: 1 / 0)
    with caplog.at_level(logging.WARNING, logger="codemode_kernel.runtime"):
        out = await rt.execute("[1, 2]")
    assert out["status"] == "completed" and out["result"] == [1, 2]
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "completed" and state.result == [1, 2]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert any("transform_result" in r.getMessage() and "ZeroDivisionError" in r.getMessage() for r in warnings)
