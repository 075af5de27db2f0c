"""Expiry, retention, deletion and named runtimes sharing one store."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from tests.conftest import RuntimeFactory, StoreSql
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_expire_paused_rejects_only_stale(make_runtime: RuntimeFactory) -> None:
    """Paused executions older than max_age become rejected; fresh ones stay paused."""
    rt = make_runtime([Shop()])
    eid = (await rt.execute("shop.create_item(title='x')"))["execution_id"]
    assert await rt.expire_paused(max_age=timedelta(hours=1)) == []
    assert await rt.expire_paused(max_age=timedelta(0)) == [eid]
    state = await rt.execution(eid)
    assert state is not None and state.status == "rejected" and state.log[0].state == "error"
    assert (await rt.approve(eid))["refused"] is True


async def test_stale_running_becomes_error_and_is_never_revived(make_runtime: RuntimeFactory,
                                                               store_sql: StoreSql) -> None:
    """A running execution left by a crashed host is marked error by expiry; approval cannot revive it."""
    shop = Shop()
    rt = make_runtime([shop])
    eid = (await rt.execute("shop.create_item(title='x')"))["execution_id"]
    # what a host crash mid-pass leaves behind
    store_sql("UPDATE codemode_executions SET status='running' WHERE id = :eid", eid=eid)
    assert (await rt.approve(eid))["refused"] is True
    assert await rt.expire_paused(max_age=timedelta(0)) == [eid]
    state = await rt.execution(eid)
    assert state is not None and state.status == "error" and "stale" in (state.error or "")
    assert shop.calls["create_item"] == 0


async def test_max_executions_prunes_terminal_only(make_runtime: RuntimeFactory) -> None:
    """Starting an execution prunes terminal ones beyond max_executions; paused ones are kept."""
    rt = make_runtime([Shop()], max_executions=3)
    paused = (await rt.execute("shop.create_item(title='x')"))["execution_id"]
    ids = [(await rt.execute(f"{i}"))["execution_id"] for i in range(6)]
    kept = [e.id for e in await rt.executions()]
    # three terminal ones survive each prune, plus the newest (not terminal while it was pruning)
    assert set(kept) == set(ids[-4:]) | {paused}


async def test_default_max_executions_is_50(make_runtime: RuntimeFactory) -> None:
    """The default retention keeps 50 terminal executions (plus the new one)."""
    rt = make_runtime([Shop()])
    assert rt.max_executions == 50


async def test_delete_and_prune(make_runtime: RuntimeFactory) -> None:
    """delete_execution removes one (disposing a non-terminal one); prune_executions keeps the newest."""
    shop = Shop()
    rt = make_runtime([shop])
    ids = [(await rt.execute(f"{i}"))["execution_id"] for i in range(4)]
    paused = (await rt.execute("shop.create_item(title='x')"))["execution_id"]
    shop.hooks.clear()
    assert await rt.delete_execution(paused) is True
    assert shop.hooks == [("dispose_execution", paused, "rejected")]
    assert await rt.delete_execution(paused) is False
    assert await rt.prune_executions(keep=1) == 3
    assert [e.id for e in await rt.executions()] == [ids[-1]]


async def test_executions_are_newest_first_and_ids_sort_by_time(make_runtime: RuntimeFactory) -> None:
    """Execution ids sort by creation time; executions() lists newest first and honours limit."""
    rt = make_runtime([Shop()])
    ids = []
    for i in range(3):
        ids.append((await rt.execute(str(i)))["execution_id"])
        time.sleep(0.002)
    assert ids == sorted(ids)
    assert [e.id for e in await rt.executions(limit=2)] == [ids[2], ids[1]]
    assert await rt.execution("missing") is None


async def test_named_runtimes_share_a_store_separately(make_runtime: RuntimeFactory) -> None:
    """Runtimes with different names in one store have separate executions and snippets."""
    research = make_runtime([Shop()], name="research")
    operations = make_runtime([Shop()], name="operations")
    r = (await research.execute("1"))["execution_id"]
    o = (await operations.execute("2"))["execution_id"]
    await research.save_snippet("one", execution_id=r)
    assert [e.id for e in await research.executions()] == [r]
    assert [e.id for e in await operations.executions()] == [o]
    assert await operations.snippets() == []
    assert (await operations.approve(r))["error_type"] == "UnknownExecutionError"
