"""A step whose function raises a BaseException the code catches does not wreck the pass (review 12, on 118679e).

118679e refuses calls inside a step's function; the host, for a tampered worker, fails the pass
with a ProtocolError when a call, step or snippet request arrives while a step is pending
(passes.PassHandler._answer). The sandbox tells the host that a step ended only for a value or an
``Exception`` (``step_done``); a function that raises ``SystemExit``, ``KeyboardInterrupt`` or a
cell's own ``BaseException`` subclass leaves the step pending on the host, and when the code
catches it and goes on, its next call fails the pass as "the sandbox sent a call request while
codemode.step('s') was running". On 118679e's parent the same code completed, through a pause and
an approval, with each call run once.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

RAISES = {
    "SystemExit": "raise SystemExit(1)",
    "KeyboardInterrupt": "raise KeyboardInterrupt()",
    "a cell's BaseException": "raise Stop()",
}

CODE = """class Stop(BaseException):
    pass
def f():
    {raise_}
try:
    codemode.step('s', f)
except BaseException:
    pass
n = len(shop.list_items())
b = shop.create_item(title='y')
[n, b['id']]"""


@pytest.mark.parametrize("raise_", RAISES.values(), ids=RAISES.keys())
async def test_a_caught_base_exception_from_a_step_lets_the_code_go_on(make_runtime: RuntimeFactory,
                                                                       raise_: str) -> None:
    """It is an error if the calls after such a step fail the pass as a protocol violation."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute(CODE.format(raise_=raise_))
    for _ in range(3):
        if out["status"] != "paused":
            break
        out = await rt.approve(out["execution_id"], seq=out["pending"][0]["seq"])
    assert "ProtocolError" not in str(out.get("error")), out.get("error")
    assert out["status"] == "completed", out
    assert out["result"] == [1, 2]
    assert shop.calls["list_items"] == 1 and shop.calls["create_item"] == 1
