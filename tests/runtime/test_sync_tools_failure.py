"""A synchronous connector whose ``tools()`` raises is reported unavailable; the others still work."""

from __future__ import annotations

import pytest

from codemode_kernel import CodemodeRuntime, Connector, Tool, tool

pytestmark = pytest.mark.anyio


def add(a: int, b: int) -> int:
    return a + b


class Good(Connector):
    name = "good"

    def tools(self) -> dict[str, Tool]:
        return {"add": tool(add)}


class Broken(Connector):
    name = "broken"

    def __init__(self) -> None:
        self.listed = 0

    def tools(self) -> dict[str, Tool]:
        self.listed += 1
        raise RuntimeError("the tool list service is down")


async def test_a_raising_sync_tools_leaves_the_others_usable() -> None:
    broken = Broken()
    async with CodemodeRuntime([Good(), broken], store="sqlite://") as rt:
        out = await rt.execute("good.add(a=2, b=3)")
        assert out["status"] == "completed", out
        assert out["result"] == 5
        catalog = await rt.catalog()
        assert "broken" in catalog.unavailable
        assert "the tool list service is down" in catalog.unavailable["broken"]
        failed = await rt.execute("broken.anything()")
        assert failed["status"] == "error", failed
    assert broken.listed >= 2  # asked again on a later catalog: a service that comes back is picked up
