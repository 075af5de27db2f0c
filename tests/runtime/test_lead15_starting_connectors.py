"""A connector still starting keeps out of the passes that do not name it (review 15x M13, the runtime's side).

Each connector is resolved in its own task: a pass waits for the connectors its program names (or for all
of them when it uses ``codemode``: search, describe and snippets may reach any) and for the others only a
short grace after their start, so a server that hangs at start does not hold up the first cell of a
notebook, and a later pass that names it waits and gets it.
Counted with events, not timed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, ToolSetConnector
from codemode_kernel.catalog import CatalogResolver

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass that does not name a connector waits for it only this long after its start began."""
    monkeypatch.setattr(CatalogResolver, "START_GRACE_SECONDS", 0.2)


def plain() -> ToolSetConnector:
    def ping() -> str:
        """Answer pong."""
        return "pong"

    return ToolSetConnector([ping], name="fast", target="lead15 fast")


class Slow(ToolSetConnector):
    """A connector whose tool list comes when ``release`` is set (a server still starting)."""

    def __init__(self) -> None:
        def archive(text: str) -> str:
            """Archive a text."""
            return f"archived {text}"

        super().__init__([archive], name="slow", target="lead15 slow")
        self.release = asyncio.Event()
        self.asked = 0

    async def tools(self) -> Any:  # type: ignore[override]
        self.asked += 1
        await self.release.wait()
        return super().tools()


async def test_a_pass_that_does_not_name_a_starting_connector_does_not_wait_for_it() -> None:
    slow = Slow()
    async with CodemodeRuntime([plain(), slow], store="sqlite://", executor=InProcessExecutor()) as rt:
        out = await asyncio.wait_for(rt.execute("fast.ping()"), 30)  # would hang while slow starts
        assert out["status"] == "completed" and out["result"] == "pong", out
        assert slow.asked == 1
        named = asyncio.ensure_future(rt.execute("slow.archive(text='a')"))
        await asyncio.sleep(0.05)
        assert not named.done(), "a pass that names it waits for it"
        slow.release.set()
        done = await asyncio.wait_for(named, 30)
        assert done["status"] == "completed" and done["result"] == "archived a", done
        assert slow.asked == 1, "started once, not again for the second pass"


async def test_a_program_that_uses_codemode_waits_for_every_connector() -> None:
    slow = Slow()
    async with CodemodeRuntime([plain(), slow], store="sqlite://", executor=InProcessExecutor()) as rt:
        search = asyncio.ensure_future(rt.execute("str(codemode.search('archive a text'))"))
        await asyncio.sleep(0.05)
        assert not search.done()
        slow.release.set()
        out = await asyncio.wait_for(search, 30)
        assert out["status"] == "completed" and "slow.archive" in out["result"], out


async def test_closing_the_runtime_stops_a_start_still_in_flight() -> None:
    slow = Slow()
    rt = CodemodeRuntime([plain(), slow], store="sqlite://", executor=InProcessExecutor())
    out = await rt.execute("fast.ping()")
    assert out["status"] == "completed", out
    await rt.aclose()  # the pending tools() is cancelled and awaited: no task is left behind (warnings are errors)
    assert slow.asked == 1
