"""Input names are variable names that hide nothing of the sandbox (lead, from review 13's notes).

``execute(inputs=...)`` put each name into the program's globals after the sandbox's own, so an
input named ``_getattr_`` replaced the attribute guard (every attribute read then failed) and one
named like a connector hid it; a notebook carried such names from a worker's report into every
later cell. Now they are refused with what to do, and nothing runs.
"""

from __future__ import annotations

import pytest

from codemode_kernel.kernel.variables import CarriedVariables
from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("name, why", [("_getattr_", "starts with '_'"), ("__builtins__", "starts with '_'"),
                                       ("shop", "would hide the 'shop' namespace"),
                                       ("codemode", "would hide the 'codemode' namespace"),
                                       ("a b", "not a Python variable name"), ("class", "not a Python variable name")])
async def test_a_name_that_is_not_a_plain_variable_is_refused(make_runtime: RuntimeFactory, name: str,
                                                              why: str) -> None:
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute("len(shop.list_items())", inputs={name: 1})
    assert out["status"] == "error" and out["error_type"] == "UsageError" and why in out["error"], out
    assert shop.calls.get("list_items", 0) == 0
    fine = await rt.execute("len(shop.list_items()) + n", inputs={"n": 1})
    assert fine["status"] == "completed", fine


def test_a_notebook_carries_no_such_name() -> None:
    carried = CarriedVariables()
    carried.carry({"variables": {"_getattr_": 1, "a b": 2, "ok": 3}}, {})
    assert dict(carried.items()) == {"ok": 3}
