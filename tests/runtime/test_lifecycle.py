"""Lifecycle hooks: on_pass_end after every pass, dispose_execution after terminal transitions only."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_hooks_for_pause_then_completion(make_runtime: RuntimeFactory) -> None:
    """A paused pass fires on_pass_end only; the completing pass fires both hooks."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute("shop.create_item(title='x')")
    eid = paused["execution_id"]
    assert shop.hooks == [("on_pass_end", eid, "paused")]
    await rt.approve(eid)
    assert shop.hooks[1:] == [("on_pass_end", eid, "completed"), ("dispose_execution", eid, "completed")]


async def test_hooks_for_error_reject_and_rollback(make_runtime: RuntimeFactory) -> None:
    """error, rejected and rolled_back each fire on_pass_end then dispose_execution."""
    shop = Shop()
    rt = make_runtime([shop])
    err = (await rt.execute("1/0"))["execution_id"]
    rej = (await rt.execute("shop.create_item(title='x')"))["execution_id"]
    await rt.reject(rej)
    done = (await rt.execute("shop.add_item(title='y')"))["execution_id"]
    shop.hooks.clear()
    await rt.rollback(done)
    assert shop.hooks == [("on_pass_end", done, "rolled_back"), ("dispose_execution", done, "rolled_back")]
    assert (("dispose_execution", err, "error")) not in shop.hooks


async def test_hooks_run_for_every_connector_and_failures_are_ignored(make_runtime: RuntimeFactory) -> None:
    """Every configured connector gets the hooks, even ones the code did not call; hook errors are ignored."""
    shop, other = Shop(), Shop(name="other")

    async def broken(execution_id: str, status: str) -> None:
        raise RuntimeError("hook failed")

    other.on_pass_end = broken  # type: ignore[method-assign]
    rt = make_runtime([other, shop])
    out = await rt.execute("shop.list_items()\n7")
    assert out["result"] == 7
    assert shop.hooks == [("on_pass_end", out["execution_id"], "completed"),
                          ("dispose_execution", out["execution_id"], "completed")]


async def test_expiry_disposes(make_runtime: RuntimeFactory) -> None:
    """expire_paused rejects stale paused executions and disposes them."""
    shop = Shop()
    rt = make_runtime([shop])
    eid = (await rt.execute("shop.create_item(title='x')"))["execution_id"]
    shop.hooks.clear()
    assert await rt.expire_paused(max_age=timedelta(0)) == [eid]
    assert shop.hooks == [("on_pass_end", eid, "rejected"), ("dispose_execution", eid, "rejected")]
