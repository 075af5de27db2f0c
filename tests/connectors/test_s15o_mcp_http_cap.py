"""An MCP server over streamable HTTP is read with a cap (s15o, item 4), against the demo server.

The MCP SDK's HTTP client read an answer whole however long it was (3 MB and more from the demo
server); the stdio transport has ``max_line_bytes``, HTTP had nothing of ours. The right outcome: an
answer over the connector's ``max_response_bytes`` is not read, and the call fails with an error naming
the limit and how to raise it (an unknown outcome: the server may have done it); an answer under it is
read whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import McpConnector
from codemode_kernel.errors import OutcomeUnknown
from tests.connectors.services import TOKEN, Service

pytestmark = pytest.mark.anyio


def _connector(service: Service) -> McpConnector:
    return McpConnector("notes", url=service.url, headers={"Authorization": f"Bearer {TOKEN}"})


async def _call(connector: McpConnector, method: str, **args: Any) -> Any:
    tools = await connector.tools()
    return await tools[method].execute(args, None)  # type: ignore[arg-type]


async def test_an_answer_over_max_response_bytes_is_refused(mcp_http_service: Service) -> None:
    """It is an error if a 300 kB answer is read whole by a connector whose max_response_bytes is 100,000, or if
    the error does not name the limit and how to raise it."""
    connector = _connector(mcp_http_service)
    connector.max_response_bytes = 100_000
    try:
        with pytest.raises(OutcomeUnknown) as caught:
            await _call(connector, "shout", text="a" * 300_000)
        message = str(caught.value)
        assert "max_response_bytes" in message and "100,000" in message and "raise" in message, message
        assert await _call(connector, "word_count", text="a b c") == 3, "a small answer is read after it"
    finally:
        await connector.aclose()


async def test_an_answer_under_the_limit_is_read(mcp_http_service: Service) -> None:
    """It is an error if an answer within max_response_bytes (the default) is refused: 800,000 characters with
    400,000 line breaks, 1.2 M characters of JSON (over the 1 MiB the SDK allows an event by default)."""
    connector = _connector(mcp_http_service)
    try:
        assert await _call(connector, "shout", text="a\n" * 400_000) == "A\n" * 400_000
    finally:
        await connector.aclose()


def test_max_response_bytes_is_a_configuration_key(tmp_path: Path) -> None:
    """It is an error if the error's advice (max_response_bytes in the connector's table) cannot be followed."""
    connector = McpConnector.from_config("notes", {"mcp": {"url": "http://127.0.0.1:9/mcp"},
                                                   "max_response_bytes": 50_000_000}, tmp_path)
    assert connector.max_response_bytes == 50_000_000
