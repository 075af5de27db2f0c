"""A step name holding a NUL is refused in the sandbox, as a ValueError, before it takes a call number.

No journal keeps a NUL (PostgreSQL's text columns refuse it), so such a step is never run or
recorded; the program can catch the error, and the journal has no gap (review 11 on b5072e8).
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

CODE = """
try:
    codemode.step('a' + chr(0), lambda: 1)
    caught = None
except ValueError as e:
    caught = 'NUL character' in str(e)
[caught, codemode.step('b', lambda: 2)]
"""


async def test_a_step_named_with_a_nul_is_a_value_error_and_takes_no_call_number(make_runtime: RuntimeFactory) -> None:
    """It is an error if the code cannot catch it as ValueError, or the next step is not call #0."""
    rt = make_runtime([])
    out = await rt.execute(CODE)
    assert out["status"] == "completed" and out["result"] == [True, 2], out
    state = await rt.execution(out["execution_id"])
    assert state is not None and [(e.seq, e.method, e.state) for e in state.log] == [(0, "b", "applied")]
