"""An MCP client's answer decides only the call its question named (s11a).

The question names call #k. If a person decides #k elsewhere (the notebook, its panel, another
client) after the server checked the question still applies but before the answer is carried
out, and the program pauses again on call #m, the answer must not approve #m, which nobody was
asked about. The interleaving is made deterministic by letting the other front end act at the
moment the answer reaches the runtime.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime
from codemode_kernel.serve.approvals import apply
from tests.serving.serving_support import SHOP_TWO_CREATES as TWO
from tests.support import Shop

pytestmark = pytest.mark.anyio



def decided_elsewhere_first(rt: CodemodeRuntime, name: str, seq: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``rt.<name>`` first let another front end approve call #``seq``, then do what it was asked."""
    real = getattr(rt, name)
    approve = rt.approve

    async def late(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(rt, name, real)
        moved = await approve(args[0], seq=seq)
        assert moved["status"] == "paused", moved
        return await real(*args, **kwargs)

    monkeypatch.setattr(rt, name, late)


async def test_an_approval_answer_for_a_call_decided_meanwhile_approves_nothing(
        runtime: tuple[CodemodeRuntime, Shop], monkeypatch: pytest.MonkeyPatch) -> None:
    rt, shop = runtime
    paused = await rt.execute(TWO)
    asked = paused["pending"][0]
    assert asked["seq"] == 0
    decided_elsewhere_first(rt, "approve", asked["seq"], monkeypatch)
    assert await apply(rt, asked, "approve") is None
    assert shop.calls["create_item"] == 1, "call #1 was never asked about and did not run"
    now = await rt.pending(paused["execution_id"])
    assert [p.seq for p in now] == [1]


async def test_a_rejection_answer_for_a_call_decided_meanwhile_rejects_nothing(
        runtime: tuple[CodemodeRuntime, Shop], monkeypatch: pytest.MonkeyPatch) -> None:
    rt, shop = runtime
    paused = await rt.execute(TWO)
    asked = paused["pending"][0]
    decided_elsewhere_first(rt, "reject", asked["seq"], monkeypatch)
    assert await apply(rt, asked, "reject") is None
    state = await rt.execution(paused["execution_id"])
    assert state is not None and state.status == "paused", "the execution still waits for call #1"
    assert shop.calls["create_item"] == 1


async def test_an_answer_for_the_pending_call_still_approves_it(runtime: tuple[CodemodeRuntime, Shop]) -> None:
    rt, shop = runtime
    paused = await rt.execute(TWO)
    first = await apply(rt, paused["pending"][0], "approve")
    assert first is not None and first["status"] == "paused"
    done = await apply(rt, first["pending"][0], "approve")
    assert done is not None and done["status"] == "completed" and done["result"] == ["A", "B"]
    assert shop.calls["create_item"] == 2
