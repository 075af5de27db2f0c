"""``execute(code, inputs=...)`` answers a value it cannot store with an error output, not an exception (review 13).

Errors are data at the runtime boundary (DESIGN §5): ``execute`` "never raises for pass
errors", and an input that cannot cross (a NaN, an object) gets ``{"status": "error", ...}``
saying which input. An int of more than 4,300 digits passes the codec's checks and then
raises out of ``execute``: runtime.py measures the inputs' size with
``codec.dumps_encoded(encoded_inputs)``, whose C encoder refuses to write the int
(``ValueError: Exceeds the limit (4300 digits) for integer string conversion``). Review 12
fixed the same int in a call's arguments, a step's value and carried-over variables; the
inputs given to ``execute`` (a host program's, the kernel's ``%%host`` cells') were left.

The right outcome: an error output naming the input, as for a NaN; nothing raised.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio


async def test_a_huge_int_input_is_an_error_output(make_runtime: RuntimeFactory) -> None:
    """It is an error if execute() raises for an input it cannot store instead of answering with an error."""
    rt = make_runtime([Shop()])
    try:
        out = await rt.execute("len(shop.list_items())", inputs={"big": 10 ** 5000})
    except ValueError as exc:
        pytest.fail(f"execute() raised: {exc}")
    assert out["status"] == "error", out
    assert "big" in out["error"], out
    nan = await rt.execute("len(shop.list_items())", inputs={"big": float("nan")})
    assert nan["status"] == "error" and "big" in nan["error"], nan  # the NaN's answer, for comparison
