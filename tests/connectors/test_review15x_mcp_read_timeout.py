"""Review 15x: a read-only MCP tool that times out is reported as an action that may have been done.

The MCP connector raises ``OutcomeUnknown`` for every call that got no answer in time (mcp.py
``_no_answer``): "The call was sent, so the server may have done it: check (e.g. with a tool
that reads) before calling it again". For a tool the server marks ``readOnlyHint`` (the demo's
``memo.slow``, ``list_notes``), that advice is wrong - there is nothing to have been done, and
calling it again is the fix - and the entry is left ``executing`` for good, as a write of
unknown outcome. The OpenAPI connector already tells them apart (GET and HEAD get a plain
timeout error, "Try again later").
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, McpConnector

pytestmark = pytest.mark.anyio


async def test_a_read_only_tool_that_times_out_is_a_plain_error(tmp_path: Path) -> None:
    memo = McpConnector("memo", command=sys.executable, args=["-m", "codemode_kernel.demo.mcp_server"],
                        approval_from_annotations=True, timeout=1)
    async with CodemodeRuntime([memo], store=f"sqlite:///{tmp_path / 'j.db'}", executor=InProcessExecutor()) as rt:
        out = await rt.execute("memo.slow(seconds=3)")
        execution = await rt.execution(out["execution_id"])
    assert out["status"] == "error"
    assert "did not answer within 1 s" in out["error"]
    assert "OutcomeUnknown" not in out["error"] and "may have done it" not in out["error"], out["error"]
    assert execution is not None and execution.log[0].state == "error", execution.log[0].state
