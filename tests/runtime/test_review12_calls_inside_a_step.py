"""A connector call made inside ``codemode.step``'s function does not break the next passes (review 12).

``codemode.step(name, fn)`` takes a call number, runs ``fn`` once and records its value; a later
pass returns the recorded value without running ``fn``. When ``fn`` calls a connector, that call
takes the next numbers on the first pass (it is journaled too), but a later pass skips it with
the rest of ``fn``, so every call after the step gets a number one lower than the journal's and
the pass fails with a replay divergence that tells the model to wrap nondeterminism in
``codemode.step``, which it did. Reads are the likely case (``codemode.step('fetch', lambda:
shop.list_items())``); with an approval call inside the step, the approved call has already run
when the next pass fails.

Either outcome is a fix: the execution completes with each call run once, or a call inside a
step is refused with a clear message before anything runs. A divergence is not.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

CASES = {
    "a read inside the step": ("items = codemode.step('fetch', lambda: shop.list_items())\n"
                               "b = shop.create_item(title='y')\n[len(items), b['id']]", [1, 2]),
    "an approval call inside the step": ("a = codemode.step('make', lambda: shop.create_item(title='x'))\n"
                                         "b = shop.create_item(title='y')\n[a['id'], b['id']]", [2, 3]),
}


@pytest.mark.parametrize(("code", "expected"), CASES.values(), ids=CASES.keys())
async def test_a_call_inside_a_step_does_not_make_the_next_pass_diverge(make_runtime: RuntimeFactory, code: str,
                                                                        expected: Any) -> None:
    """It is an error if deterministic code with a connector call inside a step fails with a replay divergence."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute(code)
    eid = out["execution_id"]
    for _ in range(5):
        if out["status"] != "paused":
            break
        out = await rt.approve(eid, seq=out["pending"][0]["seq"])
    assert "divergence" not in str(out.get("error", "")).lower(), out.get("error")
    if out["status"] == "completed":
        assert out["result"] == expected
        assert shop.calls["create_item"] == 2 - (1 if "list_items" in code else 0)
    else:
        assert out["status"] == "error" and "step" in str(out.get("error")), out
        assert shop.calls["create_item"] == 0
