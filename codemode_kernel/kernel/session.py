"""One notebook's Code Mode state: configuration, runtime, carried names, approval cards.

The kernel module translates Jupyter messages; this module does the work behind them and
knows nothing of ZMQ or ipykernel. Everything that changes an execution (a cell, Approve,
Reject, Roll back, Save as snippet) goes through one method here, whether it came from a
cell, a card's button, a magic or the side panel, so the paused cell's card updates in
place whichever door was used.

Idempotency, in three layers: the card disables its buttons before acting; this session
refuses a second action on an execution while one is in flight (``_busy``); the runtime's
compare-and-set refuses a stale approval and reverts each call at most once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from codemode_kernel import codec
from codemode_kernel.building import build_runtime, choose_store_url
from codemode_kernel.config import CodemodeConfig, ConfigProblem, default_store_url, load_config, notebook_path
from codemode_kernel.connectors.base import Connector
from codemode_kernel.errors import CodemodeError, ConfigurationError, InvalidStateError, UnknownExecutionError
from codemode_kernel.kernel.display import error_parts, error_traceback, pending_summary, result_bundle
from codemode_kernel.kernel.output import NullSink, ReplayFilter, Sink, Tee
from codemode_kernel.kernel.widgets import CardActions, ExecutionCard
from codemode_kernel.models import STEP_CONNECTOR, ExecutionState, Snippet
from codemode_kernel.selection import resolve_execution, revertible_calls

if TYPE_CHECKING:
    from codemode_kernel.runtime import CodemodeRuntime

log = logging.getLogger(__name__)

Notify = Callable[[str, "str | None"], None]

MAX_RECORDS = 500


@dataclass(frozen=True)
class CellOutcome:
    """What the kernel replies for a cell: ``ok`` or a Jupyter error."""

    status: Literal["ok", "error"] = "ok"
    ename: str = ""
    evalue: str = ""
    traceback: list[str] = field(default_factory=list)
    execution_id: str | None = None
    payload: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def failed(cls, ename: str, evalue: str, traceback: list[str] | None = None,
               execution_id: str | None = None) -> CellOutcome:
        return cls("error", ename, evalue, traceback or [f"{ename}: {evalue}"], execution_id)


@dataclass
class CellRecord:
    """What this kernel knows about an execution it showed: code, cell number, output, card."""

    code: str
    count: int | None
    given: dict[str, Any]
    shown: str = ""
    card: ExecutionCard | None = None
    pending: list[dict[str, Any]] = field(default_factory=list)


class NotebookSession:
    """The Code Mode side of one kernel: what a notebook's cells run against."""

    def __init__(self, *, cwd: Path | None = None, env: Mapping[str, str] | None = None,
                 notify: Notify | None = None) -> None:
        self.env = dict(os.environ if env is None else env)
        self.cwd = (cwd or Path.cwd()).resolve()
        self.notebook = notebook_path(self.env, self.cwd)
        self.folder = self.notebook.parent if self.notebook is not None else self.cwd
        self.notify_hook = notify
        self.config: CodemodeConfig = CodemodeConfig(source=None, base_dir=self.folder)
        self.host_connectors: dict[str, Connector] = {}
        self.runtime_problems: list[str] = []
        self.unreported: list[str] = []
        self.variables: dict[str, Any] = {}
        self.records: dict[str, CellRecord] = {}
        self.last_id: str | None = None
        self.cell_runs: dict[str, str] = {}  # notebook cell id -> its latest execution
        self._runtime: CodemodeRuntime | None = None
        self._dirty = True
        self._retired: list[CodemodeRuntime] = []
        self._busy: set[str] = set()
        self._inflight = 0
        self._tasks: set[asyncio.Future[Any]] = set()
        self.home_loop: asyncio.AbstractEventLoop | None = None

    # -- configuration and runtime ---------------------------------------------------------

    def load(self, *, reload_modules: bool = False) -> tuple[ConfigProblem, ...]:
        """(Re)read the configuration; the runtime is rebuilt on next use."""
        self.config = load_config(self.folder, env=self.env, reload_modules=reload_modules)
        for p in self.config.problems:
            log.warning("Code Mode configuration: %s", p)
        self.unreported = [str(p) for p in self.config.problems]
        self._dirty = True
        return self.config.problems

    @property
    def store_url(self) -> str:
        """``CODEMODE_STORE``, else ``[store] url``, else a SQLite file beside the notebook."""
        return choose_store_url(self.config, notebook=self.notebook, cwd=self.cwd, env=self.env)

    @property
    def needs_rebuild(self) -> bool:
        """True when connectors changed since the runtime was built."""
        return self._dirty

    @property
    def runtime(self) -> CodemodeRuntime:
        """The current runtime, built on first use and again after a configuration change."""
        if self._runtime is None or self._dirty:
            old = self._runtime
            self._runtime = self._build_runtime()
            self._dirty = False
            if old is not None:
                self._retired.append(old)
                self._close_retired_soon()
        return self._runtime

    def _build_runtime(self) -> CodemodeRuntime:
        built = build_runtime(self.config, store_url=self.store_url, host_connectors=self.host_connectors,
                              fallback_store_url=default_store_url(self.notebook, self.cwd))
        self.runtime_problems = list(built.problems)
        self.unreported += built.problems
        return built.runtime

    def connect(self, connector: Connector) -> str:
        """Add (or replace) a connector from trusted host code (``connect(...)`` in ``%%host``)."""
        if not isinstance(connector, Connector):
            raise ConfigurationError(f"connect() needs a Connector (e.g. ToolSetConnector([...], name='x')), "
                                     f"not {type(connector).__name__}")
        if not connector.name:
            raise ConfigurationError("connect(): the connector has no name; set its `name`")
        self.host_connectors[connector.name] = connector
        self._dirty = True
        return connector.name

    def disconnect(self, name: str) -> bool:
        """Remove a connector added with ``connect``."""
        found = self.host_connectors.pop(name, None) is not None
        self._dirty = self._dirty or found
        return found

    async def reload(self) -> tuple[ConfigProblem, ...]:
        problems = self.load(reload_modules=True)
        _ = self.runtime
        self.notify("connectors_changed", None)
        return problems

    def take_unreported(self) -> list[str]:
        """Configuration problems not yet shown in a cell (each is shown once)."""
        out, self.unreported = self.unreported, []
        return out

    def _close_retired_soon(self) -> None:
        if self._inflight == 0 and self._retired:
            retired, self._retired = self._retired, []
            for rt in retired:
                self.spawn(rt.aclose())

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        runtimes = [*self._retired, *([self._runtime] if self._runtime is not None else [])]
        self._retired, self._runtime = [], None
        for rt in runtimes:
            try:
                await rt.aclose()
            except Exception:  # closing must reach every runtime
                log.debug("closing a runtime failed", exc_info=True)

    def interrupt(self) -> bool:
        """Stop every running pass (its execution becomes ``error``)."""
        return self._runtime.interrupt() if self._runtime is not None else False

    # -- events and tasks --------------------------------------------------------------------

    def notify(self, event: str, execution_id: str | None) -> None:
        if self.notify_hook is None:
            return
        try:
            self.notify_hook(event, execution_id)
        except Exception:  # a broken panel must not break cells
            log.debug("panel notify failed", exc_info=True)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` as a task on the kernel's main loop (widget callbacks are synchronous).

        JupyterLab may send comm messages over a kernel subshell, whose handlers run in
        another thread and loop; the runtime and the widgets live on the main loop
        (``home_loop``), so work from elsewhere is handed over to it.
        """
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        home = self.home_loop or running
        if home is None:
            coro.close()
            raise RuntimeError("NotebookSession.spawn needs a running event loop")
        if running is home:
            self._start(coro)
        else:
            home.call_soon_threadsafe(self._start, coro)

    def _start(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("Code Mode background task failed", exc_info=task.exception())

    # -- cells ----------------------------------------------------------------------------

    async def run_code(self, code: str, sink: Sink, count: int | None = None, *,
                       cell_id: str | None = None) -> CellOutcome:
        """Run one cell as a new execution, streaming its output into ``sink``.

        ``cell_id`` (sent by JupyterLab) lets a re-run cell mention that its previous run
        still waits for approval: the new run is a new execution and does not replace it.
        """
        runtime = self.runtime
        previous = self.cell_runs.get(cell_id) if cell_id else None
        if previous is not None and previous in self.records and self.records[previous].pending:
            state = await runtime.execution(previous)
            if state is not None and state.status == "paused":
                sink.stream(f"Note: the previous run of this cell (execution {previous}) still waits for "
                            f"approval; this run is a new execution. %reject {previous} drops the old one.\n",
                            "stderr")
        given = dict(self.variables)
        live = ReplayFilter("", lambda text: sink.stream(text))
        self.notify("execution_started", None)
        self._inflight += 1
        try:
            out = await runtime.execute(code, inputs=given, on_output=live, capture_variables=True)
        finally:
            self._inflight -= 1
            self._close_retired_soon()
        eid = str(out["execution_id"])
        if not live.printed and out.get("logs"):
            # An executor that does not stream still returns the logs: show them now.
            live("\n".join(out["logs"]) + "\n")
        record = CellRecord(code=code, count=count, given=given, shown=live.printed)
        self._remember(eid, record)
        self.last_id = eid
        if cell_id:
            self.cell_runs[cell_id] = eid
        outcome = await self._render(eid, out, record, sink=sink, card_home=sink)
        self.notify("execution_changed", eid)
        return outcome

    def _remember(self, eid: str, record: CellRecord) -> None:
        self.records[eid] = record
        if len(self.records) > MAX_RECORDS:
            for old in list(self.records)[: len(self.records) - MAX_RECORDS]:
                if not self.records[old].pending:
                    del self.records[old]

    async def _render(self, eid: str, out: Mapping[str, Any], record: CellRecord, *, sink: Sink,
                      card_home: Sink | None) -> CellOutcome:
        """Show an outcome: the result, the error, or the approval card."""
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
        if status == "completed":
            self._carry(out, record)
            if out.get("result") is not None:
                sink.display(result_bundle(out["result"]), result=True)
            calls, revertable = await self._calls(eid, record.code)
            self._finish(eid, record, "completed", calls=calls, can_rollback=revertable, can_save=True,
                         card_home=card_home)
            return CellOutcome(execution_id=eid)
        ename, evalue, line = error_parts(out)
        tb = error_traceback(ename, evalue, code=record.code, line=line, count=record.count,
                             frames=str(out.get("traceback") or ""))
        sink.error(ename, evalue, tb)
        calls, revertable = await self._calls(eid, record.code)
        self._finish(eid, record, "error", calls=calls if revertable else 0, can_rollback=revertable,
                     can_save=False, card_home=card_home)
        return CellOutcome.failed(ename, evalue, tb, eid)

    def _finish(self, eid: str, record: CellRecord, status: str, *, calls: int, can_rollback: bool,
                can_save: bool, card_home: Sink | None) -> None:
        card = record.card
        if card is None:
            # Cells that made no connector call get no buttons: nothing to roll back, and a
            # pure computation is rarely worth a snippet (%snippet save still works).
            if calls == 0 or card_home is None:
                return
            card = record.card = self._new_card(eid)
            card.finished(status, can_rollback=can_rollback, can_save=can_save)
            card_home.display(card.bundle(f"{status}: execution {eid} "
                                          f"({calls} connector call(s); %rollback, %snippet save)"))
            return
        card.finished(status, can_rollback=can_rollback, can_save=can_save)

    def _carry(self, out: Mapping[str, Any], record: CellRecord) -> None:
        """Carry the names a completed cell assigned into later cells.

        Only names the cell *changed* are taken: a cell approved long after it paused must not
        put back the old values it was given while later cells have moved on.
        """
        variables = out.get("variables")
        if not isinstance(variables, dict):
            return
        for name in record.given:
            if name not in variables:
                self.variables.pop(name, None)  # deleted by the cell, or no longer serializable
        for name, encoded in variables.items():
            if name in record.given and codec.is_encodable(record.given[name]) and \
                    codec.encode(record.given[name]) == encoded:
                continue
            self.variables[name] = codec.decode(encoded)

    def _may_call(self, code: str) -> bool:
        # A connector can only be reached by naming it (no globals(), eval or getattr on
        # modules in the sandbox), so a cell that names none made no call: skip the journal read.
        names = [*self.runtime.connectors, "codemode"]
        return re.search(r"\b(" + "|".join(map(re.escape, names)) + r")\b", code) is not None

    async def _calls(self, eid: str, code: str) -> tuple[int, bool]:
        """How many connector calls the execution journaled, and whether any can be reverted."""
        if code and not self._may_call(code):
            return 0, False
        state = await self.runtime.execution(eid)
        if state is None:
            return 0, False
        return await self._revert_info(state)

    async def _revert_info(self, state: ExecutionState) -> tuple[int, bool]:
        """How many connector calls the execution made, and whether it can be rolled back (selection's rule)."""
        calls = [e for e in state.log if e.connector != STEP_CONNECTOR]
        if not calls:
            return 0, False
        return len(calls), bool(revertible_calls(state, await self.runtime.catalog()))

    def _new_card(self, eid: str) -> ExecutionCard:
        return ExecutionCard(eid, CardActions(
            approve=lambda: self._click(self.approve(eid)),
            reject=lambda seq: self._click(self.reject(eid, seq)),
            rollback=lambda: self._click(self.rollback(eid)),
            save_snippet=lambda name, description: self._click(self.save_snippet(name, eid, description)),
        ))

    def _click(self, coro: Coroutine[Any, Any, Any]) -> None:
        async def guarded() -> None:
            with contextlib.suppress(CodemodeError):  # already shown on the card
                await coro
        self.spawn(guarded())

    async def _record(self, eid: str) -> CellRecord | None:
        record = self.records.get(eid)
        if record is not None:
            return record
        state = await self.runtime.execution(eid)
        if state is None:
            return None
        # An execution from before a restart, or from another kernel: adopt it.
        record = CellRecord(code=state.code, count=None, given={},
                            shown="".join(line + "\n" for line in state.logs))
        self._remember(eid, record)
        return record

    # -- approve, reject, roll back, save (cells, cards, magics and the panel) ------------

    async def approve(self, execution_id: str, *, origin: Sink | None = None) -> dict[str, Any]:
        """Approve the pending action(s) of a paused execution and show what follows."""
        if execution_id in self._busy:
            return _refusal(execution_id, "InvalidStateError",
                            f"execution {execution_id!r} is already being approved, rejected or rolled back; "
                            "wait for it to finish")
        self._busy.add(execution_id)
        self._inflight += 1
        try:
            record = await self._record(execution_id)
            if record is None:
                out = _refusal(execution_id, "UnknownExecutionError", str(UnknownExecutionError(
                    execution_id, self.runtime.name)))
                _show_error(origin, out)
                return out
            card = record.card
            if card is not None and not card.locked:
                card.busy("Approved: running the cell again from the top, replaying earlier calls…")
            self.notify("execution_changed", execution_id)
            sinks: list[Sink] = [s for s in (card, origin) if s is not None]
            tee = Tee(sinks)
            live = ReplayFilter(record.shown, lambda text: tee.stream(text))
            decided = record.pending
            out = await self.runtime.approve(execution_id, on_output=live)
            if out.get("refused"):
                state = await self.runtime.execution(execution_id)
                if card is not None:
                    card.refused(str(out.get("error")), retry=state is not None and state.status == "paused")
                _show_error(origin, out)
                self.notify("execution_changed", execution_id)
                return out
            if live.printed:
                record.shown = live.printed
            if card is not None:
                for p in decided:
                    card.decided(f"{p.get('connector')}.{p.get('method')} (call #{p.get('seq')}) approved")
            await self._render(execution_id, out, record, sink=tee if sinks else NullSink(), card_home=origin)
            self.notify("execution_changed", execution_id)
            return out
        finally:
            self._busy.discard(execution_id)
            self._inflight -= 1
            self._close_retired_soon()

    async def reject(self, execution_id: str, seq: int | None = None, *, origin: Sink | None = None) -> bool:
        """Reject a pending action; the execution ends ``rejected`` (nothing is undone)."""
        if execution_id in self._busy:
            _show_text_error(origin, "InvalidStateError", f"execution {execution_id!r} is busy; try again")
            return False
        self._busy.add(execution_id)
        try:
            record = await self._record(execution_id)
            card = record.card if record is not None else None
            if card is not None and not card.locked:
                card.busy("Rejecting…")
            ok = await self.runtime.reject(execution_id, seq)
            state = await self.runtime.execution(execution_id)
            if not ok:
                why = _reject_refusal(execution_id, seq, state)
                if card is not None:
                    card.refused(why, retry=state is not None and state.status == "paused")
                _show_text_error(origin, "InvalidStateError", why)
                return False
            _, revertable = await self._revert_info(state) if state is not None else (0, False)
            text = "Rejected: the action was not run and the execution ended."
            if revertable:
                text += " Earlier actions of this execution were applied; Roll back reverts them."
            if card is not None and record is not None:
                for p in record.pending:
                    card.decided(f"{p.get('connector')}.{p.get('method')} (call #{p.get('seq')}) rejected",
                                 approved=False)
                card.finished("rejected", can_rollback=revertable, can_save=False)
                card.notice(text)
            if record is not None:
                record.pending = []
            if origin is not None:
                origin.stream(text + "\n")
            return True
        finally:
            self._busy.discard(execution_id)
            self.notify("execution_changed", execution_id)

    async def rollback(self, execution_id: str, *, origin: Sink | None = None) -> None:
        """Revert the execution's applied actions (newest first); raise if any revert failed."""
        if execution_id in self._busy:
            raise InvalidStateError(execution_id, "busy", "roll back", ["idle"])
        self._busy.add(execution_id)
        try:
            record = self.records.get(execution_id)
            card = record.card if record is not None else None
            before = await self.runtime.execution(execution_id)
            already = {e.seq for e in before.log if e.state == "reverted"} if before is not None else set()
            try:
                await self.runtime.rollback(execution_id)
            except CodemodeError as exc:
                if card is not None:
                    card.rollback_failed(str(exc))
                _show_text_error(origin, type(exc).__name__, str(exc))
                raise
            after = await self.runtime.execution(execution_id)
            reverted = [e for e in (after.log if after is not None else []) if e.state == "reverted"
                        and e.seq not in already]
            if reverted:
                text = (f"Rolled back {len(reverted)} action(s): "
                        + ", ".join(f"{e.connector}.{e.method} (call #{e.seq})" for e in reverted) + ".")
            else:
                text = "Nothing to roll back: no applied action of this execution can be reverted."
            if card is not None:
                _, again = await self._revert_info(after) if after is not None else (0, False)
                card.rolled_back(text, reverted=bool(reverted), can_rollback=again)
            if origin is not None:
                origin.stream(text + "\n")
        finally:
            self._busy.discard(execution_id)
            self.notify("execution_changed", execution_id)

    async def save_snippet(self, name: str, execution_id: str, description: str = "") -> Snippet:
        """Save a completed execution's code as a snippet (``codemode.run(name, input)``)."""
        record = self.records.get(execution_id)
        card = record.card if record is not None else None
        try:
            snippet = await self.runtime.save_snippet(name, execution_id=execution_id, description=description)
        except CodemodeError as exc:
            if card is not None:
                card.snippet_failed(str(exc))
            raise
        if card is not None:
            card.snippet_saved(f"Saved as snippet {snippet.name!r}: run it with codemode.run({snippet.name!r}, input).")
        self.notify("snippets_changed", execution_id)
        return snippet

    async def delete_execution(self, execution_id: str) -> bool:
        ok = await self.runtime.delete_execution(execution_id)
        record = self.records.pop(execution_id, None)
        if ok and record is not None and record.card is not None:
            record.card.finished("error", can_rollback=False, can_save=False, detail="deleted")
            record.card.notice("This execution was deleted from the journal.")
        self.notify("execution_deleted", execution_id)
        return ok

    async def expire(self, max_age: timedelta) -> list[str]:
        ids = await self.runtime.expire_paused(max_age)
        for eid in ids:
            record = self.records.get(eid)
            if record is not None and record.card is not None:
                record.card.finished("rejected", can_rollback=False, can_save=False, detail="expired")
                record.card.notice("This execution expired while waiting for approval.")
                record.pending = []
            self.notify("execution_changed", eid)
        return ids

    # -- ids ------------------------------------------------------------------------------

    async def resolve(self, token: str, purpose: str) -> str:
        """An execution id from ``last``, a full id, or a unique id prefix (:mod:`codemode_kernel.selection`)."""
        return await resolve_execution(self.runtime, token, purpose)


def _refusal(execution_id: str, error_type: str, message: str) -> dict[str, Any]:
    return {"status": "error", "execution_id": execution_id, "error": message, "error_type": error_type,
            "refused": True}


def _show_error(origin: Sink | None, out: Mapping[str, Any]) -> None:
    if origin is not None:
        ename, evalue, _ = error_parts(out)
        _show_text_error(origin, ename, evalue)


def _show_text_error(origin: Sink | None, ename: str, evalue: str) -> None:
    if origin is not None:
        origin.error(ename, evalue, error_traceback(ename, evalue, code=None, line=None, count=None))


def _reject_refusal(execution_id: str, seq: int | None, state: ExecutionState | None) -> str:
    if state is None:
        return str(UnknownExecutionError(execution_id))
    if state.status != "paused":
        return str(InvalidStateError(execution_id, state.status, "reject", ["paused"]))
    pending = [e.seq for e in state.log if e.state == "pending"]
    return f"Call #{seq} of execution {execution_id!r} is not pending; the pending call(s): {pending}."
