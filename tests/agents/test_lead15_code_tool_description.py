"""The journal-less code tool marks a connector whose command is not installed, as runtime.tool() does."""

from __future__ import annotations

import pytest

from codemode_kernel import McpConnector, create_code_tool
from codemode_kernel.code_tool import code_tool_description

pytestmark = pytest.mark.anyio


async def test_a_connector_whose_command_is_missing_is_marked_unavailable_in_the_description() -> None:
    tool = create_code_tool([McpConnector("files", command="codemode-lead15-no-such-command")])
    try:
        line = next(x for x in tool.description.splitlines() if x.startswith("- files"))
    finally:
        await tool.aclose()
    assert "UNAVAILABLE" in line and "cannot be called" in line, line


def test_a_working_connector_is_not_marked() -> None:
    import sys

    text = code_tool_description({"files": McpConnector("files", command=sys.executable)})
    assert "UNAVAILABLE" not in text, text
