"""Review 15x: an unknown outcome reaches programs, models and agent hosts as a plain ConnectorError.

README: the OpenAPI and MCP connectors "raise ``OutcomeUnknown`` (``codemode_kernel.errors``;
raise it from your own connectors too) ... the program gets the error". What the program
gets is ``ConnectorError('OutcomeUnknown: ...')``: ``except OutcomeUnknown`` is a NameError in
the sandbox (``ConnectorError`` and ``ArgumentError`` are defined), and the tool's outcome
says ``"error_type": "ConnectorError"``, ``"error": "ConnectorError: OutcomeUnknown: ..."`` -
an agent host that must stop and ask a person when a write may have happened has to parse
the message, and a program that would retry ordinary connector errors but not this one
cannot tell them apart except by text.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.errors import OutcomeUnknown

pytestmark = pytest.mark.anyio


def send(to: str) -> dict:
    """Send a message."""
    raise OutcomeUnknown("mail.send: the server did not answer after the message was sent")


async def test_the_tool_outcome_names_outcome_unknown(tmp_path: Path) -> None:
    async with CodemodeRuntime([ToolSetConnector([send], name="mail")], store=f"sqlite:///{tmp_path / 'j.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.tool().call('mail.send(to="ada")')
    assert out["status"] == "error"
    assert out["error_type"] == "OutcomeUnknown", out


async def test_a_program_can_catch_outcome_unknown_by_name(tmp_path: Path) -> None:
    code = 'try:\n    mail.send(to="ada")\nexcept OutcomeUnknown:\n    r = "unknown"\nr'
    async with CodemodeRuntime([ToolSetConnector([send], name="mail")], store=f"sqlite:///{tmp_path / 'j.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute(code)
    assert out.get("result") == "unknown", out


async def test_outcome_unknown_is_still_a_connector_error_in_the_sandbox(tmp_path: Path) -> None:
    """Programs written for ConnectorError keep catching it (lead, session 15)."""
    code = 'try:\n    mail.send(to="ada")\nexcept ConnectorError as e:\n    r = isinstance(e, OutcomeUnknown)\nr'
    async with CodemodeRuntime([ToolSetConnector([send], name="mail")], store=f"sqlite:///{tmp_path / 'j.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute(code)
    assert out.get("result") is True, out
