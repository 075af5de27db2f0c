"""A call that ran is recorded as failed when its result is too large to store (review 14).

Review 13 (H2, runtime half; fixed in 701b09d) made a connector call whose result cannot cross
the boundary (a ``set``, a NaN) stay ``applied`` with the note "The call ran; its result was not
kept.", so rollback reverts it. A result over ``codec.MAX_VALUE_CHARS`` (1,000,000 characters as
JSON) still takes the old road (passes.py, ``ValueTooLarge`` at 558/696): the connector ran, its
side effect is done, but the entry is ``error`` ("ValueTooLarge: result not stored"), rollback
skips it although a revert is configured, and the execution's error tells the program to "Store
the data elsewhere ... and pass a small reference", about a value it never received. A service
that answers a create with the whole (large) collection, or a tool that echoes a big document,
is enough; a model that reads "error" sends the program again and the action runs twice.

The right outcome: the entry says the call ran (rollback tries its revert), as for the other
results the runtime cannot keep.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

BIG = 1_200_000  # characters: over codec.MAX_VALUE_CHARS (1,000,000), under every pass limit


class Ledger:
    def __init__(self) -> None:
        self.added: list[str] = []
        self.reverted: list[str] = []

    def connector(self) -> ToolSetConnector:
        def add(text: str) -> str:
            """Add a line; answers with the whole ledger's text (large)."""
            self.added.append(text)
            return "x" * BIG

        def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
            self.reverted.append(args["text"])

        return ToolSetConnector([add], name="ledger", reverts={"add": undo})


async def test_a_call_with_an_oversized_result_stays_revertible(make_runtime: RuntimeFactory) -> None:
    """It is an error if rollback skips a call that ran because its result was over the stored-value limit."""
    ledger = Ledger()
    rt = make_runtime([ledger.connector()])
    out = await rt.execute("ledger.add(text='paid')\n'done'")
    assert ledger.added == ["paid"], "the connector ran once"
    assert out["status"] == "error", out
    with contextlib.suppress(Exception):  # a revert that fails is reported after all were tried: still tried
        await rt.rollback(out["execution_id"])
    assert ledger.reverted == ["paid"], "rollback tried the revert of the call that ran"


async def test_the_journal_says_the_call_with_an_oversized_result_ran(make_runtime: RuntimeFactory) -> None:
    """It is an error if the journal records the call that ran as an error (the state a call that never ran has)."""
    ledger = Ledger()
    rt = make_runtime([ledger.connector()])
    out = await rt.execute("ledger.add(text='paid')\n'done'")
    assert ledger.added == ["paid"], "the connector ran once"
    state = await rt.execution(out["execution_id"])
    assert state is not None
    assert [e.state for e in state.log] == ["applied"], [(e.seq, e.state, e.error) for e in state.log]
