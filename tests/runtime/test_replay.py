"""Replay: divergence, codemode.step, replay='reexecute', and exact values through the codec."""

from __future__ import annotations

from typing import Any

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


class RecordingExecutor:
    """Wraps an executor and records every request its sandbox sends to the host."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.requests: list[dict[str, Any]] = []

    async def execute(self, code: str, namespaces: Any, *, host: Any, **options: Any) -> Any:
        async def recording(message: dict[str, Any]) -> dict[str, Any]:
            self.requests.append(dict(message))
            reply: dict[str, Any] = await host(message)
            return reply

        return await self.inner.execute(code, namespaces, host=recording, **options)

    def interrupt(self) -> bool:
        return bool(self.inner.interrupt())

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_recorded_prefix_is_replayed_inside_the_sandbox(make_runtime: RuntimeFactory, executor_kind: str) -> None:
    """On the approval pass only the approved call reaches the host; the reads before it replay in the sandbox."""
    from tests.conftest import make_executor

    shop = Shop()
    recorder = RecordingExecutor(make_executor(executor_kind))
    rt = make_runtime([shop], executor=recorder)
    code = ("n = len(shop.list_items())\nt = codemode.step('t', lambda: 'x')\nitem = shop.get_item(item_id=1)\n"
            "shop.create_item(title=item['title'] + t)['id']")
    paused = await rt.execute(code)
    first_pass = len(recorder.requests)
    out = await rt.approve(paused["execution_id"])
    assert out["result"] == 2 and shop.calls == {"list_items": 1, "get_item": 1, "create_item": 1}
    second = recorder.requests[first_pass:]
    assert [(r["op"], r.get("method"), r["replayed"]) for r in second] == [("call", "create_item", 3)]


async def test_an_impossible_replay_position_fails_the_pass(make_runtime: RuntimeFactory) -> None:
    """A sandbox that claims to have replayed more than the journal allows is stopped by the host."""
    from codemode_kernel.passes import PassHandler, PassState
    from codemode_kernel.runtime_journal import open_journal

    rt = make_runtime([Shop()])
    catalog = await rt.catalog()
    with open_journal(rt.store, rt.name) as journal:
        def handler(state: PassState) -> PassHandler:
            return PassHandler(journal=journal, catalog=catalog, state=state,
                               search=str, describe=str, snippet=lambda n, i: {})

        too_far = handler(PassState("x", 2, {}, local_plan=1))
        reply = await too_far({"op": "call", "connector": "shop", "method": "list_items", "args": {}, "replayed": 2})
        assert "abort" in reply and "ProtocolError" in reply["abort"]
        moving = handler(PassState("y", 1, {}, local_plan=0))
        assert "value" in await moving({"op": "call", "connector": "shop", "method": "list_items", "args": {},
                                        "replayed": 0})
        reply = await moving({"op": "call", "connector": "shop", "method": "list_items", "args": {}, "replayed": 1})
        assert "abort" in reply


def test_local_replay_plan_stops_where_the_host_must_decide() -> None:
    """The plan is the contiguous recorded prefix: it stops at pending, re-executed and over-budget entries."""
    from codemode_kernel.journal import EntryRow
    from codemode_kernel.passes import local_replay_plan

    def entry(seq: int, state: str, result: str | None = "1", ephemeral: bool = False) -> EntryRow:
        return EntryRow(seq, "shop", "m", "{}", result, False, ephemeral, state, "KeyError: x", 1, 0, 0)

    journal = {0: entry(0, "applied"), 1: entry(1, "error", None), 2: entry(2, "pending", None),
               3: entry(3, "applied")}
    plan = local_replay_plan(journal)
    assert plan == [{"c": "shop", "m": "m", "a": "{}", "v": 1},
                    {"c": "shop", "m": "m", "a": "{}", "r": {"type": "KeyError", "message": "x"}}]
    assert local_replay_plan({0: entry(0, "applied", ephemeral=True)}) == []
    assert len(local_replay_plan({0: entry(0, "applied", '"' + "x" * 50 + '"'), 1: entry(1, "applied")},
                                 budget=40)) == 0
