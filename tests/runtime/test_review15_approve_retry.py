"""An approval refused because a connector was down stays refused for a minute after it is back (review 15).

An execution records every connector configured when it started (DESIGN §5, "Connector set"), and
``runtime._approve`` refuses while any of them is missing from the catalog. A connector whose server
did not start is left out of the catalog and asked again only after ``CatalogResolver.RETRY_SECONDS``
(60 s), or at once for a *program* that names it (``needs``) or with ``catalog(retry=True)`` -
``approve`` does neither (``await self.catalog()``). So a person who approves while a server is
restarting is refused, and every click for the next minute is refused too, though the server is
back; the refusal says the connector is "not configured now; configure them again" - it is
configured, and nothing needs configuring.

The right outcome: an approval asks the connectors its execution needs again before refusing, so
the second click, with the server back, runs the call once.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import ConfigurationError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


class Flaky(ToolSetConnector):
    """A connector whose server is down while ``down`` is set (as an MCP server restarting)."""

    def __init__(self, down: bool) -> None:
        def now() -> str:
            """The time."""
            return "12:00"

        super().__init__([now], name="clock", target="review15 clock")
        self.down = down

    def tools(self) -> Any:
        if self.down:
            raise ConfigurationError("connector 'clock': its MCP server did not start")
        return super().tools()


def notes(calls: dict[str, int]) -> ToolSetConnector:
    def add(text: str) -> dict[str, Any]:
        """Add a note (needs approval)."""
        calls["add"] += 1
        return {"text": text}

    return ToolSetConnector([add], name="notes", requires_approval={"add"}, target="review15 notes")


async def test_an_approval_after_the_server_came_back_runs(make_runtime: RuntimeFactory) -> None:
    calls = {"add": 0}
    first = make_runtime([notes(calls), Flaky(down=False)])
    paused = await first.execute("notes.add(text='hello')")
    assert paused["status"] == "paused", paused

    clock = Flaky(down=True)  # a restarted host: clock's server is slow to come up
    later = make_runtime([notes(calls), clock])
    refused = await later.approve(paused["execution_id"], seq=0)
    assert refused["status"] == "error" and refused.get("refused"), refused
    clock.down = False
    again = await later.approve(paused["execution_id"], seq=0)  # clock is back now
    assert again["status"] == "completed", again
    assert calls["add"] == 1
