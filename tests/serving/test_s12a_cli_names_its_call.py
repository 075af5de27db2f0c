"""``codemode approve ID`` / ``codemode reject ID`` (no call number) decide only a call they read as pending (s12a).

The commands read the call pending now and decide it by its number. When they read none (another
host's approval is running its pass), they decide nothing: the runtime's "whatever is pending"
would decide the call that pass pauses on next, which the terminal never showed. Another front end
approves call #0 at the moment the command reads what is pending, and the read is answered as it
would have been while that approval's pass ran (nothing).
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime
from codemode_kernel.cli import _HANDLERS as COMMAND_HANDLERS
from codemode_kernel.cli import Console
from tests.serving.serving_support import SHOP_TWO_CREATES as TWO
from tests.support import Shop

pytestmark = pytest.mark.anyio



def read_while_another_approval_runs(rt: CodemodeRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    real = rt.pending

    async def mid_pass(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(rt, "pending", real)
        moved = await rt.approve(args[0], seq=0)  # another host; its pass pauses on call #1
        assert moved["status"] == "paused", moved
        return []

    monkeypatch.setattr(rt, "pending", mid_pass)


def never(question: str) -> str:
    raise AssertionError("the command asks nothing")


@pytest.mark.parametrize("command", ["approve", "reject"])
async def test_a_command_that_read_nothing_pending_decides_nothing(
        runtime: tuple[CodemodeRuntime, Shop], monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    rt, shop = runtime
    eid = (await rt.execute(TWO))["execution_id"]
    read_while_another_approval_runs(rt, monkeypatch)
    out = io.StringIO()

    code = await COMMAND_HANDLERS[command](rt, Console(False, out), {"execution": eid, "seq": None}, never)

    assert code == 1
    assert shop.calls["create_item"] == 1, "call #1, which the terminal never showed, did not run"
    state = await rt.execution(eid)
    assert state is not None and state.status == "paused"
    assert [(e.seq, e.state) for e in state.log] == [(0, "applied"), (1, "pending")]
    if command == "approve":
        assert "paused on a new call after this command looked" in out.getvalue()
        assert "nothing was approved" in out.getvalue()


async def test_approve_names_the_call_it_read(runtime: tuple[CodemodeRuntime, Shop]) -> None:
    rt, shop = runtime
    eid = (await rt.execute(TWO))["execution_id"]
    out = io.StringIO()
    assert await COMMAND_HANDLERS["approve"](rt, Console(False, out), {"execution": eid}, never) == 0
    assert out.getvalue().startswith("approving call #0 shop.create_item\n")
    assert shop.calls["create_item"] == 1
