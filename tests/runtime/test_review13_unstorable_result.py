"""A call that ran is not recorded as a call that failed when its result cannot be stored (review 13).

When a connector's result cannot cross the boundary (a ``set``, a NaN, an object: what a
Python function returns by mistake, or what ``json.loads`` makes of a service's ``NaN``), the
runtime records the call's entry as ``error`` and ends the execution ``CodecError: Cannot pass
a value of type 'set' at the result of ledger.add ... Convert it first (e.g. list(a_set))``.
But the connector ran: its side effect is done. So

- ``rollback`` walks ``applied`` calls only and skips it: the action cannot be compensated,
  although a revert is configured for it;
- the message speaks to the program ("Convert it first"), which never saw the value and
  cannot; a model reading it sends the program again, and the action runs twice.

The right outcome: the journal keeps that the call ran (rollback tries its revert), and the
error says the connector's result could not be stored.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


class Ledger:
    def __init__(self) -> None:
        self.added: list[str] = []
        self.reverted: list[Any] = []

    def connector(self) -> ToolSetConnector:
        def add(text: str) -> Any:
            """Add a line; returns the tags it got (a set: a mistake the connector's author made)."""
            self.added.append(text)
            return {"new", text}

        def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
            self.reverted.append(args["text"])
            if args["text"] in self.added:
                self.added.remove(args["text"])

        return ToolSetConnector([add], name="ledger", reverts={"add": undo})


async def test_a_call_that_ran_stays_revertible(make_runtime: RuntimeFactory) -> None:
    """It is an error if rollback skips a call that ran because its result could not be stored."""
    ledger = Ledger()
    rt = make_runtime([ledger.connector()])
    out = await rt.execute("ledger.add(text='paid')\n'done'")
    assert ledger.added == ["paid"], "the connector ran once"
    assert out["status"] == "error", out
    with contextlib.suppress(Exception):  # a revert that fails is reported after all were tried: still tried
        await rt.rollback(out["execution_id"])
    assert ledger.reverted == ["paid"], "rollback tried the revert of the call that ran"
