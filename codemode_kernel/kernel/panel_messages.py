"""The messages of the Code Mode panel comm, kernel side (issue 6).

The JupyterLab panel and the kernel talk over one comm target, :data:`TARGET_NAME`. This
module is the kernel's half of the protocol; ``labextension/src/messages.ts`` is the
browser's half, and ``tests/panel/test_messages_sync.py`` keeps the two in step (the
constants below are compared with the TypeScript ones, name by name).

Panel → kernel, one *request* per message::

    {"type": <a key of REQUESTS>, "request_id": "<str>", <parameters of that type>}

Kernel → panel::

    {"type": "hello", "protocol", "runtime", "connectors"}        once, when the comm opens
    {"type": "reply", "request_id", "request", "data"}             a request succeeded
    {"type": "error", "request_id", "request", "error", "error_type"}   it did not
    {"type": "event", "event", "execution_id"}                     something changed: refresh

Every value shown in the panel (call arguments, results) travels *abbreviated* as a
:class:`dict` with ``summary`` (one line), ``text`` (pretty JSON, cut at
:data:`PREVIEW_CHARS`), ``chars`` (size of the whole text) and ``truncated``; the panel
asks for the whole text with a ``get_value`` request when the user wants it. This keeps a
megabyte-sized result from being pushed to every open panel on every refresh.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, get_args

from codemode_kernel.bytes_text import json_with_bytes
from codemode_kernel.errors import PanelRequestError
from codemode_kernel.models import (
    STEP_CONNECTOR,
    EntryState,
    ExecutionState,
    ExecutionStatus,
    PendingAction,
    Snippet,
    ToolLogEntry,
)
from codemode_kernel.terminal import terminal_json, terminal_text

TARGET_NAME: Final = "codemode.panel"
# 2 (s12a): approve and reject must name the call ("seq"). A page of protocol 1 may send them
# without one; it is told to install matching versions and reload instead.
PROTOCOL_VERSION: Final = 2

# Parameter kinds: "str" / "int" are required; a trailing "?" makes the parameter optional
# (absent or null). The TypeScript file declares the same table (REQUEST_PARAMS).
# approve / reject: "seq" is the call the panel's row shows; the kernel decides only while that
# call is the pending one (checked atomically by the runtime), so a stale click decides nothing.
# It is required: a request without it (a page from before call numbers, any client on the comm)
# would decide a call its user never saw, so it is refused and decides nothing (s12a).
REQUESTS: Final[Mapping[str, Mapping[str, str]]] = {
    "snapshot": {"limit": "int?"},
    "get_execution": {"execution_id": "str"},
    "get_value": {"execution_id": "str", "seq": "int?", "field": "str"},
    "approve": {"execution_id": "str", "seq": "int"},
    "reject": {"execution_id": "str", "seq": "int"},
    "rollback": {"execution_id": "str"},
    "delete_execution": {"execution_id": "str"},
    "save_snippet": {"execution_id": "str", "name": "str", "description": "str?"},
    "delete_snippet": {"name": "str"},
    "list_connectors": {},
    "search": {"query": "str"},
    "describe": {"target": "str"},
}

KERNEL_MESSAGES: Final = ("hello", "reply", "error", "event")

# Event names the kernel sends with notify(). Any other name is forwarded too and makes
# the panel refresh everything; these are the ones it knows to be specific about.
EVENTS: Final = (
    "execution_started",
    "execution_changed",
    "execution_deleted",
    "snippets_changed",
    "connectors_changed",
    "kernel_ready",
)

VALUE_FIELDS: Final = ("args", "result", "code", "logs")
EXECUTION_STATUSES: Final = get_args(ExecutionStatus)  # one source: the runtime's records
ENTRY_STATES: Final = get_args(EntryState)

PREVIEW_CHARS: Final = 2_000
SUMMARY_CHARS: Final = 120
# get_value answers with at most this much text: the replay limit is 1,000,000 characters
# after serialization, and pretty printing adds indentation on top.
FULL_VALUE_CHARS: Final = 2_000_000
MAX_STRING_PARAM: Final = 10_000
# The largest integer a browser sends exactly (Number.MAX_SAFE_INTEGER); a larger one is no call
# number or count, and SQLite could not bind it (an OverflowError, and a card left locked).
MAX_INT_PARAM: Final = 2**53 - 1
MAX_REQUEST_ID: Final = 200
DEFAULT_EXECUTIONS: Final = 50

_ELLIPSIS = "…"
_DECISIONS: Final = {"approve": "approved", "reject": "rejected"}
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Request:
    """A validated request from the panel."""

    type: str
    request_id: str
    params: dict[str, Any]


def request_id_of(data: object) -> str | None:
    """The request id of a message if it has a usable one, so even a bad request gets an answer."""
    if isinstance(data, Mapping):
        rid = data.get("request_id")
        if isinstance(rid, str) and 0 < len(rid) <= MAX_REQUEST_ID:
            return rid
    return None


def parse_request(data: object) -> Request:
    """Check a message from the panel against :data:`REQUESTS`; raise :class:`PanelRequestError`."""
    if not isinstance(data, Mapping):
        raise PanelRequestError(f"A panel request must be a JSON object, not {type(data).__name__}.")
    rtype = data.get("type")
    if not isinstance(rtype, str) or rtype not in REQUESTS:
        raise PanelRequestError(
            f"Unknown panel request type {rtype!r}; the kernel understands {', '.join(sorted(REQUESTS))}. "
            "Reload the page if the extension and the kernel come from different versions."
        )
    rid = request_id_of(data)
    if rid is None:
        raise PanelRequestError(
            f"A {rtype!r} request needs a 'request_id' string of 1 to {MAX_REQUEST_ID} characters."
        )
    spec = REQUESTS[rtype]
    extra = sorted(set(data) - set(spec) - {"type", "request_id"})
    if extra:
        raise PanelRequestError(
            f"A {rtype!r} request does not take {', '.join(map(repr, extra))}; "
            f"its parameters are {', '.join(spec) or 'none'}."
        )
    params: dict[str, Any] = {}
    for name, kind in spec.items():
        params[name] = _param(rtype, name, kind, data.get(name))
    return Request(rtype, rid, params)


def _param(rtype: str, name: str, kind: str, value: object) -> Any:
    optional = kind.endswith("?")
    base = kind.rstrip("?")
    if value is None:
        if optional:
            return None
        if name == "seq" and rtype in _DECISIONS:
            raise PanelRequestError(
                f"An {rtype!r} request must name the call it decides: 'seq', the call number of the pending "
                f"action the panel shows. Nothing was {_DECISIONS[rtype]}. Reload the page if the extension "
                "and the kernel come from different versions.")
        raise PanelRequestError(f"A {rtype!r} request needs {name!r} ({base}).")
    if base == "int":
        # bool is an int subclass in Python but not an integer in the protocol.
        if type(value) is not int or value < 0:
            raise PanelRequestError(f"{rtype!r}: {name!r} must be a non-negative integer, not {value!r}.")
        if value > MAX_INT_PARAM:
            raise PanelRequestError(f"{rtype!r}: {name!r} must be at most {MAX_INT_PARAM:,}.")
        return value
    if type(value) is not str:
        raise PanelRequestError(f"{rtype!r}: {name!r} must be a string, not {type(value).__name__}.")
    if len(value) > MAX_STRING_PARAM:
        raise PanelRequestError(f"{rtype!r}: {name!r} is longer than {MAX_STRING_PARAM:,} characters.")
    return value


def hello(runtime: str, connectors: list[str]) -> dict[str, Any]:
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "runtime": runtime, "connectors": connectors}


def reply(request: Request, data: Any) -> dict[str, Any]:
    return {"type": "reply", "request_id": request.request_id, "request": request.type, "data": data}


def error(request_id: str | None, request_type: str | None, message: str, error_type: str) -> dict[str, Any]:
    return {
        "type": "error",
        "request_id": request_id,
        "request": request_type,
        "error": message,
        "error_type": error_type,
    }


def event(name: str, execution_id: str | None) -> dict[str, Any]:
    return {"type": "event", "event": name, "execution_id": execution_id}


def value_text(encoded: Any) -> str:
    """Pretty text of a codec-encoded value (strings are shown as they are, not quoted)."""
    # Characters a person cannot see, or that reorder what follows (bidi overrides), are shown as
    # escapes: the panel is where a person reads a call's arguments before deciding (review 12).
    if isinstance(encoded, str):
        return _runs_counted(terminal_text(encoded))
    try:
        json.dumps(encoded, allow_nan=False)  # strict JSON, or the repr below
    except (TypeError, ValueError):
        return _runs_counted(terminal_text(repr(encoded)))
    # Bytes as b'...' (N bytes), not the codec's base64 tag (bytes_text).
    return _runs_counted(json_with_bytes(encoded, lambda v: terminal_json(v, indent=2), tagged=True))


#: Eight or more of one escaped character in a row (terminal_text's escapes).
_RUN = re.compile(r"(\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}))\1{7,}")


def _runs_counted(text: str) -> str:
    """Runs of one invisible character written once with their length (``[\\u200b x 990,000]``): padding that
    grew six-fold as escapes pushed the rest of an argument past what "Show all" sends, and a person cannot
    count escapes anyway (review 16, M3)."""
    return _RUN.sub(lambda m: f"[{m.group(1)} x {len(m.group(0)) // len(m.group(1)):,}]", text)


def abbreviate(encoded: Any, limit: int = PREVIEW_CHARS) -> dict[str, Any]:
    """The abbreviated form of a value: one-line summary, text cut at ``limit``, full size."""
    text = value_text(encoded)
    truncated = len(text) > limit
    one_line = _SPACE.sub(" ", text if not truncated else text[: SUMMARY_CHARS * 4]).strip()
    summary = one_line if len(one_line) <= SUMMARY_CHARS else one_line[: SUMMARY_CHARS - 1] + _ELLIPSIS
    return {
        "summary": summary,
        "text": text[:limit] + _ELLIPSIS if truncated else text,
        "chars": len(text),
        "truncated": truncated,
    }


def first_line(code: str) -> str:
    """The first non-blank line of code, for the execution list (what reorders or hides text escaped)."""
    for line in code.splitlines():
        if line.strip():
            line = terminal_text(line, multiline=False)
            return line.rstrip() if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + _ELLIPSIS
    return ""


def shown_data(value: Any) -> Any:
    """``value`` (a catalog answer: plain JSON data) with every string through :func:`terminal_text`: a server's
    descriptions may hide instructions a model reads and a person cannot see (tag characters, zero-width
    characters, a right-to-left override; review 16, M4)."""
    if isinstance(value, str):
        return terminal_text(value)
    if isinstance(value, dict):
        return {k: shown_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shown_data(v) for v in value]
    return value


def _shown(text: str | None) -> str | None:
    """A program's (or a service's) text as the panel shows it: the characters that reorder the text
    after them or that a person cannot see, as visible escapes (review 15, M8: "Trojan Source")."""
    return None if text is None else terminal_text(text)


# -- runtime records → panel messages ---------------------------------------------------------
# The records' to_dict() gives codec-encoded values (bytes, tuples and datetimes stay tagged);
# the panel shows those as JSON, which is what the journal holds.

MAX_LOG_LINES: Final = 200


def execution_summary(state: ExecutionState, revertible: Sequence[ToolLogEntry]) -> dict[str, Any]:
    """One row of the execution list; ``revertible``: what a rollback would revert (``revertible_calls``)."""
    calls = [e for e in state.log if e.connector != STEP_CONNECTOR]
    return {
        "id": state.id,
        "status": state.status,
        "first_line": first_line(state.code),
        "created_at": state.created_at,
        "updated_at": state.updated_at,
        "passes": state.passes,
        "calls": len(calls),
        "pending": sum(1 for e in state.log if e.state == "pending"),
        "revertible": len(revertible),
        "can_rollback": bool(revertible),
        "error": _shown(state.error),
        "error_type": _shown(state.error_type),
        "connectors": list(state.connectors),
        # A model's program (through the codemode tool, `codemode mcp`): the panel says so, since its
        # pending call looks like a cell's own (review 15, noticed).
        "via_tool": state.via_tool,
    }


def execution_detail(state: ExecutionState, revertible: Sequence[ToolLogEntry]) -> dict[str, Any]:
    """An execution with its code, outcome and journal (values abbreviated)."""
    data = state.to_dict()
    logs = list(state.logs)
    return {
        **execution_summary(state, revertible),
        "code": terminal_text(state.code),
        "result": abbreviate(data["result"]) if state.status in ("completed", "rolled_back") else None,
        "logs": [terminal_text(line) for line in logs[-MAX_LOG_LINES:]],
        "logs_omitted": max(0, len(logs) - MAX_LOG_LINES),
        "entries": [journal_entry(e) for e in state.log],
    }


def journal_entry(entry: ToolLogEntry) -> dict[str, Any]:
    """One step of the journal timeline."""
    data = entry.to_dict()
    has_result = entry.state in ("applied", "reverted") and not entry.ephemeral
    return {
        "seq": entry.seq,
        "connector": entry.connector,
        "method": entry.method,
        "path": entry.path,
        "step": entry.connector == STEP_CONNECTOR,
        "args": abbreviate(data["args"]),
        "result": abbreviate(data["result"]) if has_result else None,
        "state": entry.state,
        "error": _shown(entry.error),
        "pass_number": entry.pass_number,
        "requires_approval": entry.requires_approval,
        "ephemeral": entry.ephemeral,
        "created_at": entry.created_at,
        "updated_at": entry.updated_at,
    }


def pending_action(action: PendingAction) -> dict[str, Any]:
    return {
        "execution_id": action.execution_id,
        "seq": action.seq,
        "connector": action.connector,
        "method": action.method,
        "path": f"{action.connector}.{action.method}",
        "args": abbreviate(action.to_dict()["args"]),
    }


def snippet_info(snippet: Snippet) -> dict[str, Any]:
    data = snippet.to_dict()
    return {
        "name": snippet.name,
        "description": snippet.description,
        "connectors": list(snippet.connectors),
        "code": abbreviate(snippet.code),
        "saved_at": snippet.saved_at,
        "execution_id": snippet.execution_id,
        "input_schema": abbreviate(data["input_schema"]) if snippet.input_schema is not None else None,
    }
