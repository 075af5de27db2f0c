"""JSON Schema → Python declarations, the public face of the stub generator (issue 15).

The seeds' ``generateTypesFromJsonSchema`` and ``jsonSchemaToType`` write TypeScript; here
they write Python, with the generator ``codemode.describe`` uses
(:mod:`codemode_kernel.discovery.stubs`): TypedDicts, keyword signatures and docstrings.
The text is always valid Python (``compile`` accepts it), whatever the schema holds;
anything the generator does not understand becomes ``Any``.

A tool descriptor is a mapping (``description``, ``input_schema`` or ``inputSchema``,
optionally ``output_schema``/``outputSchema`` and ``requires_approval``) or an object with
those attributes: a :class:`~codemode_kernel.connectors.base.Tool`, an MCP SDK tool.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Mapping
from typing import Any

from codemode_kernel.discovery.stub_text import pascal
from codemode_kernel.discovery.stubs import method_stub, type_declarations

_FUTURE = "from __future__ import annotations"
_TYPING = "from typing import "


def json_schema_to_type(schema: Any, type_name: str) -> str:
    """Python declarations naming ``schema`` as ``type_name`` (a TypedDict for an object, else an alias)."""
    if not isinstance(type_name, str) or not type_name.strip():
        raise ValueError("json_schema_to_type: type_name must be a non-empty string, e.g. 'Pet'")
    return type_declarations(schema, type_name)


def generate_types_from_json_schema(tools: Mapping[str, Any]) -> str:
    """One Python module declaring a keyword-only function (and its types) per tool, in name order.

    ``tools`` maps a tool name to its descriptor (see the module docstring). Names that are
    not identifiers are made into ones (``list-pets`` → ``list_pets``, with a comment naming
    the original).
    """
    if not isinstance(tools, Mapping):
        raise TypeError("generate_types_from_json_schema: tools must map tool names to descriptors, e.g. "
                        "{'add': {'description': 'Add.', 'input_schema': {...}}}")
    typing_names: list[str] = []
    bodies: list[str] = []
    declared: dict[str, str] = {}  # type name → its declaration, across the tools
    for tool_name, descriptor in sorted(tools.items(), key=lambda kv: str(kv[0])):
        stub = method_stub(
            str(tool_name),
            description=str(_field(descriptor, "description") or ""),
            input_schema=_schema(_field(descriptor, "input_schema", "inputSchema")),
            output_schema=_schema(_field(descriptor, "output_schema", "outputSchema")),
            requires_approval=_field(descriptor, "requires_approval", "requiresApproval") is True,
        )
        names, body = _split_imports(stub)
        typing_names.extend(n for n in names if n not in typing_names)
        bodies.append(_merge_types(body, declared))
    head = _FUTURE + "\n"
    if typing_names:
        head += "\n" + _TYPING + ", ".join(sorted(typing_names)) + "\n"
    return head + "\n\n" + "\n\n".join(bodies) if bodies else head


def _field(descriptor: Any, *names: str) -> Any:
    for n in names:
        if isinstance(descriptor, Mapping):
            if n in descriptor:
                return descriptor[n]
        elif getattr(descriptor, n, None) is not None:
            return getattr(descriptor, n)
    return None


def _schema(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _split_imports(stub: str) -> tuple[list[str], str]:
    """The typing names a stub imports, and the stub without its import lines."""
    lines = stub.split("\n")
    names: list[str] = []
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith((_FUTURE, _TYPING))):
        if lines[i].startswith(_TYPING):
            names.extend(n.strip() for n in lines[i][len(_TYPING):].split(","))
        i += 1
    return names, "\n".join(lines[i:]).rstrip("\n") + "\n"


def _merge_types(body: str, declared: dict[str, str]) -> str:
    """``body`` with its type declarations made consistent with earlier tools' (``declared``, updated).

    Each tool's declarations are generated on their own, so two tools may both declare ``Item``:
    the same declaration is kept once; a different one is renamed in this tool's text
    (``Item`` → ``ListPetsItem``), so no declaration shadows another.
    """
    tree = ast.parse(body)
    function = next((n.name for n in tree.body if isinstance(n, ast.FunctionDef)), "tool")
    drop: list[tuple[int, int]] = []
    renames: dict[str, str] = {}
    taken = set(declared) | {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in tree.body:
        name = _declared_name(node)
        if name is None or name not in declared:
            continue
        if declared[name] == ast.get_source_segment(body, node):
            drop.append((node.lineno, node.end_lineno or node.lineno))
            continue
        fresh = pascal(function) + name
        while fresh in taken:
            fresh += "_"
        taken.add(fresh)
        renames[name] = fresh
    lines = body.split("\n")
    for start, end in sorted(drop, reverse=True):
        del lines[start - 1:end]
    text = _rename("\n".join(lines), renames) if renames else "\n".join(lines)
    for node in ast.parse(text).body:
        name = _declared_name(node)
        if name is not None and name not in declared:
            declared[name] = ast.get_source_segment(text, node) or ""
    while "\n\n\n\n" in text:
        text = text.replace("\n\n\n\n", "\n\n\n")
    return text.lstrip("\n")


def _declared_name(node: ast.stmt) -> str | None:
    if isinstance(node, ast.ClassDef):
        return node.name
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    return None


def _rename(text: str, renames: Mapping[str, str]) -> str:
    """``text`` with the identifiers in ``renames`` replaced (names only: strings and comments are left)."""
    lines = text.split("\n")
    found = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
             if t.type == tokenize.NAME and t.string in renames]
    for t in reversed(found):  # from the end, so earlier positions stay valid
        row, col = t.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + renames[t.string] + line[col + len(t.string):]
    return "\n".join(lines)
