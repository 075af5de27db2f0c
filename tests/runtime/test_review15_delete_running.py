"""Another host deletes a running execution: the pass keeps calling connectors, recorded nowhere (review 15).

``runtime.delete_execution`` deletes an execution whatever its status; for a running one it
interrupts the pass only when the pass is this runtime's own (``row.id in self._active``). From
another host over the same journal (``codemode delete ID`` in a terminal while a notebook's cell
runs, another kernel), the rows go and the pass runs on: its next calls are made (their
``executing`` marks land as orphan rows of no execution), the connectors do the writes, and the
pass ends "deleted from the journal by another host ... its outcome was not recorded". The
writes done after the delete are recorded nowhere a person can see, and can never be rolled back.
DESIGN: before calling a connector the entry is durably ``executing``; deleting a non-terminal
execution "disposes its execution-scoped resources" - it does not promise to stop another host.

The right outcome: either the delete of an execution running elsewhere is refused (it stays, with
every call it made), or the pass makes no connector call after its execution is gone.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from codemode_kernel import ToolSetConnector
from codemode_kernel.errors import InvalidStateError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


def writer(calls: list[int]) -> ToolSetConnector:
    def write(i: int) -> int:
        """A slow write."""
        time.sleep(0.3)
        calls.append(i)
        return i

    return ToolSetConnector([write], name="t", target="review15 writer")


async def test_no_unrecorded_write_after_another_host_deletes_a_running_execution(make_runtime: RuntimeFactory) -> None:
    calls: list[int] = []
    here = make_runtime([writer(calls)])
    elsewhere = make_runtime([writer(calls)])
    task = asyncio.create_task(here.execute("[t.write(i=i) for i in range(8)]"))
    for _ in range(200):  # until the pass has made a call
        await asyncio.sleep(0.05)
        if calls:
            break
    running = [s for s in await elsewhere.executions() if s.status == "running"]
    assert len(running) == 1, running
    eid = running[0].id
    try:
        deleted = await elsewhere.delete_execution(eid)
    except InvalidStateError as exc:  # refused, saying why (the lead's choice: an error, not a False)
        assert "another kernel or terminal" in str(exc), exc
        deleted = False
    made_before = len(calls)
    out: dict[str, Any] = await task
    state = await here.execution(eid)
    if not deleted:  # refused: the execution and every call it made are still there
        assert state is not None
        assert len([e for e in state.log if e.state == "applied"]) == len(calls), (state.log, calls)
        return
    assert len(calls) <= made_before + 1, f"{len(calls) - made_before} writes after the delete ({out.get('error')})"
