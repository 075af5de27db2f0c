"""JSON Schema from a Python function's signature, type hints and docstring."""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

_PRIMITIVES: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    dict: {"type": "object"},
    list: {"type": "array"},
    bytes: {"type": "string", "format": "binary"},
    datetime: {"type": "string", "format": "date-time"},
    date: {"type": "string", "format": "date"},
}


def type_schema(hint: Any) -> dict[str, Any]:
    """JSON Schema for one type hint; unknown hints give ``{}`` (anything)."""
    if hint is inspect.Parameter.empty or hint is Any:
        return {}
    if hint in _PRIMITIVES:
        return dict(_PRIMITIVES[hint])
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        schema = type_schema(args[0])
        for extra in args[1:]:
            if isinstance(extra, str):
                schema["description"] = extra
        return schema
    if origin in (typing.Union, types.UnionType):
        non_null = [a for a in args if a is not type(None)]
        options = [type_schema(a) for a in non_null]
        if len(non_null) < len(args):
            options.append({"type": "null"})
        return {"anyOf": options}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (list, set, frozenset, typing.Sequence, typing.Iterable):
        return {"type": "array", "items": type_schema(args[0]) if args else {}}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": type_schema(args[0])}
        return {"type": "array", "prefixItems": [type_schema(a) for a in args], "minItems": len(args),
                "maxItems": len(args)}
    if origin in (dict, typing.Mapping):
        return {"type": "object", "additionalProperties": type_schema(args[1]) if len(args) == 2 else {}}
    if typing.is_typeddict(hint):
        hints = typing.get_type_hints(hint)
        required = sorted(getattr(hint, "__required_keys__", set()))
        return {"type": "object", "properties": {k: type_schema(v) for k, v in hints.items()},
                "required": required}
    return {}


_PARAM_LINE = re.compile(r"^\s*(?::param\s+)?(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def docstring_summary(fn: Callable[..., Any]) -> str:
    """The docstring's first paragraph, on one line."""
    doc = inspect.getdoc(fn) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def param_docs(fn: Callable[..., Any]) -> dict[str, str]:
    """Parameter descriptions from a Google-style ``Args:`` section or ``:param x:`` lines."""
    doc = inspect.getdoc(fn) or ""
    out: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        if in_args and stripped.endswith(":") and not line.startswith((" ", "\t")):
            in_args = False
        if stripped.startswith(":param"):
            m = _PARAM_LINE.match(stripped)
            if m:
                current = m.group(1)
                out[current] = m.group(2).strip()
            continue
        if in_args:
            m = _PARAM_LINE.match(stripped)
            if m and line.startswith((" ", "\t")) and len(line) - len(line.lstrip()) <= 4:
                current = m.group(1)
                out[current] = m.group(2).strip()
            elif current and stripped:
                out[current] += " " + stripped
    return out


def schema_from_signature(fn: Callable[..., Any]) -> dict[str, Any]:
    """Input schema (an object) for calling ``fn`` with keyword arguments."""
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # unresolvable forward references: fall back to no hints
        hints = {}
    docs = param_docs(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in sig.parameters.items():
        if name in ("self", "ctx") or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        schema = type_schema(hints.get(name, param.annotation))
        if name in docs:
            schema.setdefault("description", docs[name])
        if param.default is param.empty:
            required.append(name)
        elif param.default is None or isinstance(param.default, (str, int, float, bool)):
            schema["default"] = param.default
        properties[name] = schema
    schema_out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema_out["required"] = required
    return schema_out
