"""Snippets: saved programs that code re-runs by name with ``codemode.run(name, input)`` (issue 11).

The host, never the model, saves one from a finished execution (DESIGN §5). This module holds
the rules: the name's shape, the input schema's validity, which executions may be saved, and
how a ``codemode.run`` request from the sandbox is answered. The runtime stores and lists them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from codemode_kernel import codec
from codemode_kernel.catalog import Catalog
from codemode_kernel.errors import InvalidStateError, SnippetError
from codemode_kernel.journal import ExecutionRow, SnippetRow, now_ms
from codemode_kernel.models import Snippet
from codemode_kernel.runtime_journal import RuntimeJournal
from codemode_kernel.validation import InputValidator, schema_problem

NAME = re.compile(r"\A[A-Za-z][A-Za-z0-9_.-]{0,127}\Z")
#: The statuses of an execution whose code may be saved.
SAVABLE = ("completed", "rolled_back")


def check_new(name: Any, input_schema: Any) -> None:
    """Raise :class:`SnippetError` for a name of the wrong shape or an input schema that is not JSON Schema."""
    if not isinstance(name, str) or not NAME.match(name):
        raise SnippetError(f"invalid snippet name {name!r}: use letters, digits, '_', '-' or '.', "
                           "starting with a letter (at most 128 characters)")
    if input_schema is not None:
        problem = schema_problem(input_schema)
        if problem is not None:
            raise SnippetError(f"input_schema of snippet {name!r} is not a valid JSON Schema: {problem}")


def from_execution(name: str, row: ExecutionRow, description: str, input_schema: Any) -> SnippetRow:
    """The snippet row for ``row``'s code; :class:`InvalidStateError` unless the execution finished well."""
    if row.status not in SAVABLE:
        raise InvalidStateError(row.id, row.status, "save as a snippet", list(SAVABLE))
    return SnippetRow(name, description or "", row.code,
                      json.dumps(input_schema) if input_schema is not None else None,
                      list(row.connectors), row.id, now_ms())


def to_model(s: SnippetRow) -> Snippet:
    return Snippet(name=s.name, description=s.description, code=s.code, saved_at=s.saved_at,
                   input_schema=json.loads(s.input_schema) if s.input_schema else None,
                   connectors=list(s.connectors), execution_id=s.execution_id)


def run_request(catalog: Catalog, j: RuntimeJournal, name: str, encoded_input: Any) -> dict[str, Any]:
    """The host's answer to ``codemode.run(name, input)``: the code to run, or an ``error`` the code receives."""
    row = j.get_snippet(name)
    if row is None:
        names = [s.name for s in j.list_snippets()]
        shown = name if len(name) <= 200 else name[:200] + "…"
        return {"value": {"error": f"no snippet named {shown!r}; saved snippets: {names or 'none'}. "
                                   "Use codemode.search(...) to find one."}}
    missing = sorted(set(row.connectors) - set(catalog.methods))
    if missing:
        return {"value": {"error": f"snippet {name!r} needs connector(s) {missing}, which are not configured "
                                   "in this runtime"}}
    if row.input_schema:
        schema = json.loads(row.input_schema)
        # The input comes from the sandbox: the same strict, linear-time check as connector arguments.
        problem = (InputValidator(f"snippet {name!r}", schema).errors(codec.decode(encoded_input))
                   if isinstance(schema, Mapping) else None)
        if problem:
            return {"value": {"error": f"input of snippet {name!r} is invalid: {problem}"}}
    return {"code": row.code, "input": encoded_input, "filename": f"<snippet {name}>"}
