"""The runtime's records, as frozen dataclasses (the seed's types in snake_case).

Times are milliseconds since the Unix epoch, as in the seeds (``createdAt: number``).
Every record has ``to_dict()`` giving plain JSON-ready data (values decoded by the codec
are re-encoded, so bytes/tuples/datetimes stay tagged).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

ExecutionStatus = Literal["running", "paused", "completed", "error", "rejected", "rolled_back"]
EntryState = Literal["executing", "applied", "pending", "reverted", "error"]

TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "error", "rejected", "rolled_back"})
STEP_CONNECTOR = "codemode.step"


@dataclass(frozen=True)
class ToolLogEntry:
    """One journaled connector call or step.

    ``ephemeral`` is true for ``replay="reexecute"`` methods (result not stored).
    ``pass_number`` is the pass (1, 2, …) that executed the call; ``error`` holds the
    recorded error of a failed call or step ("Type: message").
    """

    seq: int
    connector: str
    method: str
    args: Any
    result: Any = None
    requires_approval: bool = False
    ephemeral: bool = False
    state: EntryState = "applied"
    error: str | None = None
    pass_number: int = 1
    created_at: int = 0
    updated_at: int = 0

    @property
    def path(self) -> str:
        return f"{self.connector}.{self.method}"

    def to_dict(self) -> dict[str, Any]:
        return _encoded(asdict(self))


@dataclass(frozen=True)
class ExecutionState:
    """One durable execution and its journal."""

    id: str
    code: str
    status: ExecutionStatus
    log: list[ToolLogEntry] = field(default_factory=list)
    result: Any = None
    error: str | None = None
    error_type: str | None = None
    logs: list[str] = field(default_factory=list)
    connectors: list[str] = field(default_factory=list)
    created_at: int = 0
    updated_at: int = 0
    passes: int = 0
    runtime: str = "default"
    #: Started through the model-facing ``codemode`` tool (``runtime.tool()``, ``codemode mcp``): a
    #: person's ``approve last`` never names it; they name it by its id after reading its call.
    via_tool: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["log"] = [e.to_dict() for e in self.log]
        return _encoded(data)


@dataclass(frozen=True)
class PendingAction:
    """A call waiting for approval."""

    execution_id: str
    seq: int
    connector: str
    method: str
    args: Any

    def to_dict(self) -> dict[str, Any]:
        return _encoded(asdict(self))


@dataclass(frozen=True)
class Snippet:
    """Saved source of a completed execution, re-runnable with ``codemode.run(name, input)``."""

    name: str
    description: str
    code: str
    saved_at: int
    input_schema: Any = None
    connectors: list[str] = field(default_factory=list)
    execution_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _encoded(asdict(self))


@dataclass(frozen=True)
class SearchResult:
    """One ranked method or snippet: enough to decide (and often to call) without a describe.

    ``description`` is the one-line summary (``describe(path)`` has the whole text);
    ``required`` names the arguments a call must pass (for a snippet, the keys of its input).
    """

    path: str
    connector: str
    method: str
    description: str
    requires_approval: bool
    kind: Literal["method", "snippet"]
    score: float
    required: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchOutput:
    """The best ``results`` (at most the ``limit`` asked), how many matched in all, and whether more exist."""

    results: list[SearchResult]
    total: int
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {"results": [r.to_dict() for r in self.results], "total": self.total, "truncated": self.truncated}


@dataclass(frozen=True)
class DescribeOutput:
    """Python declarations for one connector, method or snippet, or why there is none.

    ``kind="not_found"`` answers an unknown target as data: ``error`` says so and
    ``suggestions`` lists the nearest paths. A connector's listing is paged (``page`` of
    ``pages``); ``truncated`` is true when the declarations were shortened to fit the cap
    (the text says what was left out and how to see it). Fields that do not apply are left
    out of :meth:`to_dict`.
    """

    path: str
    description: str
    requires_approval: bool
    types: str
    kind: Literal["connector", "method", "snippet", "not_found"]
    suggestions: list[str] = field(default_factory=list)
    error: str | None = None
    page: int | None = None
    pages: int | None = None
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("suggestions", "error", "page", "pages", "truncated"):
            if not data[key]:
                del data[key]
        return data


def _encoded(data: dict[str, Any]) -> dict[str, Any]:
    from codemode_kernel import codec

    return {k: (codec.encode(v, k) if codec.is_encodable(v) else repr(v)) for k, v in data.items()}
