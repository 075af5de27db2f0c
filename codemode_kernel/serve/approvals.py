"""Asking the person through the MCP client when a program pauses (issue 15).

Approvals stay with a person. When the client declares form elicitation, a paused ``codemode``
call asks the human through the client: the question names the action and its arguments, and
the person's answer (never text the model wrote) approves or rejects it:

- **accept** with ``approve`` ticked: the call runs, exactly once (``runtime.approve``); the
  program goes on and may pause again, which asks again;
- **accept** with ``approve`` unticked, or **decline**: the action is rejected;
- **cancel** (the question dismissed): nothing is decided; the outcome stays ``paused`` and
  says a person must approve elsewhere.

Two wire forms, as the SDK negotiates them. From protocol 2026-07-28 a tool cannot send a
request of its own: it returns an ``InputRequiredResult`` carrying the question and a
``request_state``, and the client calls the tool again with the answer. The state names the
execution and the call; the SDK seals it (AES-GCM, a key made when the server starts), so a
client cannot point an answer at another execution. Earlier protocols ask with a
server-to-client ``elicitation/create`` request inside the call (``ctx.elicit``).

The model can write anything into a program's arguments, so the question puts the server's own
words first and shows the arguments as JSON (quoted, control characters escaped), cut at
:data:`MAX_ARGS_CHARS` with a note saying so and where to read them whole.

A client that lets a model answer elicitations would defeat this: ``codemode mcp
--approvals outside`` never asks through the client.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel, Field

from codemode_kernel.runtime import CodemodeRuntime

#: Arguments longer than this (as JSON) are cut in the question.
MAX_ARGS_CHARS = 4000
#: The key of the one input request a paused call sends.
QUESTION_KEY = "codemode_approval"


class ApprovalAnswer(BaseModel):
    """The form a person fills in: one box."""

    approve: bool = Field(title="Approve", description="Tick to let this action run now; leave it unticked (or "
                                                        "decline) to reject it.")


def render_schema() -> dict[str, Any]:
    """The form's JSON Schema as elicitation sends it."""
    return render_elicitation_schema(ApprovalAnswer)


def question(pending: dict[str, Any]) -> str:
    """The text shown to the person for one pending action (plain text, arguments quoted as JSON)."""
    call = f"{pending['connector']}.{pending['method']}"
    args = json.dumps(pending.get("args"), ensure_ascii=True, sort_keys=True)
    cut = ""
    if len(args) > MAX_ARGS_CHARS:
        cut = (f"\n(The arguments are cut at {MAX_ARGS_CHARS} of {len(args)} characters; read them whole with "
               f"`codemode show {pending['execution_id']}` before you approve.)")
        args = args[:MAX_ARGS_CHARS] + "..."
    return (f"Code Mode: a program the assistant wrote wants to run an action that needs your approval.\n"
            f"Action: {json.dumps(call, ensure_ascii=True)} (call #{pending['seq']} of execution "
            f"{pending['execution_id']})\nArguments (JSON, written by the assistant): {args}{cut}\n"
            "Approve to run it once; decline to reject it (the program then ends, nothing is undone).")


def decision(action: str, content: dict[str, Any] | None) -> str | None:
    """``approve``, ``reject``, or ``None`` (no decision) for an elicitation answer."""
    if action == "accept":
        return "approve" if (content or {}).get("approve") is True else "reject"
    if action == "decline":
        return "reject"
    return None


async def apply(runtime: CodemodeRuntime, pending: dict[str, Any], choice: str) -> dict[str, Any] | None:
    """Carry out the person's ``choice`` on ``pending``; the new output, or ``None`` if it was decided elsewhere.

    The execution must still be paused at that very call: a person may have answered it in the
    notebook meanwhile, and an answer to an old question must not approve a newer one. The
    runtime checks that in the claim itself (``seq``), so no approval can come between the check
    and the decision.
    """
    eid, seq = pending["execution_id"], pending["seq"]
    if choice == "approve":
        out = await runtime.approve(eid, seq=seq)
        if out.get("refused") and out.get("error_type") in ("InvalidStateError", "UnknownExecutionError"):
            return None  # decided (or deleted) elsewhere: the caller reports the execution as it is
        return out
    await runtime.reject(eid, seq)
    return None
