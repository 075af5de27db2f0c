"""One notebook's Code Mode state: what the kernel, the magics, ``%%host`` cells and the panel talk to.

The kernel module translates Jupyter messages; the session does the work behind them and
knows nothing of ZMQ or ipykernel. It is made of three parts, each in its own module:

- configuration and the runtime's lifecycle (:class:`~.notebook_runtime.NotebookRuntime`,
  which the session extends: ``session.runtime``, ``session.config``, ``connect``, ``reload``);
- the actions on executions and the cards that present them (:class:`~.actions.Actions`:
  approve, reject, roll back, save as snippet, delete, expire), whichever door they come from;
- the names carried from cell to cell (:class:`~.variables.CarriedVariables`).

This module runs a cell as a new execution and hands its outcome to the actions to show. The
side panel's channel is given the session itself (its ``PanelHost``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode_kernel.errors import CodemodeError
from codemode_kernel.kernel.actions import MAX_RECORDS, Actions, CellRecord
from codemode_kernel.kernel.notebook_runtime import NotebookRuntime, Notify
from codemode_kernel.kernel.output import CellOutcome, ReplayFilter, Sink
from codemode_kernel.kernel.variables import CarriedVariables
from codemode_kernel.models import Snippet
from codemode_kernel.selection import LAST_STATUSES, resolve_execution, revertible_calls

if TYPE_CHECKING:
    from codemode_kernel.runtime import CodemodeRuntime

#: How many of the notebook's newest executions ``%rollback last`` looks through for one to undo.
UNDO_SCAN = 50

__all__ = ["CellOutcome", "NotebookSession"]


class NotebookSession(NotebookRuntime):
    """The Code Mode side of one kernel: what a notebook's cells run against."""

    def __init__(self, *, cwd: Path | None = None, env: Mapping[str, str] | None = None,
                 notify: Notify | None = None) -> None:
        super().__init__(cwd=cwd, env=env, notify=notify)
        self.variables = CarriedVariables()
        self.actions = Actions(self, self.variables)
        self.cell_runs: dict[str, str] = {}  # notebook cell id -> its latest execution
        #: An execution -> the later run of the same cell that replaced it (its output, its card).
        self.replaced_by: dict[str, str] = {}

    async def aclose(self) -> None:
        self.actions.traces.close()  # no longer told of connector errors (connector_errors.listen)
        await super().aclose()

    @property
    def records(self) -> dict[str, CellRecord]:
        """What this kernel showed of each execution (code, output, card)."""
        return self.actions.records

    async def run_code(self, code: str, sink: Sink, count: int | None = None, *,
                       cell_id: str | None = None) -> CellOutcome:
        """Run one cell as a new execution, streaming its output into ``sink``.

        ``cell_id`` (sent by JupyterLab) lets a re-run cell mention that its previous run
        still waits for approval: the new run is a new execution and does not replace it in the
        journal, but ``%approve last`` no longer names the old one (review 15x L4).
        """
        runtime = self.runtime
        # Building the runtime just now may have found problems: this cell says them, not the next.
        for problem in self.take_unreported():
            sink.stream(f"Code Mode configuration: {problem}\n", "stderr")
        previous = self.cell_runs.get(cell_id) if cell_id else None
        if previous is not None and previous in self.records and self.records[previous].pending:
            state = await runtime.execution(previous)
            if state is not None and state.status == "paused":
                sink.stream(f"Note: the previous run of this cell (execution {previous}) still waits for "
                            f"approval; this run is a new execution, and %approve last no longer names the old "
                            f"one. %reject {previous} drops it.\n", "stderr")
        if waiting := runtime.starting_for(code):  # a wait of up to connect_timeout: said, not silent (16x M8)
            sink.stream(f"Code Mode: waiting for {_waited(runtime, waiting)} to start; the stop button ends the "
                        "wait.\n", "stderr")
        given = self.variables.given()
        live = ReplayFilter("", lambda text: sink.stream(text))
        self.notify("execution_started", None)
        with self.in_use():
            out = await runtime.execute(code, inputs=given, on_output=live, capture_variables=True)
        eid = str(out["execution_id"])
        # A connector that fails slowly (an MCP server's connect_timeout) is found unavailable while this
        # pass resolved the catalog: this cell says it, not the next one (review 14x, noticed).
        for problem in self.take_unreported():
            sink.stream(f"Code Mode configuration: {problem}\n", "stderr")
        if not live.printed and out.get("logs"):
            # An executor that does not stream still returns the logs: show them now.
            live("\n".join(out["logs"]) + "\n")
        record = CellRecord(code=code, count=count, given=given, shown=live.printed)
        self.actions.remember(eid, record)
        if cell_id:
            if previous is not None:
                self.replaced_by[previous] = eid
                while len(self.replaced_by) > MAX_RECORDS:
                    del self.replaced_by[next(iter(self.replaced_by))]
            self.cell_runs[cell_id] = eid
        outcome = await self.actions.show(eid, out, record, sink=sink, card_home=sink)
        if out.get("status") in ("paused", "error", "rejected"):  # carried nothing: a later NameError says why
            self.variables.did_not_complete(eid, str(out["status"]), code)
        self.notify("execution_changed", eid)
        return outcome

    async def resolve(self, token: str, purpose: str) -> str:
        """As :meth:`NotebookRuntime.resolve`; ``last`` prefers this notebook's own cells' executions
        (:func:`~codemode_kernel.selection.resolve_execution`).

        ``approve last`` never names an execution whose cell was run again: JupyterLab replaced its
        output (and its card) with the new run's, so the person no longer sees the call it would
        approve (review 15x L4). Named by its id, it is approved as any other. ``rollback last`` is
        the newest with a call to revert (:meth:`_last_to_undo`)."""
        if token.strip() == "last" and purpose == "rollback":
            undo = await self._last_to_undo()
            if undo is not None:
                return undo
        if token.strip() != "last" or purpose != "approve":
            return await resolve_execution(self.runtime, token, purpose, own=self.actions.records)
        own = [eid for eid in self.actions.records if eid not in self.replaced_by]
        eid = await resolve_execution(self.runtime, token, purpose, own=own)
        if eid in self.replaced_by:
            newer = self.replaced_by[eid]
            raise CodemodeError(
                f"The only paused execution, {eid}, is an earlier run of a cell that was run again (execution "
                f"{newer}), so 'last' does not name it: the cell no longer shows its call. Read it (%pending "
                f"{eid}) and name it to approve it (%approve {eid}), or drop it (%reject {eid}).")
        return eid

    async def _last_to_undo(self) -> str | None:
        """``rollback last``: the newest of this notebook's finished executions that has a call to revert
        (the card's Roll back rule), so a cell that only looked at the result (``notes.list_notes()``)
        does not hide the write above it (review 15x M11). None when none of the newest has one: the
        usual ``last`` then says there is nothing to roll back."""
        runtime = self.runtime
        calls = r"\b(" + "|".join(map(re.escape, [*runtime.connectors, "codemode"])) + r")\b"
        catalog = None
        for eid in list(reversed(self.actions.records))[:UNDO_SCAN]:
            if not re.search(calls, self.actions.records[eid].code):  # names no connector: made no call
                continue
            state = await runtime.execution(eid)
            if state is None or state.status not in LAST_STATUSES["rollback"]:
                continue
            catalog = catalog or await runtime.catalog()
            if revertible_calls(state, catalog):
                return eid
        return None

    # -- the actions (the panel's PanelHost, the magics, the cards) -----------------------------

    async def approve(self, execution_id: str, seq: int | None = None, *,
                      origin: Sink | None = None) -> dict[str, Any]:
        """Approve call #``seq`` of a paused execution and run it on (``None``, a typed ``%approve``: the
        call pending when the command is read, decided by its number; nothing if none is pending);
        ``origin`` shows what follows (a ``%approve`` cell). A ``seq`` that is no longer pending is refused."""
        return await self.actions.approve(execution_id, seq, origin=origin)

    async def reject(self, execution_id: str, seq: int | None = None, *, origin: Sink | None = None) -> bool:
        """Reject a pending action; False if nothing was rejected."""
        return await self.actions.reject(execution_id, seq, origin=origin)

    async def rollback(self, execution_id: str, *, origin: Sink | None = None) -> None:
        """Revert the applied actions, newest first; raises ``RollbackError`` after trying all."""
        await self.actions.rollback(execution_id, origin=origin)

    async def save_snippet(self, name: str, execution_id: str, description: str = "") -> Snippet:
        """Save a completed execution's code as a snippet."""
        return await self.actions.save_snippet(name, execution_id, description)

    async def delete_execution(self, execution_id: str) -> bool:
        return await self.actions.delete_execution(execution_id)

    async def expire(self, max_age: timedelta) -> list[str]:
        return await self.actions.expire(max_age)


def _waited(runtime: CodemodeRuntime, names: list[str]) -> str:
    """``'slowpoke' (up to 8 s, its connect_timeout)``, for each connector a cell waits for."""
    shown = []
    for name in names:
        limit = getattr(runtime.connectors.get(name), "connect_timeout", None)
        bound = f" (up to {limit:g} s, its connect_timeout)" if isinstance(limit, (int, float)) else ""
        shown.append(f"connector {name!r}{bound}")
    return ", ".join(shown)
