"""The MCP server: the ``codemode`` tool and the read-only ``codemode_status`` tool (issues 14, 15).

An MCP client (an agent host, an IDE) gets the same model-facing tool as ``runtime.tool()``:
it sends Python source and receives the output dict (``completed`` / ``paused`` / ``error``)
as structured content, with ``isError`` set when the program failed or was rejected. A paused
outcome carries ``next_step``: what the model does now (nothing it can do approves).

Approvals are deliberately *not* tools. A person answers them: through the client when it
supports elicitation (:mod:`.approvals`), else in the notebook's panel, with ``%approve`` or with
``codemode approve ID`` over the same journal. ``codemode_status`` lets the model follow an
execution it started (:mod:`.follow`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Tool as MCPTool
from mcp_types.version import is_version_at_least
from pydantic import Field

from codemode_kernel import codec
from codemode_kernel.connectors.unavailable import WHERE_TO_LOOK, unavailable_hints
from codemode_kernel.runtime import CodemodeRuntime
from codemode_kernel.serve import approvals
from codemode_kernel.serve.follow import MAX_WAIT_SECONDS, Follower, Started

Approvals = Literal["ask", "outside"]

#: Outcomes the model must read as a failure of its call.
ERROR_STATUSES = ("error", "rejected", "unknown")
#: How to approve, for a server that was not told its exact command line.
DEFAULT_APPROVE_HINT = ("The person approves it in the notebook's Code Mode panel, with `%approve ID` in that "
                        "notebook, or from a terminal with `codemode approve ID` (or `codemode reject ID`) over the "
                        "same journal.")
#: The first protocol whose tool calls ask the client by returning an ``InputRequiredResult``.
_INPUT_REQUIRED_VERSION = "2026-07-28"
#: How long a question asked through the client may wait for the person's answer.
_QUESTION_TTL_SECONDS = 3600.0

INSTRUCTIONS = (
    "Code Mode: write one small Python program that combines the connectors' methods and send it to the `codemode` "
    "tool. A call that needs approval pauses the program: a person approves or rejects it (you cannot), after "
    "which the program resumes from its journal. Follow a paused or running execution with `codemode_status` "
    "instead of sending the same code again.")

STATUS_DESCRIPTION = (
    "Read how an execution that your own `codemode` call started stands now: its status (running, paused, "
    "completed, error, rejected, rolled_back) and, once finished, its outcome (result or error), as the `codemode` "
    "tool reports it. wait_seconds (0 to {max:g}) waits for the status to change first, e.g. for a person to "
    "approve a paused action. This tool only reads: it cannot approve or reject anything.")


def build_mcp_server(runtime: CodemodeRuntime, *, description: str | None = None,
                     connector_hints: Mapping[str, str] | None = None, approvals_mode: Approvals = "ask",
                     approve_hint: str = DEFAULT_APPROVE_HINT, details_hint: str | None = None) -> MCPServer:
    """An ``MCPServer`` with the tools ``codemode`` and ``codemode_status`` over ``runtime``.

    ``approvals_mode="ask"`` asks the person through clients that support elicitation;
    ``"outside"`` never does (the person answers in the notebook, panel or terminal).
    ``approve_hint`` tells the model where a person approves (a paused outcome's ``next_step``).
    ``details_hint`` replaces the runtime's pointer for a notebook's author (an unavailable connector's
    note: "the notebook's author can see the details with %connectors") with this server's own: a
    folder served has no notebook (review 16x L4).
    """
    tool = runtime.tool(description, connector_hints)
    started = Started()
    follower = Follower(runtime, started, approve_hint)

    class Server(MCPServer):
        async def list_tools(self) -> list[MCPTool]:
            """The tools, the ``codemode`` description written now: a connector still starting, or one whose start
            failed since the server began, is marked so, not listed as usable (review 16x, M15)."""
            text = runtime.tool(description, connector_hints).description
            return [t.model_copy(update={"description": text}) if t.name == tool.name else t
                    for t in await super().list_tools()]

    server = Server("codemode", instructions=INSTRUCTIONS,
                    request_state_security=RequestStateSecurity.ephemeral(ttl=_QUESTION_TTL_SECONDS))

    def asks(ctx: Context) -> bool:
        if approvals_mode != "ask":
            return False
        caps = ctx.client_capabilities
        form = caps.elicitation if caps is not None else None
        return form is not None and (form.form is not None or form.url is None)

    async def settle(out: dict[str, Any], ctx: Context, note: str = "") -> CallToolResult | InputRequiredResult:
        """Ask the person about each pause while the client can ask; then the outcome for the model."""
        while out["status"] == "paused" and asks(ctx):
            pending = out["pending"][0]
            if ctx.protocol_version and is_version_at_least(ctx.protocol_version, _INPUT_REQUIRED_VERSION):
                params = ElicitRequestFormParams(message=approvals.question(pending), requested_schema=_SCHEMA)
                return InputRequiredResult(
                    input_requests={approvals.QUESTION_KEY: ElicitRequest(params=params)},
                    request_state=json.dumps({"execution_id": pending["execution_id"], "seq": pending["seq"]}))
            try:
                answer = await ctx.elicit(approvals.question(pending), approvals.ApprovalAnswer)
            except (ValueError, MCPError):  # no valid content, or the client could not ask: no decision
                note = _NO_ANSWER
                break
            content = answer.data.model_dump() if answer.action == "accept" else None
            choice = approvals.decision(answer.action, content)
            if choice is None:
                note = _DISMISSED
                break
            out = await decide(pending, choice)
        return result(out, note)

    async def decide(pending: dict[str, Any], choice: str) -> dict[str, Any]:
        new = await approvals.apply(runtime, pending, choice)
        return model_output(new) if new is not None else await follower.status(pending["execution_id"])

    async def answered(ctx: Context) -> CallToolResult | InputRequiredResult:
        """The client's second round: the person's answer to the question the first round returned."""
        try:
            asked = json.loads(ctx.request_state or "")
            eid, seq = str(asked["execution_id"]), int(asked["seq"])
        except (ValueError, KeyError, TypeError):
            return result({"status": "error", "error": "The approval round could not be read; send the code again."})
        if eid not in started:
            return result(follower.unknown(eid))
        answer = (ctx.input_responses or {}).get(approvals.QUESTION_KEY)
        choice = approvals.decision(answer.action, answer.content) if isinstance(answer, ElicitResult) else None
        if choice is None:
            return result(await follower.status(eid), _DISMISSED)
        pending = next((p.to_dict() for p in await runtime.pending(eid) if p.seq == seq), None)
        if pending is None:  # answered elsewhere meanwhile
            return await settle(await follower.status(eid), ctx)
        return await settle(await decide(pending, choice), ctx)

    @server.tool(name=tool.name, description=tool.description)
    async def codemode(code: Annotated[str, Field(description="Python source; the last expression is the result.")],
                       ctx: Context) -> CallToolResult | InputRequiredResult:
        if ctx.request_state is not None:
            return await answered(ctx)
        out = await tool.call(code)
        started.add(out["execution_id"])
        return await settle(out, ctx)

    @server.tool(name="codemode_status", description=STATUS_DESCRIPTION.format(max=MAX_WAIT_SECONDS),
                 annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False))
    async def codemode_status(
            execution_id: Annotated[str, Field(description="The execution_id a `codemode` call returned.")],
            wait_seconds: Annotated[float, Field(ge=0, le=MAX_WAIT_SECONDS, description=(
                "Wait up to this many seconds for the status to change (0: answer at once)."))] = 0.0,
    ) -> CallToolResult:
        return result(await follower.status(execution_id, wait_seconds))

    def result(out: dict[str, Any], note: str = "") -> CallToolResult:
        if details_hint is not None and isinstance(out.get("error"), str):
            out = {**out, "error": out["error"].replace(WHERE_TO_LOOK, details_hint)}
        if out["status"] == "paused":
            out = {**out, "next_step": note + follower.paused_step(out["execution_id"])}
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(out, ensure_ascii=False))],
                              structured_content=out, is_error=out["status"] in ERROR_STATUSES)

    return server


_SCHEMA = approvals.render_schema()
_DISMISSED = "The person dismissed the approval question without deciding. "
_NO_ANSWER = "The approval question got no usable answer. "


def model_output(out: dict[str, Any]) -> dict[str, Any]:
    """A runtime output as the model-facing tool gives it (plain JSON; pending arguments decoded)."""
    if "pending" in out:
        out = {**out, "pending": [{**p, "args": codec.decode(p["args"])} for p in out["pending"]]}
    plain: dict[str, Any] = codec.to_json(out, "the output")
    return plain


def availability_hints(runtime: CodemodeRuntime) -> dict[str, str]:
    """Hints marking the connectors known to be unusable without starting them, with a reason fit for a model.

    The tool description lists connector names only; without this an MCP connector whose command
    is not installed would be advertised as if it worked (issue 15: ``clock`` when ``mcp-server-time``
    cannot be found). Servers are not started here: :func:`serve_stdio` starts them in the background
    once serving, and each tools/list writes the description anew, marking a connector still starting
    or one whose start failed (review 16x, M15).
    """
    return unavailable_hints(runtime.connectors, ())


async def serve_stdio(runtime: CodemodeRuntime, **options: Any) -> None:
    """Serve ``runtime`` over stdio until the client disconnects, then close the runtime.

    Stdout carries the protocol only. ``MCPServer`` sets up logging to stderr with
    ``logging.basicConfig``, which does nothing once the root logger has a handler: the
    ``codemode`` command installs its escaping one first (see ``cli._log_to_terminal``), so a
    connector's log line (an MCP server's last stderr words) reaches a terminal inert.
    """
    async with runtime:
        hints = {**(options.pop("connector_hints", None) or {}), **availability_hints(runtime)}
        # The connectors start in the background, as a kernel's warm-up does: the handshake does not wait, and
        # the tool's description says which are still starting or failed (review 16x, M15).
        warm = asyncio.ensure_future(runtime.catalog())
        try:
            await build_mcp_server(runtime, connector_hints=hints, **options).run_stdio_async()
        finally:
            warm.cancel()
            with contextlib.suppress(BaseException):
                await warm
