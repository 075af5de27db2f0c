"""On PostgreSQL a program's exception with a long class name loses the execution (review 14).

The journal's ``executions.error_type`` column is ``String(64)`` (journal.py:97), which PostgreSQL
enforces (SQLite does not). The sandbox lets a program's own exception type name through up to 100
characters (``sandbox._error_for_host``), and the runtime records it as the execution's
``error_type`` (runtime.py:724-730). So

    class Exxxxxxxx...(Exception): pass      # 80 characters
    raise Exxxxxxxx...('boom')

fails the journal write (``StringDataRightTruncation: value too long for type character
varying(64)``): with no call before it, "recording the pass ... failed; nothing was recorded"
(``runtime.execution(id)`` is None: the execution is gone); after a call, the execution ends
``HostError: the host could not finish the pass (StoreError: The journal at ... failed ...
Check that the database is reachable and try again``). The program's own error is lost, and
the message blames the database. The same program on SQLite gets its ``boom``.

The right outcome: the execution is recorded with the program's error (its type name shortened
if need be), on every store.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

NAME = "E" + "x" * 79
CODE = f"class {NAME}(Exception):\n    pass\nraise {NAME}('boom')"


async def test_a_long_exception_name_is_recorded_as_the_programs_error(make_runtime: RuntimeFactory,
                                                                      store_kind: str) -> None:
    """It is an error if the execution is not recorded, or is recorded without the program's 'boom'."""
    if store_kind != "postgresql":
        pytest.skip("SQLite does not enforce the column's length: the execution is recorded there")
    rt = make_runtime([])
    out = await rt.execute(CODE)
    assert out["status"] == "error", out
    assert "boom" in out["error"], out
    state = await rt.execution(out["execution_id"])
    assert state is not None, "the execution was not recorded"
    assert state.status == "error" and "boom" in (state.error or ""), state


async def test_a_long_step_name_is_journaled(make_runtime: RuntimeFactory, store_kind: str) -> None:
    """It is an error if ``codemode.step`` with a 300-character name (the host accepts up to 100,000) ends the
    execution as a host error on PostgreSQL instead of recording the step (or refusing the name clearly)."""
    if store_kind != "postgresql":
        pytest.skip("SQLite does not enforce the column's length: the step is recorded there")
    rt = make_runtime([])
    out = await rt.execute("codemode.step('s' * 300, lambda: 5)")
    assert out.get("error_type") != "HostError", out
    assert "StoreError" not in str(out.get("error")), out
