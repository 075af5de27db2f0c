"""An integer too long to write as JSON fails the execution with the codec's refusal, on both executors (review 12).

Python 3.11 refuses to turn an int of more than 4,300 digits into text (``int_max_str_digits``),
so such an int cannot cross the boundary. The in-process executor refuses one in a connector's
arguments or a step's value with a CodecError that fails the execution (DESIGN §4: anything but
JSON data "fails the execution with a clear, model-actionable message"). The isolated executor
instead raises a ValueError inside the code (which the code can catch and go on), and as the
pass's result both report "WorkerCrashed" (isolated: "the worker process exited (exit code 70)"),
which says nothing about the value.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory
from tests.support import Shop

pytestmark = pytest.mark.anyio

BIG = "10**5000"
# (id, code, the executors on which it failed before the fix)
CASES = [
    ("the result", f"{BIG}", {"inprocess", "subprocess"}),
    ("inside the result", f"{{'n': {BIG}}}", {"inprocess", "subprocess"}),
    ("an argument", f"shop.get_item(item_id={BIG})", {"subprocess"}),
    ("an argument the code tries to catch",
     f"try:\n    shop.get_item(item_id={BIG})\nexcept Exception as e:\n    r = 'caught'\nr", {"subprocess"}),
    ("a step's value", f"codemode.step('n', lambda: {BIG})\n1", {"subprocess"}),
]


@pytest.mark.parametrize("code", [c[1] for c in CASES], ids=[c[0] for c in CASES])
async def test_a_huge_int_fails_the_execution_with_a_codec_error(make_runtime: RuntimeFactory, code: str) -> None:
    """It is an error if such an int is reported as a worker crash, or reaches the code as an exception it can catch."""
    shop = Shop()
    rt = make_runtime([shop])
    out = await rt.execute(code)
    assert out["status"] == "error", out
    assert out.get("error_type") == "CodecError", out
    assert "4300" in str(out.get("error")) or "4,300" in str(out.get("error"))
    assert shop.calls["get_item"] == 0
