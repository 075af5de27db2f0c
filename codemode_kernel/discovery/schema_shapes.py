"""Shapes of JSON Schemas, as the declaration generator sees them: types, unions, merged ``allOf``.

Pure functions over schema data; nothing here raises on a schema it does not understand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Resolver = Callable[[str], tuple[bool, Any]]

# Keywords that only annotate (they do not change the Python type); a schema made of these
# alone accepts anything.
ANNOTATION_KEYS = frozenset(
    {"description", "title", "default", "examples", "example", "deprecated", "readOnly", "writeOnly",
     "$comment", "$schema", "$id", "$anchor", "externalDocs", "xml", "discriminator"}
)


def looks_like_object(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    t = schema.get("type")
    return t == "object" or (t is None and isinstance(schema.get("properties"), Mapping))


def object_properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return {}
    return {str(k): v for k, v in props.items()}


def required_keys(schema: Mapping[str, Any]) -> set[str]:
    required = schema.get("required")
    if isinstance(required, list):
        return {r for r in required if isinstance(r, str)}
    return set()


def extra_items(schema: Mapping[str, Any]) -> str | None:
    extra = schema.get("additionalProperties")
    if extra is True or (isinstance(extra, Mapping) and not extra):
        return "any"
    if isinstance(extra, Mapping):
        types = types_of(extra)
        return " or ".join(types) if types else "any"
    return None


def types_of(schema: Mapping[str, Any]) -> list[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return list(dict.fromkeys(x for x in t if isinstance(x, str)))
    # No "type": infer from the keywords present.
    if any(k in schema for k in ("properties", "additionalProperties", "patternProperties", "required")):
        return ["object"]
    if any(k in schema for k in ("items", "prefixItems")):
        return ["array"]
    if any(k in schema for k in ("minLength", "maxLength", "pattern")):
        return ["string"]
    return []


def has_type_info(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return schema is False
    keys = set(schema) - ANNOTATION_KEYS - {"required", "not", "nullable"}
    return bool(keys)


def option_hint(option: Any, index: int) -> str:
    if isinstance(option, Mapping):
        title = option.get("title")
        if isinstance(title, str) and title.strip():
            return title
        ref = option.get("$ref")
        if isinstance(ref, str):
            return ref.rsplit("/", 1)[-1]
    return f"option{index + 1}"


def value_type(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list[Any]"
    if isinstance(value, dict):
        return "dict[str, Any]"
    return "Any"


def union(parts: Sequence[str]) -> str:
    unique = list(dict.fromkeys(p for p in parts if p))
    if not unique or "Any" in unique:
        return "Any"
    if len(unique) > 1 and "Never" in unique:
        unique.remove("Never")
    # None last reads best: ``str | None``.
    if "None" in unique and len(unique) > 1:
        unique.remove("None")
        unique.append("None")
    return " | ".join(unique)


def merge_all_of(resolve: Resolver, note: Callable[[str], None], schema: Mapping[str, Any],
                 seen: set[str]) -> dict[str, Any]:
    """One schema equivalent to ``allOf`` for declaration purposes (keys merged, types intersected)."""
    out: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    parts = schema.get("allOf") or []
    for part in parts:
        if isinstance(part, Mapping) and "$ref" in part:
            ref = part["$ref"]
            if not isinstance(ref, str) or ref in seen:
                continue
            found, target = resolve(ref)
            if not found:
                note(f"$ref {ref!r} could not be resolved; it is typed as Any")
                continue
            extra = {k: v for k, v in part.items() if k != "$ref"}
            part = {**target, **extra} if isinstance(target, Mapping) else extra
            seen = seen | {ref}
        if not isinstance(part, Mapping):
            continue
        if isinstance(part.get("allOf"), list):
            part = merge_all_of(resolve, note, part, seen)
        for key, value in part.items():
            if key == "properties" and isinstance(value, Mapping):
                props = dict(out.get("properties") or {})
                for pname, pschema in value.items():
                    props[pname] = {"allOf": [props[pname], pschema]} if pname in props else pschema
                out["properties"] = props
            elif key == "required" and isinstance(value, list):
                names = [r for r in value if isinstance(r, str)]  # required: [[]] is not a list of names
                out["required"] = list(dict.fromkeys([*(out.get("required") or []), *names]))
            elif key == "type":
                mine = out.get("type")
                if mine is None:
                    out["type"] = value
                else:
                    a = {mine} if isinstance(mine, str) else set(mine) if isinstance(mine, list) else set()
                    b = {value} if isinstance(value, str) else set(value) if isinstance(value, list) else set()
                    common = [t for t in ("object", "array", "string", "integer", "number", "boolean", "null")
                              if t in a and t in b]
                    if ("integer" in a and "number" in b) or ("number" in a and "integer" in b):
                        common.append("integer")
                    out["type"] = common[0] if len(common) == 1 else (common or mine)
            elif key in ("description", "title"):
                out.setdefault(key, value)
            else:
                out.setdefault(key, value)
    if "type" not in out and isinstance(out.get("properties"), Mapping):
        out["type"] = "object"
    return out
