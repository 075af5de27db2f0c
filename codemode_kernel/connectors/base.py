"""The connector contract: what a connector exposes to the sandbox, and how.

A connector is a host-side object with a ``name`` (the global the sandbox sees), optional
``instructions``, and ``tools()``: a mapping of method name to :class:`Tool`. Connectors
provide capabilities only; the runtime decides replay, execution and approval. They never
hand credentials or client objects to the sandbox: only JSON-like values cross.
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

ReplayPolicy = Literal["log", "reexecute"]

PassEndStatus = Literal["completed", "error", "rejected", "rolled_back", "paused"]
ExecutionEndStatus = Literal["completed", "error", "rejected", "rolled_back"]


@dataclass(frozen=True)
class ExecutionContext:
    """What ``execute`` and ``revert`` learn about the call they serve.

    ``execution_id`` is stable across passes; ``execution_id:seq`` (``idempotency_key``)
    identifies one journaled call and is the key to use for side effects. A revert of that call
    (``revert`` True; ``method`` is still the reverted call's) has a key of its own,
    ``execution_id:seq:revert``: with the call's key, a connector or a service that deduplicates by
    it took the revert for the call again and did nothing (review 13).
    """

    execution_id: str
    seq: int
    connector: str
    method: str
    revert: bool = False

    @property
    def idempotency_key(self) -> str:
        return f"{self.execution_id}:{self.seq}:revert" if self.revert else f"{self.execution_id}:{self.seq}"


ExecuteFn = Callable[[dict[str, Any], ExecutionContext], Any]
RevertFn = Callable[[dict[str, Any], Any, ExecutionContext], Any]


@dataclass(frozen=True)
class Tool:
    """One method of a connector.

    ``execute(args, ctx)`` and ``revert(args, result, ctx)`` may be plain functions or
    coroutine functions. ``replay="reexecute"`` methods are journaled (sequence, arguments,
    divergence check) but their results are not stored: later passes call them again.
    ``reads_only``: the method changes nothing (an MCP tool annotated read-only whose author trusts the
    annotations): a call of it cut off by its pass's end is not an unknown outcome to undo.
    """

    execute: ExecuteFn
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    output_schema: Mapping[str, Any] | None = None
    requires_approval: bool = False
    replay: ReplayPolicy = "log"
    revert: RevertFn | None = None
    reads_only: bool = False

    def with_approval(self, requires_approval: bool = True) -> Tool:
        """A copy of this tool with approval switched on (or off)."""
        return replace(self, requires_approval=requires_approval)

    def with_revert(self, revert: RevertFn | None) -> Tool:
        """A copy of this tool with a compensation function."""
        return replace(self, revert=revert)


def tool(
    fn: Callable[..., Any],
    *,
    description: str | None = None,
    input_schema: Mapping[str, Any] | None = None,
    output_schema: Mapping[str, Any] | None = None,
    requires_approval: bool = False,
    replay: ReplayPolicy = "log",
    revert: RevertFn | None = None,
) -> Tool:
    """Make a :class:`Tool` from a function that takes the arguments as keywords.

    The input schema defaults to one derived from ``fn``'s type hints and docstring;
    the description defaults to the docstring's first paragraph. If ``fn`` has a
    parameter named ``ctx`` it receives the :class:`ExecutionContext`.
    """
    from codemode_kernel.connectors.signature import docstring_summary, schema_from_signature

    wants_ctx = "ctx" in inspect.signature(fn).parameters
    is_async = inspect.iscoroutinefunction(fn)

    if is_async:

        async def execute_async(args: dict[str, Any], ctx: ExecutionContext) -> Any:
            return await (fn(**args, ctx=ctx) if wants_ctx else fn(**args))

        execute: ExecuteFn = execute_async
    else:

        def execute_sync(args: dict[str, Any], ctx: ExecutionContext) -> Any:
            return fn(**args, ctx=ctx) if wants_ctx else fn(**args)

        execute = execute_sync

    return Tool(
        execute=execute,
        description=description if description is not None else docstring_summary(fn),
        input_schema=input_schema if input_schema is not None else schema_from_signature(fn),
        output_schema=output_schema,
        requires_approval=requires_approval,
        replay=replay,
        revert=revert,
    )


class Connector:
    """Base class of connectors.

    Subclasses set ``name`` (and optionally ``instructions``) and implement ``tools()``,
    which may be a coroutine function (e.g. to list an MCP server's tools). ``tool(name,
    t)`` is called for every tool and may return a decorated copy (add approval or a
    revert to tools the connector did not author). The lifecycle hooks run after every
    pass and after every terminal transition; they must be idempotent and must not rely
    on instance memory (another process may have started the execution).
    """

    name: str = ""
    instructions: str | None = None
    #: What this connector acts on (a server's URL, a command line, a database's path), in words that
    #: stay the same across processes and restarts: two connectors with one target act on one backend.
    #: An execution records a hash of it per connector; rollback and approve refuse when the connector
    #: configured under that name now has another (:mod:`codemode_kernel.targets`). None: not known, so
    #: only this very object (in this process) counts as acting on the same backend.
    target: str | None = None
    #: Why ``tools()`` last failed, in words safe to show a model: no command line, path, server
    #: output or secret (the full reason goes to the notebook's author). None: not known.
    failure_summary: str | None = None

    def secrets(self) -> Collection[str]:
        """The secret values this connector was configured with (tokens, passwords, ``${VAR}`` values).

        Everything the connector hands to the runtime is redacted of these (see
        :mod:`codemode_kernel.connectors.secrets`); read at every call, so a rotated
        credential is covered.
        """
        return ()

    def tools(self) -> Mapping[str, Tool] | Awaitable[Mapping[str, Tool]]:
        raise NotImplementedError(f"{type(self).__name__}.tools() must return a mapping of method name to Tool")

    def tool(self, name: str, t: Tool) -> Tool:
        return t

    async def on_pass_end(self, execution_id: str, status: PassEndStatus) -> None:
        """Called after every pass of an execution (and after reject and rollback)."""

    async def dispose_execution(self, execution_id: str, status: ExecutionEndStatus) -> None:
        """Called after every terminal transition of an execution; never after a pause."""

    async def aclose(self) -> None:
        """Release connections and processes; called when the runtime closes."""


_NON_IDENT = re.compile(r"[^0-9a-zA-Z_]+")
#: Frame, code, generator and traceback attributes the sandbox's compiler refuses after a dot
#: (RestrictedPython's ``INSPECT_ATTRIBUTES``, copied: the library's home is the executor's language
#: module; tests/executor/test_lead11_inspect_names.py checks the copy against it).
_INSPECT_ATTRIBUTES = frozenset({
    "ag_await", "ag_code", "ag_frame", "co_code", "cr_await", "cr_code", "cr_frame", "cr_origin", "f_back",
    "f_builtins", "f_code", "f_generator", "f_globals", "f_locals", "f_trace", "gi_code", "gi_frame",
    "gi_yieldfrom", "tb_frame", "tb_next"})
#: Names the sandbox's compiler refuses as a method (``conn.f_back(...)``) or uses itself.
_REFUSED_NAMES = frozenset({"print", "printed", *_INSPECT_ATTRIBUTES})


def sanitize_identifier(name: str) -> str:
    """Turn a tool or connector name into a Python identifier the sandbox accepts.

    Runs of other characters become ``_``; leading underscores are dropped (the sandbox
    refuses names starting with ``_``); a leading digit gets a ``t_`` prefix; keywords, and the
    frame and code attribute names the sandbox refuses after a dot (``f_back``, ``gi_code``, …:
    RestrictedPython's ``INSPECT_ATTRIBUTES``), get a trailing ``_``, so every tool stays callable.
    ``"list-pull-requests"`` → ``list_pull_requests``.
    """
    ident = _NON_IDENT.sub("_", name).strip("_")
    ident = re.sub(r"_+", "_", ident)
    if not ident:
        ident = "tool"
    if ident[0].isdigit():
        ident = "t_" + ident
    if keyword.iskeyword(ident) or keyword.issoftkeyword(ident) or ident in _REFUSED_NAMES:
        ident += "_"
    return ident
