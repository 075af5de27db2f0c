"""Snippets: saved programs that code re-runs by name with ``codemode.run(name, input)`` (issue 11).

The host, never the model, saves one from a finished execution (DESIGN §5). This module holds
the rules: the name's shape, the input schema's validity, which executions may be saved, and
how a ``codemode.run`` request from the sandbox is answered. The runtime stores and lists them.

A snippet's connectors are the ones its code names (review 14x H4): an execution records every
connector configured when it ran, and a snippet that calls ``notes`` only must run where ``clock``
is missing. A name is enough: a call needs it, and the code is the whole program (a nested
``codemode.run`` checks its own snippet's names).

A ``codemode.run`` the host cannot answer raises in the program, as every other wrong name does
(review 14x M7): an unknown snippet is a ``LookupError`` (with the nearest saved names), a missing
connector a ``ConnectorError``, an input that does not fit a ``ValueError`` naming the snippet and
``input``.
"""

from __future__ import annotations

import ast
import difflib
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


def check_unclaimed(name: str, catalog: Catalog) -> None:
    """Raise :class:`SnippetError` for a name a connector or a method has: search would list both under it and
    describe could show only one (a connector's name wins, and a snippet's beats a bare method name; review
    15x, L13)."""
    if name in catalog.methods or name in catalog.configured or name == "codemode":  # one down too (review 16 L1)
        raise SnippetError(f"{name!r} is the name of a connector; a snippet needs its own name, e.g. "
                           f"{name}_report or count_{name}")
    owners = sorted(c for c, methods in catalog.methods.items() if name in methods)
    if owners:
        raise SnippetError(f"{name!r} is the name of a method ({', '.join(f'{c}.{name}' for c in owners[:3])}); a "
                           f"snippet needs its own name, e.g. my_{name} or {name}_summary")


def from_execution(name: str, row: ExecutionRow, description: str, input_schema: Any) -> SnippetRow:
    """The snippet row for ``row``'s code; :class:`InvalidStateError` unless the execution finished well."""
    if row.status not in SAVABLE:
        raise InvalidStateError(row.id, row.status, "save as a snippet", list(SAVABLE))
    return SnippetRow(name, description or "", row.code,
                      json.dumps(input_schema) if input_schema is not None else None,
                      named_connectors(row.code, row.connectors), row.id, now_ms())


def to_model(s: SnippetRow) -> Snippet:
    return Snippet(name=s.name, description=s.description, code=s.code, saved_at=s.saved_at,
                   input_schema=json.loads(s.input_schema) if s.input_schema else None,
                   connectors=named_connectors(s.code, s.connectors), execution_id=s.execution_id)


def _names(code: str) -> set[str]:
    """The names ``code`` uses; every word of it when it does not parse (more, never fewer)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def named_connectors(code: str, connectors: list[str]) -> list[str]:
    """Those of ``connectors`` (the execution's) that ``code`` names, in their order.

    Rows saved before review 14x H4 hold every configured connector: reading them through this
    corrects them too.
    """
    names = _names(code)
    return [c for c in connectors if c in names]


def _reads_input_unguarded(code: str) -> bool:
    """Whether ``code`` reads into ``input`` (``input[...]``, ``input.x``) and never tests it first
    (``input is None``, ``if input``, ``input or ...``): a run without an input would fail inside."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False

    def is_input(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == "input"

    def looks_at_input(node: ast.AST) -> bool:
        """A test of ``input`` itself, or an assignment to it (the code gives itself one)."""
        if isinstance(node, ast.Compare):
            return any(map(is_input, [node.left, *node.comparators]))
        if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            return is_input(node.test)
        if isinstance(node, ast.BoolOp):
            return any(map(is_input, node.values))
        return is_input(node) and isinstance(getattr(node, "ctx", None), ast.Store)

    reads = False
    for node in ast.walk(tree):
        if looks_at_input(node):
            return False
        if isinstance(node, (ast.Subscript, ast.Attribute)) and is_input(node.value):
            reads = True
    return reads


def _raise(kind: str, message: str) -> dict[str, Any]:
    """A reply the sandbox raises in the program (``executor/sandbox.py`` ``value_or_raise``)."""
    return {"raise": {"type": kind, "message": message}}


def run_request(catalog: Catalog, j: RuntimeJournal, name: str, encoded_input: Any) -> dict[str, Any]:
    """The host's answer to ``codemode.run(name, input)``: the code to run, or an error the program raises."""
    shown = name if len(name) <= 200 else name[:200] + "…"
    if not codec.storable_name(name):  # the sandbox refuses these first; a program's text all the same
        return _raise("LookupError", codec.UNSTORABLE_SNIPPET_NAME)
    row = j.get_snippet(name)
    if row is None:
        names = [s.name for s in j.list_snippets()]
        near = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        hint = (f"did you mean {' or '.join(map(repr, near))}? " if near
                else f"saved snippets: {', '.join(names[:20]) + (' …' if len(names) > 20 else '')}. " if names
                else "no snippet is saved yet. ")
        return _raise("LookupError", f"no snippet named {shown!r}: {hint}"
                                     "Use codemode.search(...) to find one.")
    missing = [c for c in named_connectors(row.code, row.connectors) if c not in catalog.methods]
    if missing:
        return _raise("ConnectorError", f"snippet {shown!r} calls connector(s) {', '.join(missing)}, which "
                                        "this runtime does not have; it cannot run here")
    if row.input_schema:
        schema = json.loads(row.input_schema)
        # The input comes from the sandbox: the same strict, linear-time check as connector arguments.
        problem = (InputValidator(f"snippet {name!r}", schema).errors(codec.decode(encoded_input))
                   if isinstance(schema, Mapping) else None)
        if problem:
            # The sandbox raises "SearchOptionError" as ValueError: the program's own argument was wrong.
            return _raise("SearchOptionError", f"the input of snippet {shown!r} is invalid: {problem}")
    elif encoded_input is None and _reads_input_unguarded(row.code):
        return _raise("SearchOptionError", f"snippet {shown!r} reads `input`, and none was given: "
                                           f"pass it as codemode.run({shown!r}, {{...}})")
    return {"code": row.code, "input": encoded_input, "filename": f"<snippet {name}>"}
