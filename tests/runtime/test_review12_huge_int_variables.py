"""A cell that assigns an int too long to write as JSON still completes; the name is not carried over (review 12).

With ``capture_variables`` (what every notebook cell does: later cells see the names it assigned,
"serializable values only"), a value that cannot be carried over is left out, like a function
(``f`` below). An int of more than 4,300 digits (``math.factorial(2000)``: 5,736 digits, a
teaching notebook's number) is not left out: the pass fails as "WorkerCrashed" (the isolated
executor: "the worker process exited (exit code 70)") although the cell ran to its end.
a93b820 made such an int a CodecError where it is the result or crosses to the host; the
variables' collection is another path.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

CODES = {
    "an int": "n = math.factorial(2000)\nf = lambda: 1\nm = 1\n'ok'",
    "an int in a tuple": "t = (math.factorial(2000),)\nf = lambda: 1\nm = 1\n'ok'",
}


@pytest.mark.parametrize("code", CODES.values(), ids=CODES.keys())
async def test_a_cell_assigning_a_huge_int_completes(make_runtime: RuntimeFactory, code: str) -> None:
    """It is an error if the cell fails, or if a name that cannot be carried over is carried over."""
    rt = make_runtime([])
    out = await rt.execute(code, capture_variables=True)
    assert out["status"] == "completed", out.get("error")
    assert out["result"] == "ok"
    assert "m" in out["variables"] and "f" not in out["variables"]
