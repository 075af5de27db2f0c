"""Names carried from cell to cell: what a completed cell assigned, given to the cells after it.

A pass runs in a fresh worker, so nothing survives between cells by itself. The runtime
returns the serializable top-level names a completed pass assigned (``capture_variables``)
and records the names a pass was given as that execution's inputs, so a replay sees the
same values. ``%vars`` lists the carried names and ``%reset`` forgets them.

A name the cell assigns but the runtime does not return (a function, a class, an import, a
set, a value over the stored-value limit) is not carried: the cell that assigned it says so
in one line, and a later cell's NameError for it says it was not carried and why (review 14x
H5). Which names a cell assigns is read from its code (top-level statements that surely run:
not the bodies of ``if``, loops, ``except`` or a ``try`` that has handlers, so a branch not
taken, or a statement an ``except`` skipped, is never reported); the reason comes from the code
too (``def``, ``class``, ``import``, a set or generator expression), else it is the general one.
An ``import`` of a module every cell has already (``import json``) loses nothing (review 15x M1).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from codemode_kernel import codec
from codemode_kernel.executor.language import MODULES
from codemode_kernel.runtime import input_name_problem


class CarriedVariables(MutableMapping[str, Any]):
    """The names later cells see, as plain values."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        #: Names the last carry() took over a value a later cell had set since the pass was given its own.
        self.replaced: list[str] = []
        #: Each carried name's characters as JSON (its value's, with its key), as a pass's inputs count them.
        self._sizes: dict[str, int] = {}
        #: Names an earlier cell assigned but could not carry, with why (for a later NameError).
        self.not_carried: dict[str, str] = {}
        #: Names a cell that did not complete assigns (it carried nothing): name -> (execution, status).
        self.uncompleted: dict[str, tuple[str, str]] = {}

    def given(self) -> dict[str, Any]:
        """A copy for the next pass: the names it starts with (and its recorded inputs)."""
        return dict(self._values)

    def carry(self, out: Mapping[str, Any], given: Mapping[str, Any], code: str = "") -> dict[str, str]:
        """Take the names a completed pass assigned (``out["variables"]``, codec-encoded); return the
        names ``code`` assigns that are not carried, each with why (the cell says them).

        Only names the cell *changed* are taken: a cell approved long after it paused must not
        put back the old values it was given while later cells have moved on.

        Every later pass is given all carried names as its inputs, and the runtime refuses inputs
        over ``codec.MAX_VALUE_CHARS`` in all: names that would take the total past it are not
        carried (first come first), and the cell says so (review 15, M6).
        """
        self.replaced = []
        variables = out.get("variables")
        if not isinstance(variables, dict):
            return {}
        missed = {name: why for name, why in assigned_names(code).items()
                  if name not in variables and not name.startswith("_")}
        for name in variables:
            self.not_carried.pop(name, None)
            self.uncompleted.pop(name, None)
        for name in missed:
            self.uncompleted.pop(name, None)
        self.not_carried.update(missed)
        for name in given:
            if name not in variables:
                self._values.pop(name, None)  # deleted by the cell, or no longer serializable
                self._sizes.pop(name, None)
        taken: dict[str, int] = {}
        for name, encoded in variables.items():
            if input_name_problem(name) is not None:  # not from a sandbox that works: never a later cell's input
                continue
            if name in given and codec.is_encodable(given[name]) and codec.encode(given[name]) == encoded:
                continue
            if name in self._values and _changed_since(self._values[name], given, name):
                self.replaced.append(name)  # a later cell set it while this one waited (review 16x, M14)
            self._values[name] = codec.decode(encoded)
            taken[name] = self._sizes[name] = _entry_size(name, codec.dumps_encoded(encoded))
        total = 1 + sum(self._size(name) for name in self._values if name not in taken)  # '{' and '}'
        for name, size in taken.items():
            if total + size <= codec.MAX_VALUE_CHARS:
                total += size
                continue
            del self._values[name], self._sizes[name]
            missed[name] = self.not_carried[name] = _REASONS["total"]
        return missed

    def _size(self, name: str) -> int:
        if name not in self._sizes:  # set by hand (a %%host cell): measured once
            self._sizes[name] = _entry_size(name, codec.dumps_encoded(codec.encode(self._values[name], name)))
        return self._sizes[name]

    def did_not_complete(self, execution_id: str, status: str, code: str) -> None:
        """A cell ended ``status`` (paused, error, rejected): it carries nothing, so a later NameError for a
        name it assigns says why (review 15x M15)."""
        for name in assigned_names(code):
            if name.startswith("_"):
                continue
            self.not_carried.pop(name, None)
            self.uncompleted.pop(name, None)
            self.uncompleted[name] = (execution_id, status)
        while len(self.uncompleted) > MAX_UNCOMPLETED:
            del self.uncompleted[next(iter(self.uncompleted))]

    def explain(self, ename: str, evalue: str) -> str:
        """A NameError's text, saying so when the name was assigned in an earlier cell but not carried."""
        match = _NAME_ERROR.match(evalue) if ename == "NameError" else None
        if match is None:
            return evalue
        name = match.group(1)
        if name in self.not_carried:
            return (f"name {name!r} is not defined: an earlier cell assigned it, but it was not carried over to "
                    f"later cells ({self.not_carried[name]})." + evalue[match.end():])
        if name in self.uncompleted:
            eid, status = self.uncompleted[name]
            return f"name {name!r} is not defined: {_UNCOMPLETED.get(status, _UNCOMPLETED['error']).format(eid=eid)}" \
                + evalue[match.end():]
        return evalue

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self._values[name] = value
        self._sizes.pop(name, None)

    def __delitem__(self, name: str) -> None:
        del self._values[name]
        self._sizes.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"CarriedVariables({self._values!r})"


#: How many names of cells that did not complete are remembered (the newest).
MAX_UNCOMPLETED = 1000
_UNCOMPLETED = {
    "paused": ("a cell that is paused for approval assigns it (execution {eid}), and names carry over only from "
               "cells that complete: once it is approved and completes (%approve {eid}), it is carried."),
    "rejected": ("a cell whose call was rejected assigns it (execution {eid}), so that cell did not complete, and "
                 "names carry over only from cells that complete: run it again (or assign it here)."),
    "error": ("a cell that failed assigns it (execution {eid}), and names carry over only from cells that "
              "complete: fix that cell and run it again (or assign it here)."),
}
_NAME_ERROR = re.compile(r"name '([A-Za-z_][A-Za-z0-9_]*)' is not defined\.?")
_REASONS = {
    "function": "a function: define it in the cell that uses it",
    "class": "a class: define it in the cell that uses it",
    "import": "an import: import it in the cell that uses it",
    "set": "a set: carry a list instead, e.g. sorted(...)",
    "generator": "a generator: carry a list instead, e.g. list(...)",
    "total": (f"with it, the names carried from cell to cell would be over {codec.MAX_VALUE_CHARS:,} characters "
              "as JSON in all, and every later cell is given them all; %reset NAME forgets a carried name you no "
              "longer need, %vars lists them"),
    "": (f"its value is not plain data (a set, a function, an object), or is too large to carry: over "
         f"{codec.MAX_VALUE_CHARS:,} characters as JSON, or past max_result_chars with the other names"),
}


def carried_reads(code: str, given: Mapping[str, Any]) -> list[str]:
    """The carried names (``given``) that ``code`` reads and never assigns itself, but ``input``: a snippet
    saved from it sees none of them (review 15x M16)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    read: set[str] = set()
    stored: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stored.add(node.name)
        elif isinstance(node, ast.alias):
            stored.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
    return sorted(n for n in read - stored if n in given and n != "input")


def snippet_reads_text(names: list[str]) -> str:
    """What a snippet save says of the carried names its code reads (empty when none)."""
    if not names:
        return ""
    listed = ", ".join(names)
    return (f"Its code reads {listed}, carried from earlier cells: a snippet sees only `input` (and the "
            f"connectors), so it fails where {'that name is' if len(names) == 1 else 'those names are'} not "
            f"carried (another notebook, a model, after %reset). Put the value in the code, or read it from "
            f"input (input[{names[0]!r}]), and save it again.")


def _entry_size(name: str, text: str) -> int:
    """Characters ``"name":text,`` takes in the inputs' JSON object."""
    return len(codec.dumps_encoded(name)) + 2 + len(text)


def not_carried_text(missed: Mapping[str, str]) -> str:
    """The one line a cell shows for the names it assigned but could not carry."""
    return "Not carried to later cells: " + "; ".join(f"{name} ({why})" for name, why in missed.items()) + "."


def assigned_names(code: str) -> dict[str, str]:
    """The top-level names ``code`` surely assigns, each with why it would not be carried if it is not.

    Only statements that surely ran when the cell completed are read (the cell's top level,
    ``with`` bodies, ``finally``, and the body of a ``try`` without ``except``: one with handlers
    may have skipped the rest of its body); a later ``del`` forgets a name. ``import json`` (a
    pre-imported module under its own name) is not a lost name: every cell has it."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, str] = {}
    _statements(tree.body, found)
    return {name: _REASONS[kind] for name, kind in found.items()}


def _statements(body: list[ast.stmt], found: dict[str, str]) -> None:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            found[stmt.name] = "function"
        elif isinstance(stmt, ast.ClassDef):
            found[stmt.name] = "class"
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                bound = alias.asname or alias.name.split(".")[0]
                if alias.name == "*":
                    continue
                if isinstance(stmt, ast.Import) and alias.name == bound and bound in MODULES:
                    found.pop(bound, None)  # the module every cell is given: the next cell has it too
                else:
                    found[bound] = "import"
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                _target(target, stmt.value, found)
        elif isinstance(stmt, ast.AnnAssign | ast.AugAssign) and stmt.value is not None:
            _target(stmt.target, stmt.value, found)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    found.pop(target.id, None)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            _statements(stmt.body, found)
        elif isinstance(stmt, ast.Try | ast.TryStar):
            if not stmt.handlers:  # an exception in the body ends the cell: it ran whole if it completed
                _statements(stmt.body, found)
            _statements(stmt.finalbody, found)


def _target(target: ast.expr, value: ast.expr | None, found: dict[str, str]) -> None:
    if isinstance(target, ast.Name):
        found[target.id] = _kind(value)
    elif isinstance(target, ast.Tuple | ast.List):
        for item in target.elts:
            _target(item.value if isinstance(item, ast.Starred) else item, None, found)


def _kind(value: ast.expr | None) -> str:
    if isinstance(value, ast.Lambda):
        return "function"
    if isinstance(value, ast.Set | ast.SetComp) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("set", "frozenset")):
        return "set"
    if isinstance(value, ast.GeneratorExp):
        return "generator"
    return ""


def _changed_since(current: Any, given: Mapping[str, Any], name: str) -> bool:
    """Whether ``current`` is not the value the pass was given as ``name`` (a later cell set it meanwhile)."""
    if name not in given:
        return True
    try:
        return bool(codec.encode(current) != codec.encode(given[name]))
    except codec.EncodeError:
        return current is not given[name]
