"""The panel's connector list says why a connector has no methods (issue 16, item 4: ``ghost 0 methods``)."""

from __future__ import annotations

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.kernel.panel import PanelChannel
from tests.conftest import RuntimeFactory
from tests.panel.conftest import FakeComm, FakeCommManager, Host, Panel

pytestmark = pytest.mark.anyio

REASON = "the server exited (run it in a terminal to see its output)."


class Down(ToolSetConnector):
    """A connector whose methods cannot be listed, as an MCP server that does not start."""

    async def tools(self):  # type: ignore[no-untyped-def]
        raise RuntimeError(REASON)


def ping() -> str:
    """Ping."""
    return "pong"


async def test_an_unavailable_connector_is_listed_with_its_reason(make_runtime: RuntimeFactory) -> None:
    manager = FakeCommManager()
    channel = PanelChannel(Host(make_runtime([Down([ping], name="ghost"), ToolSetConnector([ping], name="up")])))
    channel.register(manager)
    panel = Panel(channel, manager.open(PanelChannel.target_name, FakeComm()))
    listed = {c["name"]: c for c in await panel.data("list_connectors")}
    assert listed["ghost"]["methods"] == [] and REASON in listed["ghost"]["unavailable"]
    assert listed["up"]["unavailable"] is None and [m["name"] for m in listed["up"]["methods"]] == ["ping"]
    await channel.drain()
