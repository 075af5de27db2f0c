"""Replay: divergence, codemode.step, replay='reexecute', and exact values through the codec."""

from __future__ import annotations

import pytest

from codemode_kernel import CodemodeRuntime, Connector, Tool, tool
from codemode_kernel.errors import ConfigurationError
from tests.conftest import RuntimeFactory
from tests.support import Shop, echo

pytestmark = pytest.mark.anyio


class Values(Connector):
    name = "values"

    def __init__(self) -> None:
        self.seen: list[object] = []

    def tools(self) -> dict[str, Tool]:
        def keep(value: object = None) -> object:
            self.seen.append(value)
            return value

        return {"echo": tool(echo, input_schema={"type": "object"}),
                "keep": tool(keep, input_schema={"type": "object"}, requires_approval=True)}


async def test_divergent_arguments_fail_with_step_advice(make_runtime: RuntimeFactory) -> None:
    """A pass whose call N has other arguments than the journal fails and tells the model to use codemode.step."""
    shop = Shop()
    rt = make_runtime([shop])
    # ping is re-executed on every pass and returns 1, then 2: the read's arguments change.
    paused = await rt.execute("n = shop.ping()\nshop.list_items() if n > 5 else None\n"
                              "shop.create_item(title='t' + str(n))")
    out = await rt.approve(paused["execution_id"])
    assert out["status"] == "error"
    assert out["error_type"] == "ReplayDivergence"
    assert "codemode.step" in out["error"]
    assert "#1" in out["error"] and "t1" in out["error"] and "t2" in out["error"]
    assert shop.calls["create_item"] == 0
    assert (await rt.execution(paused["execution_id"])).status == "error"  # type: ignore[union-attr]


@pytest.mark.parametrize("second", ["shop.get_item(item_id=1)", "other.list_items()"])
async def test_divergent_method_or_connector_is_detected(make_runtime: RuntimeFactory, second: str) -> None:
    """Calling another method or connector at a recorded position is a divergence, never a silent replay."""
    shop, other = Shop(), Shop(name="other")
    rt = make_runtime([shop, other])
    code = f"if shop.ping() == 1:\n    shop.list_items()\nelse:\n    {second}\nshop.create_item(title='x')"
    paused = await rt.execute(code)
    out = await rt.approve(paused["execution_id"])
    assert out["error_type"] == "ReplayDivergence"
    assert "shop.list_items" in out["error"] and second.split("(")[0] in out["error"]
    assert shop.calls["create_item"] == 0 and shop.calls["get_item"] == 0 and other.calls == {}


async def test_step_runs_once_and_replays(make_runtime: RuntimeFactory) -> None:
    """codemode.step runs fn once; later passes get the recorded value, so arguments stay stable."""
    shop = Shop()
    rt = make_runtime([shop])
    code = ("token = codemode.step('token', lambda: str(uuid.uuid4()))\n"
            "print('token', token)\n"
            "shop.create_item(title=token)['title'] == token")
    paused = await rt.execute(code)
    first_token = paused["pending"][0]["args"]["title"]
    out = await rt.approve(paused["execution_id"])
    assert out["status"] == "completed" and out["result"] is True
    assert out["logs"] == [f"token {first_token}"]
    assert shop.items[2]["title"] == first_token


async def test_step_that_raises_is_not_recorded(make_runtime: RuntimeFactory) -> None:
    """A step whose function raised leaves no recorded value; the code sees the original exception."""
    rt = make_runtime([Shop()])
    code = "try:\n    codemode.step('bad', lambda: 1 / 0)\nexcept ZeroDivisionError:\n    r = 'caught'\nr"
    out = await rt.execute(code)
    assert out["result"] == "caught"
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.log == []


async def test_reexecute_methods_run_on_every_pass(make_runtime: RuntimeFactory) -> None:
    """replay='reexecute' calls are journaled (seq, args) without results, and called again on later passes."""
    shop = Shop()
    rt = make_runtime([shop])
    paused = await rt.execute("p = shop.ping()\nshop.create_item(title='x')\np")
    assert shop.calls["ping"] == 1
    out = await rt.approve(paused["execution_id"])
    assert shop.calls["ping"] == 2
    assert out["result"] == 2
    state = await rt.execution(paused["execution_id"])
    assert state is not None
    assert state.log[0].ephemeral is True and state.log[0].result is None


async def test_reexecute_with_approval_is_refused() -> None:
    """replay='reexecute' together with requires_approval is refused when the runtime is built."""

    class Bad(Connector):
        name = "bad"

        def tools(self) -> dict[str, Tool]:
            return {"op": tool(echo, requires_approval=True, replay="reexecute")}

    with pytest.raises(ConfigurationError, match="reexecute"):
        CodemodeRuntime([Bad()], store="sqlite://")


@pytest.mark.parametrize("literal", [
    "b'\\x00\\xffbytes'", "(1, (2, 'x'), [3])", "datetime.datetime(2026, 11, 30, 7, 1, 2, 345678)",
    "datetime.date(2026, 2, 28)", "{'$codemode': 'tuple', 'v': [1]}",
    "{'nested': [b'a', (datetime.date(2020, 1, 1),)], 'n': None, 'f': 1.5}",
])
async def test_values_round_trip_exactly_through_replay(make_runtime: RuntimeFactory, literal: str) -> None:
    """bytes, tuple, datetime and date arguments and results replay exactly as the first pass saw them."""
    values = Values()
    rt = make_runtime([values])
    code = (f"v = {literal}\nr = values.echo(value=v)\nsame1 = (r == v and type(r) == type(v))\n"
            "values.keep(value=r)\n[same1, r]")
    paused = await rt.execute(code)
    out = await rt.approve(paused["execution_id"])
    assert out["status"] == "completed", out
    assert out["result"][0] is True
    assert values.seen == [out["result"][1]]
