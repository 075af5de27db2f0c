"""Rollback: compensation in reverse order, every revert tried, errors joined."""

from __future__ import annotations

import pytest

from codemode_kernel.errors import InvalidStateError, RollbackError, UnknownExecutionError
from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_rollback_reverts_in_reverse_order(make_runtime: RuntimeFactory) -> None:
    """Applied calls are reverted last-first, whether or not they needed approval."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute("shop.add_item(title='a')\nshop.add_item(title='b')\nshop.create_item(title='c')")
    await rt.approve(paused["execution_id"])
    await rt.rollback(paused["execution_id"])
    assert shop.reverts == [("create_item", 4), ("create_item", 3), ("create_item", 2)]
    state = await rt.execution(paused["execution_id"])
    assert state is not None and state.status == "rolled_back"
    assert [e.state for e in state.log] == ["reverted"] * 3
    assert list(shop.items) == [1]


async def test_failing_revert_does_not_stop_the_rest(make_runtime: RuntimeFactory) -> None:
    """A failing revert is reported after all reverts were tried."""
    shop = Shop()
    shop.fail_revert = {3}
    rt = make_runtime([shop])
    out = await rt.execute("shop.add_item(title='a')\nshop.add_item(title='b')\nshop.add_item(title='c')")
    with pytest.raises(RollbackError) as info:
        await rt.rollback(out["execution_id"])
    assert info.value.failures == ["#1 shop.add_item: RuntimeError: cannot delete item 3"]
    assert shop.reverts == [("create_item", 4), ("create_item", 3), ("create_item", 2)]
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "rolled_back"
    assert [e.state for e in state.log] == ["reverted", "applied", "reverted"]


async def test_methods_without_revert_are_skipped(make_runtime: RuntimeFactory) -> None:
    """Reads and methods without a revert are skipped; no revert at all leaves the status alone."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute("shop.list_items()\nshop.get_item(item_id=1)")
    await rt.rollback(out["execution_id"])
    assert (await rt.execution(out["execution_id"])).status == "completed"  # type: ignore[union-attr]
    assert shop.reverts == []


async def test_unconfigured_connector_is_skipped(make_runtime: RuntimeFactory) -> None:
    """Calls to connectors no longer configured are skipped by rollback."""
    shop, other = Shop(), Shop(name="other")
    out = await make_runtime([shop, other]).execute("shop.add_item(title='a')\nother.add_item(title='b')")
    await make_runtime([shop]).rollback(out["execution_id"])
    assert shop.reverts == [("create_item", 2)]
    assert other.reverts == []


async def test_rollback_of_rejected_execution(make_runtime: RuntimeFactory) -> None:
    """A rejected execution's earlier applied actions can be rolled back."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute("shop.add_item(title='a')\nshop.create_item(title='b')")
    await rt.reject(paused["execution_id"])
    await rt.rollback(paused["execution_id"])
    assert shop.reverts == [("create_item", 2)]
    assert (await rt.execution(paused["execution_id"])).status == "rolled_back"  # type: ignore[union-attr]


async def test_rollback_twice_reverts_once(make_runtime: RuntimeFactory) -> None:
    """A second rollback finds nothing applied and reverts nothing again."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute("shop.add_item(title='a')")
    await rt.rollback(out["execution_id"])
    await rt.rollback(out["execution_id"])
    assert shop.reverts == [("create_item", 2)]


async def test_rollback_refused_for_paused_and_unknown(make_runtime: RuntimeFactory) -> None:
    """Rolling back a paused execution or an unknown id raises a clear error."""
    rt = make_runtime([Shop()])
    paused = await rt.execute("shop.create_item(title='a')")
    with pytest.raises(InvalidStateError, match="paused"):
        await rt.rollback(paused["execution_id"])
    with pytest.raises(UnknownExecutionError):
        await rt.rollback("missing")
