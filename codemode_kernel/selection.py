"""Which execution a person means (``last``, a full id, a unique id prefix), and what can be done with it (issue 11).

The notebook's magics and cards, the ``codemode`` command and the side panel all accept
``last`` and id prefixes; they resolve them here, so ``last`` means the same everywhere:

| purpose | ``last`` is the newest execution that is |
|---|---|
| ``approve``, ``reject`` | paused |
| ``rollback`` | completed, error or rejected |
| ``snippet`` | completed or rolled back |
| anything else (``show``, ``delete``) | of any status |

**Can it be rolled back?** :func:`revertible_calls` is the one rule the notebook's card, the
side panel (which gets it as ``can_rollback``) and ``codemode show`` use: a finished
execution's applied connector calls whose method (as configured now) has a revert, newest
first, as :meth:`CodemodeRuntime.rollback` walks them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from codemode_kernel.errors import CodemodeError, UnknownExecutionError
from codemode_kernel.models import STEP_CONNECTOR, ExecutionState, ToolLogEntry
from codemode_kernel.terminal import terminal_text

if TYPE_CHECKING:
    from codemode_kernel.catalog import Catalog
    from codemode_kernel.connectors.base import RevertFn
    from codemode_kernel.runtime import CodemodeRuntime

#: The statuses ``last`` may name, per purpose; a purpose not listed takes any status.
LAST_STATUSES: dict[str, tuple[str, ...]] = {
    "approve": ("paused",),
    "reject": ("paused",),
    "rollback": ("completed", "error", "rejected"),
    "snippet": ("completed", "rolled_back"),
}
#: How a purpose's ``last`` that names nothing is said: what it looks for, and what for (review 14x, L6).
_WORDS: dict[str, tuple[str, str]] = {
    "approve": ("paused", " to approve"),
    "reject": ("paused", " to reject"),
    "rollback": ("finished (completed, failed or rejected)", " to roll back"),
    "snippet": ("completed (or rolled back)", " to save as a snippet"),
}
#: The purposes whose ``last`` must name the call's execution a person was shown (see resolve_execution).
DECISIONS: frozenset[str] = frozenset({"approve", "reject"})
#: The statuses a rollback accepts (as ``CodemodeRuntime.rollback`` checks them).
ROLLBACK_STATUSES: tuple[str, ...] = ("completed", "error", "rejected", "rolled_back")
#: The shortest id prefix accepted (ids are 26 characters; 6 tells thousands apart).
ID_PREFIX_MIN = 6
#: How many recent executions ``last`` and prefixes look through.
SCAN_LIMIT = 1000


async def resolve_execution(runtime: CodemodeRuntime, token: str, purpose: str | None = None, *,
                            own: Collection[str] = ()) -> str:
    """The execution id ``token`` means for ``purpose`` (see the module's table).

    ``last`` is the newest execution among ``own`` (those this front end showed: a notebook's cells)
    that the purpose takes, else the journal's newest; for a decision (``approve``, ``reject``), the
    journal's one paused execution.
    When several wait and none is this front end's, it names none: another door to the same journal
    (a model through ``codemode mcp``, another notebook) may have paused the newest, and a person's
    ``approve last`` would approve a call they were never shown (review 13).

    Raises :class:`~codemode_kernel.errors.CodemodeError` when ``last`` names nothing (or, for a
    decision, more than one) or a prefix is ambiguous, and
    :class:`~codemode_kernel.errors.UnknownExecutionError` when no execution matches.
    """
    token = token.strip()
    wanted = LAST_STATUSES.get(purpose or "")
    executions = await runtime.executions(limit=SCAN_LIMIT)
    if token == "last":
        if purpose in DECISIONS:
            return _last_decision(executions, purpose or "", own)
        fitting = [s for s in executions if wanted is None or s.status in wanted]
        # A front end's own first: a rollback or delete of 'last' is of what it showed. Then the journal's
        # newest that a person started: a model's program (through the codemode tool) is named by its id,
        # never saved, rolled back or deleted as 'last' from a terminal (review 15, M5).
        candidates = [s for s in fitting if s.id in own] + [s for s in fitting if s.id not in own and not s.via_tool]
        if purpose == "rollback" and candidates:
            # The newest with an action to revert: a read cell after a write is not what a person undoes
            # (review 15x, M11). None has one: the newest, whose rollback says there is nothing to revert.
            catalog = await runtime.catalog()
            return next((s.id for s in candidates if revertible_calls(s, catalog)), candidates[0].id)
        if candidates:
            return candidates[0].id
        if models := [s for s in fitting if s.via_tool]:
            what, to = _WORDS.get(purpose or "", ("recorded", ""))
            raise CodemodeError(f"The newest {what} execution{to}, {models[0].id}, was started by a model through "
                                f"the codemode tool, so 'last' does not name it. Read it (%journal {models[0].id} in "
                                f"a notebook, `codemode show {models[0].id}` in a terminal) and name it by its id.")
        what, to = _WORDS.get(purpose or "", ("recorded", ""))
        waiting = next((s for s in executions if s.status in ("paused", "running")), None)
        now = (f" Execution {waiting.id} is {waiting.status}" + (": approve or reject its call first." if
               waiting.status == "paused" else ": wait for it to end.")) if waiting is not None else ""
        raise CodemodeError(f"There is no {what} execution{to}.{now} List the executions with their status "
                            "(%executions in a notebook, `codemode executions` in a terminal).")
    if any(s.id == token for s in executions) or len(token) >= 26:
        return token
    if len(token) >= ID_PREFIX_MIN:
        matches = [s.id for s in executions if s.id.startswith(token.upper())]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise CodemodeError(f"{token!r} matches {len(matches)} executions; give more characters of the id.")
    raise UnknownExecutionError(token, runtime.name)


def _last_decision(executions: Sequence[ExecutionState], purpose: str, own: Collection[str]) -> str:
    paused = [state for state in executions if state.status == "paused"]
    mine = [state for state in paused if state.id in own]
    if mine:
        return mine[0].id
    if len(paused) == 1 and not paused[0].via_tool:
        return paused[0].id
    if len(paused) == 1:  # a model's program: the person reads its call and names it, by a command that runs
        state = paused[0]
        seq = _waiting_seq(state)
        named = f"{purpose} {state.id}" + (f" {seq}" if seq is not None else "")
        raise CodemodeError(f"The only paused execution, {state.id} ({_waiting_call(state)}), was started by a "
                            f"model through the codemode tool, so 'last' does not name it. Read its call "
                            f"(%pending {state.id} in a notebook, `codemode pending {state.id}` in a terminal) and "
                            f"name it (%{named} in a notebook, `codemode {named}` in a terminal).")
    if not paused:
        raise CodemodeError(f"There is no paused execution to {purpose}. List the executions with their status "
                            "(%executions in a notebook, `codemode executions` in a terminal).")
    listed = "; ".join(f"{state.id} ({_waiting_call(state)})" for state in paused[:5])
    more = f"; and {len(paused) - 5} more" if len(paused) > 5 else ""
    raise CodemodeError(f"{len(paused)} executions wait for approval, so 'last' names none of them: {listed}{more}. "
                        f"Name the one you were shown: {purpose} ID SEQ (%{purpose} in a notebook, `codemode "
                        f"{purpose}` in a terminal); %pending or `codemode pending ID` shows each call.")


def _waiting_seq(state: ExecutionState) -> int | None:
    return next((e.seq for e in state.log if e.state == "pending"), None)


def _waiting_call(state: ExecutionState) -> str:
    waiting = [e for e in state.log if e.state == "pending"]
    if not waiting:
        return "its call"
    e = waiting[0]
    return f"call #{e.seq} {terminal_text(f'{e.connector}.{e.method}', multiline=False)}"


def revert_for(catalog: Catalog, connector: str, method: str, entry_state: str) -> RevertFn | None:
    """The revert a rollback runs for one journal entry, or ``None``.

    ``None`` for a call that is not ``applied``, a step, a method without a revert, and a
    connector that is no longer configured (or unavailable): rollback skips those.
    """
    if entry_state != "applied" or connector == STEP_CONNECTOR:
        return None
    found = catalog.get(connector, method)
    return found.tool.revert if found is not None else None


def revertible_calls(state: ExecutionState, catalog: Catalog) -> list[ToolLogEntry]:
    """The calls a rollback of ``state`` would revert, newest first; empty when it cannot be rolled back.

    Applied connector calls (not steps) of a finished execution whose method is configured
    and has a revert (:func:`revert_for`), as :meth:`CodemodeRuntime.rollback` walks them.
    """
    if state.status not in ROLLBACK_STATUSES:
        return []
    return [e for e in reversed(state.log) if revert_for(catalog, e.connector, e.method, e.state) is not None]
