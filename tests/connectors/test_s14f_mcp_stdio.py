"""An MCP stdio server's lines are read with a cap; a call that was sent and got no answer is an unknown
outcome, one lost before it was sent a plain failure (review 14: H5's connector half, the stdio note)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from codemode_kernel.connectors import mcp
from codemode_kernel.connectors.base import ExecutionContext
from codemode_kernel.connectors.mcp import McpConnector
from codemode_kernel.errors import ConnectorError, OutcomeUnknown
from tests.support import STDIO_MCP_SERVER

pytestmark = pytest.mark.anyio

CTX = ExecutionContext("exec-1", 0, "srv", "m")
SERVER = str(STDIO_MCP_SERVER)


@pytest.fixture
def calls(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "calls.txt"


def server(calls: Path, **kw: Any) -> McpConnector:
    return McpConnector("srv", command=sys.executable, args=[SERVER], env={"CALLS_FILE": str(calls)}, **kw)


_TOOLS: dict[int, Any] = {}


async def call(connector: McpConnector, name: str, **args: Any) -> Any:
    """Call a method as the runtime does: the tools are listed once per connector."""
    if id(connector) not in _TOOLS:
        _TOOLS[id(connector)] = (connector, await connector.tools())
    return await _TOOLS[id(connector)][1][name].execute(args, CTX)


def made(calls: Path) -> list[str]:
    return calls.read_text().split() if calls.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_line_over_the_cap_ends_the_connection_with_an_error_naming_the_limit(calls: Path) -> None:
    """It is an error if a stdio server's line past ``max_line_bytes`` is read whole and handed to the call."""
    connector = server(calls)
    connector.max_line_bytes = 200_000
    try:
        with pytest.raises(ConnectorError) as caught:
            await call(connector, "big", size=300_000)
        assert "200,000 bytes" in str(caught.value) and "max_line_bytes" in str(caught.value), caught.value
        assert await call(connector, "echo", text="after") == "after"  # the next call reconnects
        assert await call(connector, "big", size=1000) == "x" * 1000
    finally:
        await connector.aclose()
    assert made(calls) == ["big", "echo", "big"]


async def test_the_default_cap_reads_a_call_value_at_the_size_limit(calls: Path) -> None:
    """It is an error if the default cap refuses an answer as large as a call's value may be."""
    assert getattr(mcp, "MAX_LINE_BYTES", 8_000_000) >= 8_000_000
    connector = server(calls)
    try:
        assert len(await call(connector, "big", size=1_000_000)) == 1_000_000
    finally:
        await connector.aclose()


async def test_a_call_that_timed_out_is_an_unknown_outcome(calls: Path) -> None:
    """It is an error if a call the server received and did not answer in time is a plain failure inviting a retry."""
    connector = server(calls, timeout=0.5)
    try:
        with pytest.raises(OutcomeUnknown) as caught:
            await call(connector, "slow", seconds=3)
        text = str(caught.value)
        assert "may have done it" in text and "try again" not in text.lower(), text
    finally:
        await connector.aclose()
    assert made(calls) == ["slow"]


async def test_a_server_dying_mid_call_is_an_unknown_outcome(calls: Path) -> None:
    """It is an error if a call the server received before dying is reported as one that did not happen."""
    connector = server(calls)
    try:
        await call(connector, "echo", text="a")
        with pytest.raises(OutcomeUnknown) as caught:
            await call(connector, "crash")
        text = str(caught.value)
        assert "was lost" in text and "may have done it" in text and "try again" not in text.lower(), text
        assert await call(connector, "echo", text="b") == "b"
    finally:
        await connector.aclose()
    assert made(calls) == ["echo", "crash", "echo"]


async def test_a_call_on_a_connection_already_dead_says_nothing_was_sent(calls: Path) -> None:
    """It is an error if a call that never reached a server killed between calls is reported as maybe done."""
    connector = server(calls)
    try:
        await call(connector, "echo", text="a")
        pid = await call(connector, "pid")
        os.kill(pid, 9)
        deadline = time.monotonic() + 10
        while alive(pid) and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        await anyio.sleep(0.2)  # the transport sees the end of the server's stdout
        with pytest.raises(ConnectorError) as caught:
            await call(connector, "echo", text="lost")
        assert not isinstance(caught.value, OutcomeUnknown), caught.value
        assert "was lost" in str(caught.value) and "nothing was sent" in str(caught.value), caught.value
        assert await call(connector, "echo", text="b") == "b"
    finally:
        await connector.aclose()
    assert made(calls) == ["echo", "echo"]
