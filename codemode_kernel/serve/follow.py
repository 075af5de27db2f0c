"""What a model may learn about the executions it started: ``codemode_status`` (issue 15).

A model sends code to the ``codemode`` tool; when the program pauses for a person, the model
needs a way to learn how it ended without running the code again (that would start a new
execution, which pauses again). :class:`Follower` answers with an execution's current status
and, once it has finished, its outcome, in the shape of the ``codemode`` tool's output. It only
reads the journal: nothing here approves, rejects or changes an execution.

**Whose executions.** A server follows only the executions its own ``codemode`` tool started
(:class:`Started`), kept in the server process's memory:

- *other runtimes and doors*: the journal may be a notebook's, shared with its kernel, the
  ``codemode`` command and other agent hosts; their executions (and the data in them) are not
  this model's business, so an id from there is answered as unknown, whatever its state;
- *across restarts*: a new server process starts with none. An execution id alone proves
  nothing (it is shown in notebooks, panels and terminals), and a stdio server cannot tell
  whether the next process serves the same conversation; a person still sees every execution
  with ``codemode show ID`` or in the panel;
- *across HTTP connections*: the 2026-07-28 protocol has no sessions (each request stands
  alone), so the principal is the bearer token. Every client of one ``codemode mcp --http``
  server shares its executions; give agents that must not see each other's work a server
  (and token) each.

Rejected: recording the owner in the journal (a change to the store's schema for what a
process-local set answers; an owner name in a shared journal would be one more thing to
forge); letting any id be followed (it would read a notebook's results to any model that saw
an id in a screenshot or a log).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from codemode_kernel import codec
from codemode_kernel.models import ExecutionState
from codemode_kernel.runtime import CodemodeRuntime

#: The longest a ``codemode_status`` call waits for a change (MCP clients time out a request
#: after about a minute).
MAX_WAIT_SECONDS = 60.0
#: How often a waiting call reads the journal: the person may approve from another process
#: (the kernel, the ``codemode`` command), so the store is the only place the change shows.
POLL_SECONDS = 0.25
#: How many execution ids a server remembers as its own.
MAX_REMEMBERED = 10_000
#: Statuses after which nothing more happens to an execution's outcome.
FINISHED = ("completed", "error", "rejected", "rolled_back")


class Started:
    """The executions this server's ``codemode`` tool started (the only ones its model may follow).

    The newest :data:`MAX_REMEMBERED` are kept, so a server that runs for months stays small;
    retention (``max_executions``) removes older ones from the journal long before.
    """

    def __init__(self) -> None:
        self._ids: dict[str, None] = {}
        self.since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())

    def add(self, execution_id: str) -> None:
        self._ids[execution_id] = None
        if len(self._ids) > MAX_REMEMBERED:
            del self._ids[next(iter(self._ids))]

    def __contains__(self, execution_id: object) -> bool:
        return execution_id in self._ids


class Follower:
    """Reads how an execution stands, for the model that started it."""

    def __init__(self, runtime: CodemodeRuntime, started: Started, approve_hint: str) -> None:
        self.runtime = runtime
        self.started = started
        self.approve_hint = approve_hint

    def unknown(self, execution_id: str) -> dict[str, Any]:
        """The answer for an id this server did not start (whether or not it exists)."""
        return {"status": "unknown", "execution_id": execution_id, "error": (
            f"No execution {execution_id!r} was started through this server since it started "
            f"({self.started.since}). You can follow only the executions your own `codemode` calls started, "
            "with the execution_id they returned; a server restart forgets them. Ask the person to look at it "
            "in the notebook's Code Mode panel or with `codemode show ID`.")}

    async def status(self, execution_id: str, wait_seconds: float = 0.0) -> dict[str, Any]:
        """The execution's status now, or after it changed (waiting at most ``wait_seconds``)."""
        if execution_id not in self.started:
            return self.unknown(execution_id)
        state = await self.runtime.execution(execution_id)
        wait = min(max(wait_seconds, 0.0), MAX_WAIT_SECONDS)
        if state is not None and wait > 0 and state.status not in FINISHED:
            deadline = time.monotonic() + wait
            first = (state.status, state.updated_at, state.passes)
            while time.monotonic() < deadline:
                await asyncio.sleep(min(POLL_SECONDS, max(deadline - time.monotonic(), 0.0)))
                now = await self.runtime.execution(execution_id)
                if now is None or now.status in FINISHED or (
                        now.status != "running" and (now.status, now.updated_at, now.passes) != first):
                    state = now
                    break
                state = now
        if state is None:
            return {"status": "deleted", "execution_id": execution_id,
                    "message": "This execution was deleted from the journal (by a person or by retention); its "
                               "outcome is gone."}
        return await self.outcome(state)

    async def outcome(self, state: ExecutionState) -> dict[str, Any]:
        """The ``codemode`` tool's output for ``state`` as the journal records it (plain JSON)."""
        eid = state.id
        out: dict[str, Any] = {"status": state.status, "execution_id": eid}
        if state.status == "completed":
            out["result"] = state.result
        elif state.status == "error":
            out["error"] = state.error or "(no message)"
            if state.error_type:
                out["error_type"] = state.error_type
        elif state.status == "paused":
            pending = [p.to_dict() for p in await self.runtime.pending(eid)]
            out["pending"] = [{**p, "args": codec.decode(p["args"])} for p in pending]
            out["next_step"] = self.paused_step(eid)
        elif state.status == "running":
            out["next_step"] = ("The program is running (a pass is under way, e.g. just after an approval). Call "
                                f"`codemode_status` again with execution_id={eid!r} and wait_seconds to wait for "
                                "its outcome.")
        elif state.status == "rejected":
            out["message"] = ("A person rejected a pending action, or it expired: the program did not run to the "
                              "end and the rejected call was not made (earlier calls stay done). Do not retry it "
                              "unless the person asks you to.")
        elif state.status == "rolled_back":
            out["message"] = "A person rolled this execution back: the actions it applied were reverted."
        if state.logs and state.status in ("completed", "error"):
            out["logs"] = list(state.logs)
        plain: dict[str, Any] = codec.to_json(out, "the outcome")
        return plain

    def paused_step(self, execution_id: str) -> str:
        """What a model does about a paused execution it cannot approve."""
        return (f"A person must approve or reject the pending action; you cannot. {self.approve_hint} Then call the "
                f"`codemode_status` tool with execution_id={execution_id!r} (wait_seconds up to "
                f"{MAX_WAIT_SECONDS:g}) to learn how the program ended. Do not send the same code to `codemode` "
                "again: that starts a new execution, which pauses again.")
