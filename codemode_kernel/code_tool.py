"""``create_code_tool``: a code tool without a journal, for simple agents (issue 15).

The seeds' ``createCodeTool``: the model sends a program, the tool runs it once in the
executor (isolated by default) with one global per connector and answers
``{"result": ..., "logs": [...]}``. Nothing is recorded, so nothing can pause: a method that
requires approval is refused (the pass ends with an ``ApprovalRequired`` error naming it)
and never runs. Use ``CodemodeRuntime(...).tool()`` when a person must approve calls.

The host side of a pass is :class:`_PlainPass`: the same JSON protocol as the durable
runtime's ``passes.PassHandler`` (so any executor serves both), answered without a journal.
Arguments are still checked against each method's input schema on the host before the
connector runs, and ``codemode.search`` / ``codemode.describe`` work over the connectors.

Each program is a whole execution for the connectors: ``on_pass_end`` and then
``dispose_execution`` run after it (status ``completed`` or ``error``), with the id their
calls' contexts carried, so execution-scoped resources (a browser session, a transaction)
are released.

Rejected: a ``CodemodeRuntime`` over a throw-away in-memory store (it journals every call,
could pause, and loads SQLAlchemy for a tool that promises no journal).
"""

from __future__ import annotations

import inspect
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from codemode_kernel import codec
from codemode_kernel.catalog import Catalog, CatalogResolver, check_connector_names
from codemode_kernel.connector_threads import ArgumentsRefused, check_schema, decoded_arguments, invoke
from codemode_kernel.connectors.base import Connector, ExecutionContext
from codemode_kernel.connectors.secrets import Redactor, every_secret
from codemode_kernel.connectors.toolset import ToolSetConnector
from codemode_kernel.connectors.unavailable import unavailable_hints, unavailable_note_for
from codemode_kernel.discovery.service import Discovery
from codemode_kernel.discovery.tool_text import DEFAULT_HEAD, connector_line
from codemode_kernel.discovery.tool_text import INPUT_SCHEMA as CODE_INPUT_SCHEMA
from codemode_kernel.errors import ConfigurationError, clip
from codemode_kernel.executor.base import Executor, SandboxError
from codemode_kernel.executor.language import LANGUAGE_RULES
from codemode_kernel.wording import sentence

log = logging.getLogger(__name__)

#: The shape of a completed call: the program's result and its printed lines.
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "result": {"description": "The value of the program's last expression (JSON)."},
        "logs": {"type": "array", "items": {"type": "string"}, "description": "What the program printed."},
        "error": {"type": "string", "description": "Why the program failed (present only then)."},
        "error_type": {"type": "string"},
    },
    "required": ["logs"],
}

APPROVAL_REFUSED = "ApprovalRequired"
#: Name of the connector that plain functions passed to ``create_code_tool`` are grouped in.
FUNCTIONS_CONNECTOR = "tools"


@dataclass(frozen=True)
class CodeTool:
    """A model-facing code tool that keeps no history.

    ``call(code)`` returns plain JSON: ``{"result": value, "logs": [...]}`` when the program
    completed, ``{"error": message, "error_type": name, "logs": [...]}`` when it failed (a
    sandbox error, a timeout, a method that needs approval). It never raises for the
    program's failures.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    call: Callable[[str], Awaitable[dict[str, Any]]]
    #: Stop the executor's workers and close the connectors (both start again lazily if called later).
    aclose: Callable[[], Awaitable[None]]

    async def __call__(self, code: str) -> dict[str, Any]:
        return await self.call(code)


def create_code_tool(
    tools: Iterable[Connector | Callable[..., Any]] = (),
    executor: Executor | None = None,
    description: str | None = None,
    *,
    name: str = "codemode",
    transform_result: Callable[[Any], Any] | None = None,
) -> CodeTool:
    """A code tool over ``tools`` (connectors; plain functions are grouped as the connector ``tools``).

    ``executor`` defaults to the isolated ``SubprocessExecutor`` (started on the first call).
    ``description`` replaces the first paragraph of the tool's description; the connector list
    and the language rules follow it. ``transform_result`` reshapes a completed result
    before the model sees it (e.g. ``functools.partial(truncate, max_chars=4000)``).
    """
    items = list(tools)
    functions = [t for t in items if not isinstance(t, Connector)]
    connectors = [t for t in items if isinstance(t, Connector)]
    for f in functions:
        if not callable(f):
            raise ConfigurationError(f"create_code_tool: {f!r} is neither a Connector nor a function; pass "
                                     "connectors (McpConnector, OpenApiConnector, ToolSetConnector, ...) or functions")
    if functions:
        connectors.append(ToolSetConnector(functions, name=FUNCTIONS_CONNECTOR))
    runner = CodeRunner(check_connector_names(connectors), executor, transform_result)
    return CodeTool(name, code_tool_description(runner.connectors, description), dict(CODE_INPUT_SCHEMA),
                    dict(OUTPUT_SCHEMA), runner.run, runner.aclose)


def code_tool_description(connectors: Mapping[str, Connector], description: str | None = None) -> str:
    """The description of a non-durable code tool: connector names (never methods), discovery, the language."""
    # A connector known unusable before it is started (its command is not installed) is marked, as
    # runtime.tool() marks it: a model is not offered a connector that cannot work (review 15, H2).
    hints = unavailable_hints(connectors, ())
    lines = [connector_line(cname, c, hints.get(cname)) for cname, c in sorted(connectors.items())]
    return "\n".join([
        description or DEFAULT_HEAD, "", "Connectors:", *(lines or ["- (none)"]), "",
        "Discover before you call: codemode.search('what you want') ranks methods; "
        "codemode.describe('conn.method') gives its Python signature.",
        "Each program runs once, from scratch: nothing is kept between calls, and methods that need a "
        "person's approval are refused here.",
        "Language: " + LANGUAGE_RULES,
    ])


class CodeRunner:
    """Runs programs for a code tool: one pass each, no journal (shared with :mod:`codemode_kernel.wrap_servers`)."""

    def __init__(self, connectors: dict[str, Connector], executor: Executor | None,
                 transform_result: Callable[[Any], Any] | None, inputs: Mapping[str, Any] | None = None) -> None:
        self.connectors = connectors
        # Globals predefined for every program (codec-encoded once), e.g. ``spec`` of openapi_mcp_server.
        self.inputs = {k: codec.encode(v, f"the global {k!r}") for k, v in (inputs or {}).items()}
        self._executor = executor
        self._transform = transform_result
        self._discovery = Discovery()
        self._catalogs = CatalogResolver(connectors, on_resolve=self._discovery.invalidate)

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            from codemode_kernel.executor.isolated import SubprocessExecutor

            self._executor = SubprocessExecutor()
        return self._executor

    async def catalog(self) -> Catalog:
        return await self._catalogs.get()

    async def aclose(self) -> None:
        await self._catalogs.aclose()
        if self._executor is not None:
            await self._executor.aclose()
        for c in self.connectors.values():
            try:
                await c.aclose()
            except Exception:
                log.debug("closing connector %s failed", c.name, exc_info=True)

    async def run(self, code: str) -> dict[str, Any]:
        if not isinstance(code, str):
            return _error("TypeError", "code must be a string of Python source")
        catalog = await self.catalog()
        run_id = uuid.uuid4().hex
        out = await self._run(code, catalog, _PlainPass(catalog, self._discovery, run_id))
        await self._ended(run_id, "error" if "error" in out else "completed")
        return out

    async def _run(self, code: str, catalog: Catalog, handler: _PlainPass) -> dict[str, Any]:
        try:
            result = await self.executor.execute(code, catalog.namespaces(), host=handler, inputs=self.inputs)
        except Exception as exc:  # an executor must answer with data; one that raised failed the pass
            log.warning("the executor raised during a code-tool pass", exc_info=True)
            return _error("ExecutorError", f"the executor failed ({type(exc).__name__}: {clip(str(exc))})")
        logs = list(result.logs)
        failure = handler.failure or result.error
        if failure is not None:
            message = failure.message
            if failure.type in ("NameError", "AttributeError") and (
                    note := unavailable_note_for(code, catalog.unavailable, self.connectors)):
                # Summaries only: the catalog's own text (command line, stderr) is the author's (review 15, H2).
                message = sentence(message) + " " + note
            return _error(failure.type, message, logs)
        try:
            value = codec.decode(result.result, "the result")
            if self._transform is not None:
                value = await _maybe_await(self._transform(value))
            plain = codec.to_json(value, "the result")
        except Exception as exc:  # an undecodable report, or a transform that failed: data, not a raise
            return _error("ResultError", f"the result could not be returned ({type(exc).__name__}: "
                                         f"{clip(str(exc))})", logs)
        return {"result": plain, "logs": logs}

    async def _ended(self, run_id: str, status: Literal["completed", "error"]) -> None:
        """Each program is a whole execution: the lifecycle hooks run after it, as for a durable one's end."""
        for c in self.connectors.values():
            for hook in (c.on_pass_end, c.dispose_execution):
                try:
                    await hook(run_id, status)
                except Exception:  # as in the runtime: a failing cleanup does not fail the program
                    log.debug("%s of %s failed", hook.__name__, c.name, exc_info=True)


class _PlainPass:
    """Answers one pass's requests from the sandbox with no journal (see ``executor/base.py``)."""

    def __init__(self, catalog: Catalog, discovery: Discovery, run_id: str) -> None:
        self.catalog = catalog
        self.discovery = discovery
        self.run_id = run_id
        self.seq = 0
        self.failure: SandboxError | None = None
        self._every: Redactor | None = None

    def fail(self, type_name: str, message: str) -> dict[str, Any]:
        if self.failure is None:
            self.failure = SandboxError(type_name, message)
        return {"abort": f"{self.failure.type}: {self.failure.message}"}

    async def __call__(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.failure is not None:
            return {"abort": f"{self.failure.type}: {self.failure.message}"}
        try:
            return await self._answer(message)
        except Exception as exc:
            log.warning("the code tool failed to answer a %r request", message.get("op"), exc_info=True)
            return self.fail("HostError", f"the host failed to answer the sandbox ({type(exc).__name__}: "
                                          f"{clip(str(exc))}); the program was stopped")

    async def _answer(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        if op == "call":
            return await self._call(str(message.get("connector")), str(message.get("method")), message.get("args"))
        if op == "step":  # nothing is replayed: a step simply runs
            return {"run": True}
        if op == "step_done":
            return {"value": None if "raise" in message else message.get("value")}
        if op == "search":
            options = {k: message[k] for k in ("limit", "connector") if message.get(k) is not None}
            try:
                found = self.discovery.search(self.catalog, [], str(message.get("query", "")), **options)
            except ValueError as exc:
                return {"raise": {"type": "SearchOptionError", "message": str(exc)}}
            return {"value": codec.encode(found.to_dict())}
        if op == "describe":
            options = {k: message[k] for k in ("page", "full") if message.get(k) is not None}
            described = self.discovery.describe(self.catalog, str(message.get("target", "")),
                                                snippet=lambda _name: None, snippets=lambda: [], **options)
            if described.kind == "not_found":
                return {"raise": {"type": "LookupError", "message": (
                    f"nothing named {clip(str(message.get('target', '')), 200)!r}; use codemode.search(...)")}}
            return {"value": codec.encode(described.to_dict())}
        if op == "snippet":
            return {"value": {"error": "saved snippets need a durable runtime (CodemodeRuntime); this code tool "
                                       "keeps none"}}
        if op == "fail":
            return self.fail(str(message.get("type", "Error")), str(message.get("message", "")))
        return self.fail("ProtocolError", f"unknown request {clip(str(op), 20)!r} from the sandbox")

    async def _call(self, connector: str, method_name: str, encoded_args: Any) -> dict[str, Any]:
        method = self.catalog.get(connector, method_name)
        if method is None:
            return {"raise": {"type": "AttributeError", "message": self.catalog.missing(connector, method_name)}}
        try:
            args = decoded_arguments(method, encoded_args, self.fail)
            check_schema(method, args, self.fail)
        except ArgumentsRefused as refused:
            return refused.reply
        if method.tool.requires_approval:
            # Ends the pass (the code cannot catch it and carry on as if the action had happened).
            return self.fail(APPROVAL_REFUSED, (
                f"{method.path} needs a person's approval, which this code tool cannot ask for (it keeps no "
                "journal to resume from); the method was not called. Do without it, or ask the user to run "
                "this program where approvals work (a CodemodeRuntime tool, the codemode kernel)."))
        seq = self.seq
        self.seq += 1
        ctx = ExecutionContext(self.run_id, seq, method.connector, method.name)
        try:
            result = await invoke(method.tool.execute, args, ctx)
        except Exception as exc:
            return {"raise": {"type": type(exc).__name__, "message": self._secrets().text(str(exc))}}
        try:
            encoded = codec.encode(result, f"the result of {method.path}")
        except codec.EncodeError as exc:
            return self.fail("CodecError", str(exc))
        if scrub := self._secrets():  # the encoded form: plain data, no cycle, every text in reach
            encoded = scrub.value(encoded)
        return {"value": encoded}

    def _secrets(self) -> Redactor:
        """Every configured connector's secrets, read at the pass's first call: a connector's answer is
        redacted of the others' too, as in a journaled pass (review 15 H7, review 16 C2)."""
        if self._every is None:
            self._every = every_secret(self.catalog.configured.values())
        return self._every


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _error(error_type: str, message: str, logs: list[str] | None = None) -> dict[str, Any]:
    return {"error": message, "error_type": error_type, "logs": list(logs or [])}


