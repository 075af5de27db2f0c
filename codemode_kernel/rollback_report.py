"""What a rollback did, in words every door shares (review 15x H1).

A rollback reverts applied calls. A call whose outcome is unknown - its connector raised
``OutcomeUnknown`` (the request went out and no answer came), or its pass ended while it ran -
stays ``executing`` in the journal of a finished execution: it is never run again and never
reverted, because nobody knows whether it was done. A person who rolls back to undo what a
program did must hear about it, by name, or they believe the program left nothing behind.

The kernel's ``%rollback``, the ``codemode rollback`` command (text and ``--json``'s
``"unknown": [seq, ...]``) and ``codemode show`` read such entries with :func:`unknown_calls`
and word them with :func:`unknown_text`.
"""

from __future__ import annotations

from collections.abc import Sequence

from codemode_kernel.errors import clip
from codemode_kernel.models import STEP_CONNECTOR, ExecutionState, ToolLogEntry

#: The longest part of a connector's note quoted in the sentence (the journal keeps all of it).
NOTE_CHARS = 300


def unknown_calls(state: ExecutionState) -> list[ToolLogEntry]:
    """The connector calls of ``state`` whose outcome is unknown: ``executing`` entries of an
    execution that no pass is running (while one runs, ``executing`` means just that)."""
    if state.status == "running":
        return []
    return [e for e in state.log if e.state == "executing" and e.connector != STEP_CONNECTOR]


def entry_state(state: ExecutionState, entry: ToolLogEntry) -> str:
    """The state to show for ``entry``: ``unknown`` for an unknown outcome, else the journal's word."""
    if entry.state == "executing" and state.status != "running" and entry.connector != STEP_CONNECTOR:
        return "unknown"
    return entry.state


def unknown_text(entry: ToolLogEntry) -> str:
    """One sentence on a call of unknown outcome: not reverted, and what the person does about it."""
    why = clip(entry.error, NOTE_CHARS) if entry.error else "its pass ended while it ran"
    return (f"Call #{entry.seq} {entry.connector}.{entry.method}: its outcome is unknown ({why}): it was not "
            f"reverted; check {entry.connector} and undo it by hand if it was done.")


def rollback_text(reverted: Sequence[ToolLogEntry], unknown: Sequence[ToolLogEntry]) -> str:
    """The answer to a rollback: what it reverted (or that it reverted nothing), then each call of
    unknown outcome on a line of its own."""
    if reverted:
        head = (f"Rolled back {len(reverted)} action(s): "
                + ", ".join(f"{e.connector}.{e.method} (call #{e.seq})" for e in reverted) + ".")
    elif unknown:
        head = "No action was reverted: no applied action of this execution can be reverted."
    else:
        head = "Nothing to roll back: no applied action of this execution can be reverted."
    return "\n".join([head, *(unknown_text(e) for e in unknown)])
