"""Approve, reject, roll back, save as snippet, delete, expire — and the cards that present them.

Everything that changes an execution goes through one method here, whether it came from a
card's button, a magic or the side panel, so the cell's card updates in place whichever
door was used. The outcome of a pass (a cell's first pass, or an approved one) is shown by
:meth:`Actions.show`: the result, the error, or the card with its buttons.

Idempotency, in three layers: the card disables its buttons before acting; this class
refuses a second action on an execution while one is in flight (``_busy``); the runtime's
compare-and-set refuses a stale approval and reverts each call at most once.

Every approval and rejection names its call (``seq``): the one the card's row, the panel's row
or (for a typed ``%approve``, which names none) the journal showed when the command ran. The
runtime applies it only while that call is the pending one, in the claim's own statement, so a
click for call #k that arrives after another tab approved #k and the execution paused on #m
approves nothing; the card then says so and shows #m for a decision (s11a).

A decision that comes late (``%approve last`` after a click, a second ``%reject``, a stale
card) is not an error: :meth:`Actions.settled` says what became of the execution instead
(issue 16, item 7): "Already approved: … is completed."
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from codemode_kernel.bytes_text import json_with_bytes
from codemode_kernel.commands import door_text
from codemode_kernel.connector_traces import ConnectorTraces
from codemode_kernel.errors import CodemodeError, InvalidStateError, UnknownExecutionError, clip
from codemode_kernel.kernel.display import (
    error_parts,
    error_traceback,
    image_bundles,
    json_text,
    pending_summary,
    result_bundle,
)
from codemode_kernel.kernel.notebook_runtime import NotebookRuntime, unreadable_problem
from codemode_kernel.kernel.output import CellOutcome, Coalescing, NullSink, ReplayFilter, Sink, Tee
from codemode_kernel.kernel.variables import CarriedVariables, carried_reads, not_carried_text, snippet_reads_text
from codemode_kernel.kernel.widgets import CardActions, ExecutionCard
from codemode_kernel.models import STEP_CONNECTOR, ExecutionState, Snippet, ToolLogEntry
from codemode_kernel.rollback_report import rollback_text, unknown_calls
from codemode_kernel.runtime import not_pending_text
from codemode_kernel.selection import resolve_execution, revertible_calls
from codemode_kernel.terminal import terminal_text

#: How many executions' records (code, output shown, card) are kept; paused ones are never dropped.
MAX_RECORDS = 500
#: How far back ``%approve last`` looks for the last decision when nothing is paused.
SETTLED_SCAN = 50


@dataclass
class CellRecord:
    """What this kernel knows about an execution it showed: code, cell number, output, card."""

    code: str
    count: int | None
    given: dict[str, Any]
    shown: str = ""
    card: ExecutionCard | None = None
    pending: list[dict[str, Any]] = field(default_factory=list)


class Actions:
    """The actions on a notebook's executions, and the card of each execution it showed."""

    def __init__(self, home: NotebookRuntime, variables: CarriedVariables) -> None:
        self.home = home
        self.variables = variables
        self.records: dict[str, CellRecord] = {}
        self._busy: set[str] = set()
        #: Where the author's python connectors raised, shown under the cell's error (review 15x M7).
        self.traces = ConnectorTraces(
            lambda: (home.folder, home.config.base_dir),
            lambda: [name for name, kind in home.config.kinds.items() if kind == "python"])
        self.traces.start()

    def remember(self, eid: str, record: CellRecord) -> None:
        self.records[eid] = record
        if len(self.records) > MAX_RECORDS:
            for old in list(self.records)[: len(self.records) - MAX_RECORDS]:
                if not self.records[old].pending:
                    del self.records[old]

    # -- showing an outcome --------------------------------------------------------------------

    async def show(self, eid: str, out: Mapping[str, Any], record: CellRecord, *, sink: Sink,
                   card_home: Sink | None) -> CellOutcome:
        """Show an outcome: the result, the error, or the approval card (displayed in ``card_home``)."""
        status = out.get("status")
        if status == "paused":
            record.pending = [dict(p) for p in out.get("pending", [])]
            card = record.card
            if card is None and card_home is None:
                return CellOutcome(execution_id=eid)  # approved from the panel, no cell shows it
            if card is None:
                card = record.card = self._new_card(eid)
            card.show_pending(record.pending)
            if card_home is not None:
                card_home.display(card.bundle(pending_summary(eid, record.pending)))
            return CellOutcome(execution_id=eid)
        record.pending = []
        if status != "error":
            self.traces.take(eid)  # the program caught it: its message was its answer
        if status == "completed":
            missed = self.variables.carry(out, record.given, record.code)
            if missed:  # assigned but not carried: said on the cell that assigned them (review 14x H5)
                sink.stream(not_carried_text(missed) + "\n", "stderr")
            if replaced := self.variables.replaced:  # approved after later cells set them (review 16x, M14)
                names = ", ".join(replaced)
                sink.stream(f"Note: execution {eid} set {names} when it completed now; that replaces the value a later "
                            "cell gave it (cells run in the order they finish).\n", "stderr")
            if out.get("result") is not None:
                sink.display(result_bundle(out["result"]), result=True)
                for image in image_bundles(out["result"]):  # an MCP tool's image content, shown as one
                    sink.display(image)
            calls, revertable, unknown = await self._calls(eid, record.code)
            for entry in unknown:  # the program caught its OutcomeUnknown: the person still hears of it (16x M13)
                sink.stream(_unknown_after_completion(eid, entry) + "\n", "stderr")
            self._finish(eid, record, "completed", calls=calls, revertible=revertable, can_save=True,
                         card_home=card_home)
            return CellOutcome(execution_id=eid)
        ename, evalue, line = error_parts(out)
        evalue = self.variables.explain(ename, evalue)
        unread = unreadable_problem(self.home.config) if ename == "NameError" else None
        if unread is not None:  # the name may be a connector of the file that could not be read
            evalue += f" Note: the configuration could not be read, so none of its connectors exist: {unread}."
        tb = error_traceback(ename, evalue, code=record.code, line=line, count=record.count,
                             frames=str(out.get("traceback") or ""))
        where = self.traces.shown_for(eid, ename, evalue)
        if where:  # for the author of the connector, never for the program (or the journal)
            sink.stream(where, "stderr")
        sink.error(ename, evalue, tb)
        calls, revertable, _ = await self._calls(eid, record.code)
        self._finish(eid, record, "error", calls=calls if revertable else 0, revertible=revertable,
                     can_save=False, card_home=card_home)
        return CellOutcome.failed(ename, evalue, tb, eid)

    def _finish(self, eid: str, record: CellRecord, status: str, *, calls: int, revertible: int,
                can_save: bool, card_home: Sink | None) -> None:
        can_rollback = revertible > 0
        card = record.card
        if card is None:
            # Cells that made no connector call get no buttons: nothing to roll back, and a
            # pure computation is rarely worth a snippet (%snippet save still works).
            if calls == 0 or card_home is None:
                return
            card = record.card = self._new_card(eid)
            card.finished(status, can_rollback=can_rollback, can_save=can_save, revertible=revertible)
            # %rollback only where the card's Roll back button is: something can be reverted (review 14x L8).
            offers = ", ".join([*(["%rollback"] if can_rollback else []), *(["%snippet save"] if can_save else [])])
            card_home.display(card.bundle(f"{status}: execution {eid} ({calls} connector call(s)"
                                          + (f"; {offers}" if offers else "") + ")"))
            return
        card.finished(status, can_rollback=can_rollback, can_save=can_save, revertible=revertible)

    def _may_call(self, code: str) -> bool:
        # A connector can only be reached by naming it (no globals(), eval or getattr on
        # modules in the sandbox), so a cell that names none made no call: skip the journal read.
        names = [*self.home.runtime.connectors, "codemode"]
        return re.search(r"\b(" + "|".join(map(re.escape, names)) + r")\b", code) is not None

    async def _calls(self, eid: str, code: str) -> tuple[int, int, list[ToolLogEntry]]:
        """How many connector calls the execution journaled, how many a rollback would revert, and the calls
        whose outcome is unknown."""
        if code and not self._may_call(code):
            return 0, 0, []
        state = await self.home.runtime.execution(eid)
        if state is None:
            return 0, 0, []
        calls, revertable = await self._revert_info(state)
        return calls, revertable, unknown_calls(state)

    async def _revert_info(self, state: ExecutionState) -> tuple[int, int]:
        """How many connector calls the execution made, and how many a rollback reverts (selection's rule)."""
        calls = [e for e in state.log if e.connector != STEP_CONNECTOR]
        if not calls:
            return 0, 0
        return len(calls), len(revertible_calls(state, await self.home.runtime.catalog()))

    def _new_card(self, eid: str) -> ExecutionCard:
        return ExecutionCard(eid, CardActions(
            approve_call=lambda seq: self._click(self.approve(eid, seq)),
            approve_calls=lambda shown: self._click(self.approve_calls(eid, shown)),
            reject=lambda seq: self._click(self.reject(eid, seq)),
            rollback=lambda: self._click(self.rollback(eid)),
            save_snippet=lambda name, description: self._click(self.save_snippet(name, eid, description)),
        ))

    def _click(self, coro: Coroutine[Any, Any, Any]) -> None:
        async def guarded() -> None:
            with contextlib.suppress(CodemodeError):  # already shown on the card
                await coro
        self.home.spawn(guarded())

    async def _record(self, eid: str) -> CellRecord | None:
        record = self.records.get(eid)
        if record is not None:
            return record
        state = await self.home.runtime.execution(eid)
        if state is None:
            return None
        # An execution from before a restart, or from another kernel: adopt it.
        record = CellRecord(code=state.code, count=None, given={},
                            shown="".join(line + "\n" for line in state.logs))
        self.remember(eid, record)
        return record

    # -- late decisions ------------------------------------------------------------------------

    async def settled(self, verb: str, token: str) -> str | None:
        """What to answer a late ``approve``/``reject`` of ``token`` (``last``, an id or a prefix) with.

        ``None`` when there is something to decide (a paused execution), or when ``token``
        names nothing (the caller's usual error says so); otherwise one kind sentence with
        the execution's actual state.
        """
        runtime = self.home.runtime
        if token.strip() == "last":
            if await runtime.pending():
                return None
            for recent in await runtime.executions(limit=SETTLED_SCAN):
                if recent.passes > 1 or recent.status == "rejected":
                    return "Nothing waits for approval. " + settled_text(verb, recent)
            return "Nothing waits for approval: no execution of this notebook is paused."
        try:
            state = await runtime.execution(await resolve_execution(runtime, token))
        except CodemodeError:
            return None
        if state is None or state.status == "paused":
            return None
        return settled_text(verb, state)

    # -- approve, reject, roll back, save, delete, expire ----------------------------------------

    async def approve(self, execution_id: str, seq: int | None = None, *,
                      origin: Sink | None = None) -> dict[str, Any]:
        """Approve call #``seq`` of a paused execution (the call the person saw) and show what follows.

        The runtime applies it only if that call is still the pending one (checked in its claim),
        so a click that arrives after another front end moved the execution on approves nothing:
        the card and ``origin`` say so and the card shows the call that waits now. ``None``
        (a typed ``%approve``, which names no call) approves the call pending when it runs; it is
        read here and approved by its seq, so what this kernel reports is what ran.
        """
        if execution_id in self._busy:
            return _refusal(execution_id, "InvalidStateError",
                            f"execution {execution_id!r} is already being approved, rejected or rolled back; "
                            "wait for it to finish")
        self._busy.add(execution_id)
        try:
            with self.home.in_use():
                return await self._approve(execution_id, seq, origin)
        finally:
            self._busy.discard(execution_id)

    async def approve_calls(self, execution_id: str, shown: list[dict[str, Any]], *,
                            origin: Sink | None = None) -> dict[str, Any]:
        """Approve all: the calls ``shown`` (the rows listed when it was clicked), each by its seq, in order.

        After each approval the execution goes on; the next listed call is approved only if the
        execution paused on that very call (same seq, connector, method and arguments). A pause on
        a call that was not listed stops here and shows it for review.
        """
        out: dict[str, Any] = _refusal(execution_id, "InvalidStateError", "no call was listed; nothing was approved")
        for i, call in enumerate(shown):
            seq = call.get("seq")
            if type(seq) is not int:
                break
            out = await self.approve(execution_id, seq, origin=origin)
            following = shown[i + 1] if i + 1 < len(shown) else None
            if out.get("status") != "paused" or following is None or not any(
                    _same_call(p, following) for p in out.get("pending") or []):
                break
        return out

    async def _approve(self, execution_id: str, seq: int | None, origin: Sink | None) -> dict[str, Any]:
        runtime = self.home.runtime
        record = await self._record(execution_id)
        if record is None:
            out = _refusal(execution_id, "UnknownExecutionError", str(UnknownExecutionError(
                execution_id, runtime.name)))
            _show_error(origin, out)
            return out
        seen = [p for p in record.pending if p.get("seq") == seq]
        if seq is None:
            now = [p.to_dict() for p in await runtime.pending(execution_id)]
            if not now:
                # Nothing waits now (decided elsewhere, or an approval's pass is running): approve
                # nothing. The runtime's "whatever is pending" would approve a call that pass pauses on
                # next, which nobody here was shown (s12a).
                return await self._nothing_waits("approve", execution_id, record.card, origin)
            state = await runtime.execution(execution_id)
            if state is not None and state.via_tool:
                # A model's program (the codemode tool), which sends the person here: its call is the model's
                # words, and a typed %approve that names no call would run it unseen. It is shown whole, and
                # nothing is approved until the person names that call (review 16 H4; the CLI asks, 15 H4).
                return _model_call_shown(state, now[0], origin)
            seq, seen = now[0]["seq"], now[:1]
        card = record.card
        if card is not None and not card.locked:
            card.busy("Approved: running the cell again from the top, replaying earlier calls…")
        self.home.notify("execution_changed", execution_id)
        sinks: list[Sink] = [s for s in (card, origin) if s is not None]
        # In batches (issue 16): each stream into the card re-sends its whole output list.
        tee = Coalescing(Tee(sinks), asyncio.get_running_loop().call_later)
        live = ReplayFilter(record.shown, lambda text: tee.stream(text))
        out = await runtime.approve(execution_id, seq=seq, on_output=live)
        if out.get("refused"):
            state = await runtime.execution(execution_id)
            if state is not None and state.status not in ("paused", "running"):
                # Decided elsewhere first (another tab, kernel or host): say how it ended.
                late = settled_text("approve", state)
                _say_settled(late, card, origin)
                self.home.notify("execution_changed", execution_id)
                return {**out, "settled": True, "message": late}
            if seq is not None and state is not None and out.get("error_type") == "InvalidStateError":
                # The call this door showed was decided elsewhere; the execution moved on.
                text = await self._moved_on("approve", record, state, seq, seen)
                _show_text_error(origin, "InvalidStateError", text)
                self.home.notify("execution_changed", execution_id)
                return {**out, "error": text, "moved_on": True}
            if card is not None:
                card.refused(str(out.get("error")), retry=state is not None and state.status == "paused")
            _show_error(origin, out)
            self.home.notify("execution_changed", execution_id)
            return out
        if live.printed:
            record.shown = live.printed
        approved: dict[str, Any] = {}
        if seq is not None and sinks:
            approved = {"seq": seq, "call": await self._call_name(execution_id, seq, seen)}
            if card is not None:
                card.decided(f"{approved['call']} (call #{seq}) approved")
        await self.show(execution_id, out, record, sink=tee if sinks else NullSink(), card_home=origin)
        self.home.notify("execution_changed", execution_id)
        return {**out, "approved": approved} if approved else out

    async def _moved_on(self, verb: str, record: CellRecord, state: ExecutionState, seq: int,
                        seen: list[dict[str, Any]]) -> str:
        """Refuse a decision on call #``seq`` that is no longer pending: the card shows the call that waits
        now (if any) with one sentence saying what happened; the text is returned for the other doors."""
        runtime = self.home.runtime
        now = [p.to_dict() for p in await runtime.pending(state.id)] if state.status == "paused" else []
        text = not_pending_text(verb, state.id, seq, state.status, state.log)
        card = record.card
        if now:
            record.pending = now
            if card is not None:
                card.moved_on(text + " Review it below.", now)
        elif card is not None:
            card.refused(text, retry=False)
        return text

    async def _nothing_waits(self, verb: str, execution_id: str, card: ExecutionCard | None,
                             origin: Sink | None) -> dict[str, Any]:
        """A ``verb`` that named no call found none pending: decided nothing; the card and ``origin`` say why."""
        state = await self.home.runtime.execution(execution_id)
        if state is None:
            out = _refusal(execution_id, "UnknownExecutionError", str(UnknownExecutionError(
                execution_id, self.home.runtime.name)))
            _show_error(origin, out)
            return out
        late = _nothing_pending_text(verb, state)
        self.home.notify("execution_changed", execution_id)
        if state.status == "paused":  # paused on a call after the read: not decided, and not settled
            if card is not None:
                card.refused(late, retry=True)
            _show_text_error(origin, "InvalidStateError", late)
            return _refusal(execution_id, "InvalidStateError", late)
        _say_settled(late, card, origin)
        return {**_refusal(execution_id, "InvalidStateError", str(InvalidStateError(
            execution_id, state.status, verb, ["paused"]))), "settled": True, "message": late}

    async def _call_name(self, execution_id: str, seq: int, seen: list[dict[str, Any]]) -> str:
        """``connector.method`` of call #``seq``: as shown, else from the journal."""
        if seen:
            return f"{seen[0].get('connector')}.{seen[0].get('method')}"
        state = await self.home.runtime.execution(execution_id)
        entry = next((e for e in state.log if e.seq == seq), None) if state is not None else None
        return f"{entry.connector}.{entry.method}" if entry is not None else "the call"

    async def reject(self, execution_id: str, seq: int | None = None, *, origin: Sink | None = None) -> bool:
        """Reject pending call #``seq`` (``None``: the call pending now); the execution ends ``rejected``.

        As with :meth:`approve`, the runtime rejects only if that call is still the pending one.
        """
        if execution_id in self._busy:
            _show_text_error(origin, "InvalidStateError", f"execution {execution_id!r} is busy; try again")
            return False
        self._busy.add(execution_id)
        try:
            runtime = self.home.runtime
            record = await self._record(execution_id)
            card = record.card if record is not None else None
            seen = [p for p in record.pending if p.get("seq") == seq] if record is not None else []
            if seq is None:
                now = [p.to_dict() for p in await runtime.pending(execution_id)]
                if now:
                    seq, seen = now[0]["seq"], now[:1]
            if card is not None and not card.locked:
                card.busy("Rejecting…")
            # Always by its number: with none, nothing waits now, and "whatever is pending" could be a
            # call an approval's pass paused on after that read, which nobody here was shown (s12a).
            ok = await runtime.reject(execution_id, seq) if seq is not None else False
            state = await runtime.execution(execution_id)
            if not ok:
                if state is not None and state.status not in ("paused", "running"):
                    late = settled_text("reject", state)
                    _say_settled(late, card, origin)
                    return False
                if record is not None and state is not None and seq is not None:
                    why = await self._moved_on("reject", record, state, seq, seen)
                else:
                    why = _reject_refusal(execution_id, seq, state)
                    if card is not None:
                        card.refused(why, retry=state is not None and state.status == "paused")
                _show_text_error(origin, "InvalidStateError", why)
                return False
            _, revertable = await self._revert_info(state) if state is not None else (0, 0)
            text = "Rejected: the action was not run and the execution ended." + _applied_text(execution_id, state,
                                                                                               revertable)
            if card is not None and record is not None:
                if seq is not None:
                    card.decided(f"{await self._call_name(execution_id, seq, seen)} (call #{seq}) rejected",
                                 approved=False)
                card.finished("rejected", can_rollback=revertable > 0, can_save=False, revertible=revertable)
                card.notice(text)
            if record is not None:
                record.pending = []
            if origin is not None:
                origin.stream(text + "\n")
            return True
        finally:
            self._busy.discard(execution_id)
            self.home.notify("execution_changed", execution_id)

    async def rollback(self, execution_id: str, *, origin: Sink | None = None) -> None:
        """Revert the execution's applied actions (newest first); raise if any revert failed."""
        if execution_id in self._busy:
            raise InvalidStateError(execution_id, "busy", "roll back", ["idle"])
        self._busy.add(execution_id)
        try:
            runtime = self.home.runtime
            record = self.records.get(execution_id)
            card = record.card if record is not None else None
            before = await runtime.execution(execution_id)
            already = {e.seq for e in before.log if e.state == "reverted"} if before is not None else set()
            try:
                await runtime.rollback(execution_id)
            except CodemodeError as exc:
                if card is not None:
                    card.rollback_failed(str(exc))
                _show_text_error(origin, type(exc).__name__, str(exc))
                raise
            after = await runtime.execution(execution_id)
            reverted = [e for e in (after.log if after is not None else []) if e.state == "reverted"
                        and e.seq not in already]
            # Calls of unknown outcome are named: never reverted, they may have been done (review 15x H1).
            text = rollback_text(reverted, unknown_calls(after) if after is not None else [])
            if card is not None:
                _, again = await self._revert_info(after) if after is not None else (0, 0)
                card.rolled_back(text, reverted=bool(reverted), can_rollback=again > 0, revertible=again)
            if origin is not None:
                origin.stream(text + "\n")
        finally:
            self._busy.discard(execution_id)
            self.home.notify("execution_changed", execution_id)

    async def save_snippet(self, name: str, execution_id: str, description: str = "") -> Snippet:
        """Save a completed execution's code as a snippet (``codemode.run(name, input)``)."""
        record = self.records.get(execution_id)
        card = record.card if record is not None else None
        try:
            snippet = await self.home.runtime.save_snippet(name, execution_id=execution_id, description=description)
        except CodemodeError as exc:
            if card is not None:
                card.snippet_failed(str(exc))
            raise
        if card is not None:
            reads = snippet_reads_text(carried_reads(snippet.code, record.given if record is not None else {}))
            card.snippet_saved(f"Saved as snippet {snippet.name!r}: run it with codemode.run({snippet.name!r}, input)."
                               + (f" {reads}" if reads else ""))
        self.home.notify("snippets_changed", execution_id)
        return snippet

    async def delete_execution(self, execution_id: str) -> bool:
        ok = await self.home.runtime.delete_execution(execution_id)
        record = self.records.pop(execution_id, None)
        if ok and record is not None and record.card is not None:
            record.card.finished("error", can_rollback=False, can_save=False, detail="deleted")
            record.card.notice("This execution was deleted from the journal.")
        self.home.notify("execution_deleted", execution_id)
        return ok

    async def expire(self, max_age: timedelta) -> list[str]:
        ids = await self.home.runtime.expire_paused(max_age)
        for eid in ids:
            record = self.records.get(eid)
            if record is not None and record.card is not None:
                record.card.finished("rejected", can_rollback=False, can_save=False, detail="expired")
                record.card.notice("This execution expired while waiting for approval.")
                record.pending = []
            self.home.notify("execution_changed", eid)
        return ids


def _applied_text(execution_id: str, state: ExecutionState | None, revertible: int) -> str:
    """After a rejection: the calls that ran before it stay applied (a rejection undoes nothing), and
    which a rollback reverts (review 15x L12, the kernel's side)."""
    applied = [e for e in (state.log if state is not None else []) if e.state == "applied"
               and e.connector != STEP_CONNECTOR]
    if not applied:
        return ""
    calls = ", ".join(f"#{e.seq} {e.connector}.{e.method}" for e in applied)
    undo = ("none of them has a revert" if not revertible
            else f"Roll back reverts them (%rollback {execution_id})" if revertible >= len(applied)
            else f"Roll back (%rollback {execution_id}) reverts {revertible} of them")
    return f" Call(s) {calls} ran before it and stay applied (a rejection undoes nothing); {undo}."


def settled_text(verb: str, state: ExecutionState) -> str:
    """One sentence on an execution that no longer waits for a decision, for a late ``verb``."""
    eid, status = state.id, state.status.replace("_", " ")
    if state.status == "running":
        return f"Execution {eid} is running (an approval is under way): there is nothing to {verb} now."
    if state.status == "rejected":
        return (f"Already decided: execution {eid} was rejected (or expired), so nothing is left to {verb}. "
                "Run its cell again to start over.")
    if state.passes <= 1:
        return f"Nothing to {verb}: execution {eid} never waited for approval; it is {status}."
    after = {"completed": "and completed", "error": f"and then failed (%journal {eid} shows why)",
             "rolled_back": "and was rolled back since"}.get(state.status, f"and is {status}")
    if verb == "reject":
        return (f"Too late to reject: execution {eid} was already approved {after}."
                + (f" %rollback {eid} reverts what it applied." if state.status != "rolled_back" else ""))
    return f"Already approved: execution {eid} ran on after its approval {after}."


def _same_call(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in ("seq", "connector", "method", "args"))


def _model_call_shown(state: ExecutionState, pending: Mapping[str, Any], origin: Sink | None) -> dict[str, Any]:
    """A typed ``%approve ID`` of a model's execution: its program and pending call, shown whole (arguments with
    what a person cannot see as escapes), and a refusal saying how to approve that very call."""
    eid, seq = state.id, pending.get("seq")
    call = terminal_text(f"{pending.get('connector')}.{pending.get('method')}", multiline=False)
    args = json_with_bytes(pending.get("args"), lambda v: json_text(v, indent=None, reveal=True), tagged=True)
    program = "\n".join("  | " + terminal_text(line, multiline=False) for line in state.code.rstrip("\n").split("\n"))
    if origin is not None:
        origin.stream(f"Execution {eid} was started by a model (the codemode tool). Its program (approved, it runs on "
                      f"from the top; earlier calls are replayed, not run again):\n{program}\n"
                      f"It waits for approval of call #{seq} {call}({args})\n")
    out = _refusal(eid, "NotApproved", (
        f"Nothing was approved: execution {eid} was started by a model, so its call is the model's words. Read the "
        f"call above; %approve {eid} {seq} approves that very call (or the Approve button of the Code Mode panel), "
        f"%reject {eid} {seq} refuses it."))
    _show_error(origin, out)
    return out


def _refusal(execution_id: str, error_type: str, message: str) -> dict[str, Any]:
    return {"status": "error", "execution_id": execution_id, "error": message, "error_type": error_type,
            "refused": True}


def _say_settled(text: str, card: ExecutionCard | None, origin: Sink | None) -> None:
    """A late approval or rejection: the card and the cell that asked say how the execution ended."""
    if card is not None:
        card.refused(text, retry=False, level="info")
    if origin is not None:
        origin.stream(text + "\n")


def _show_error(origin: Sink | None, out: Mapping[str, Any]) -> None:
    if origin is not None:
        ename, evalue, _ = error_parts(out)
        _show_text_error(origin, ename, evalue)


def _show_text_error(origin: Sink | None, ename: str, evalue: str) -> None:
    if origin is not None:
        evalue = door_text(evalue, "magic")  # the library's hints in the magics' words (review 15x M2)
        origin.error(ename, evalue, error_traceback(ename, evalue, code=None, line=None, count=None))


def _nothing_pending_text(verb: str, state: ExecutionState) -> str:
    """A ``verb`` that named no call and found none pending: what the execution is now."""
    waiting = [e for e in state.log if e.state == "pending"]
    if state.status != "paused" or not waiting:
        return settled_text(verb, state)
    calls = ", ".join(f"call #{e.seq} ({e.connector}.{e.method})" for e in waiting)
    done = "approved" if verb == "approve" else "rejected"
    return (f"Nothing was {done}: execution {state.id} had no pending call when this {verb} looked, and it is "
            f"now paused on {calls}, which this {verb} did not name. Decide on that call.")


def _reject_refusal(execution_id: str, seq: int | None, state: ExecutionState | None) -> str:
    if state is None:
        return str(UnknownExecutionError(execution_id))
    if seq is None:
        return _nothing_pending_text("reject", state)
    if state.status != "paused":
        return str(InvalidStateError(execution_id, state.status, "reject", ["paused"]))
    pending = [e.seq for e in state.log if e.state == "pending"]
    return f"Call #{seq} of execution {execution_id!r} is not pending; the pending call(s): {pending}."


def _unknown_after_completion(eid: str, entry: ToolLogEntry) -> str:
    """A completed cell's word on a call whose outcome is unknown (its program caught the OutcomeUnknown)."""
    why = clip(entry.error, 300) if entry.error else "its pass ended while it ran"
    return (f"Note: call #{entry.seq} {entry.connector}.{entry.method} has an unknown outcome ({why}): it may have "
            f"been done. Check {entry.connector} before sending it again; %journal {eid} shows it, and a rollback "
            "does not revert it.")
