"""A call recorded as ``replay="reexecute"`` is run again on replay only while its method still is one.

Session 13 left it noticed: after a ``%reload`` (or another host with the same connector), an ephemeral
entry was run again with the *current* catalog's method, without asking for approval even when that method
now needs it. A person never approved that call; the replay must not make it.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import Tool, tool
from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


class GuardedShop(Shop):
    """The same backend, reconfigured: ``ping`` now needs approval (and is journaled with its result)."""

    def tools(self) -> dict[str, Tool]:
        tools = dict(super().tools())
        tools["ping"] = tool(self.ping, requires_approval=True)
        return tools


class LoggedShop(Shop):
    """The same backend, reconfigured: ``ping`` is an ordinary logged read now."""

    def tools(self) -> dict[str, Tool]:
        tools = dict(super().tools())
        tools["ping"] = tool(self.ping)
        return tools


async def _paused_after_ping(make_runtime: RuntimeFactory) -> tuple[Shop, dict[str, Any]]:
    first = Shop()
    rt = make_runtime([first])
    paused = await rt.execute("p = shop.ping()\nshop.create_item(title='x')\np")
    assert paused["status"] == "paused" and first.calls["ping"] == 1
    return first, paused


async def test_reexecute_entry_is_not_run_when_the_method_now_needs_approval(make_runtime: RuntimeFactory) -> None:
    _, paused = await _paused_after_ping(make_runtime)
    guarded = GuardedShop()
    rt = make_runtime([guarded])
    out = await rt.approve(paused["execution_id"])
    assert guarded.calls["ping"] == 0, "ping ran without the approval its method now requires"
    assert guarded.calls["create_item"] == 0
    assert out["status"] == "error" and out["error_type"] == "InvalidStateError", out
    text = out["error"]
    assert "shop.ping" in text and "approval" in text and "new execution" in text, text


async def test_reexecute_entry_is_not_run_when_the_method_is_no_longer_reexecuted(
        make_runtime: RuntimeFactory) -> None:
    _, paused = await _paused_after_ping(make_runtime)
    logged = LoggedShop()
    rt = make_runtime([logged])
    out = await rt.approve(paused["execution_id"])
    assert logged.calls["ping"] == 0 and logged.calls["create_item"] == 0
    assert out["status"] == "error" and out["error_type"] == "InvalidStateError", out
    assert "replay='log'" in out["error"], out["error"]


async def test_unchanged_reexecute_method_still_runs_again(make_runtime: RuntimeFactory) -> None:
    """The guard does not break the documented behaviour: same policy, the read runs on every pass."""
    _, paused = await _paused_after_ping(make_runtime)
    again = Shop()
    rt = make_runtime([again])
    out = await rt.approve(paused["execution_id"])
    assert out["status"] == "completed", out
    assert again.calls["ping"] == 1 and again.calls["create_item"] == 1
