"""Text for Python declarations: docstrings, comments, names and literals that are always valid.

Schema text (descriptions, enum values, property names) comes from servers we do not
control: anything may be in it (quotes, ``\"\"\"``, backslashes, NUL, lone surrogates).
Every function here turns such text into source that parses, and says no more than the
schema says.
"""

from __future__ import annotations

import json
import keyword
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any


def escape_text(text: str) -> str:
    """Text safe inside a triple-quoted string: no control characters, no surrogates."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\\", "\\\\")
    out: list[str] = []
    for ch in text:
        if ch in "\n\t":
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat == "Cc":
            out.append(f"\\x{ord(ch):02x}")
        elif cat == "Cs":
            out.append("\ufffd")  # a lone surrogate cannot be encoded; it carries no meaning
        else:
            out.append(ch)
    return "".join(out).replace('"""', '\\"\\"\\"')


def docstring(text: str, indent: str) -> str:
    """A docstring statement (with a trailing newline) for ``text``, always valid Python."""
    body = escape_text(text.strip()) or "(no description)"
    if body.endswith('"'):
        # A quote right before the closing delimiter would end the string early, unless
        # it is already escaped (an odd number of backslashes before it).
        run = len(body[:-1]) - len(body[:-1].rstrip("\\"))
        if run % 2 == 0:
            body = body[:-1] + '\\"'
    lines = [ln.rstrip() for ln in body.split("\n")]
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""\n'
    rest = "\n".join((indent + ln) if ln else "" for ln in lines[1:])
    return f'{indent}"""{lines[0]}\n{rest}\n{indent}"""\n'


def comment(text: str) -> str:
    """One line of text safe in a ``#`` comment (no line breaks or control characters)."""
    cleaned = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else "?" if unicodedata.category(ch) == "Cs" else ch
        for ch in text
    )
    one = " ".join(cleaned.split())
    return one[:300] + ("…" if len(one) > 300 else "")


def one_line(text: str, limit: int = 200) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def pascal(text: str) -> str:
    words = [w for w in re.split(r"[^0-9A-Za-z]+", text) if w]
    name = "".join(w[0].upper() + w[1:] for w in words)
    if not name:
        return "Type"
    if name[0].isdigit():
        name = "T" + name
    return name


def is_identifier(name: str) -> bool:
    return (
        name.isidentifier()
        and not keyword.iskeyword(name)
        and not keyword.issoftkeyword(name)
        and not name.startswith("__")
        and name.isascii()
    )


def literal_value(value: Any) -> str | None:
    """``repr`` of a value ``Literal`` accepts (str, int, bool, None), else None."""
    if isinstance(value, str):
        return repr(no_surrogates(value))
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    return None


def no_surrogates(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text


def simple_default(value: Any) -> str | None:
    if isinstance(value, str):
        text = repr(no_surrogates(value))
    elif value is None or isinstance(value, (bool, int)) or (isinstance(value, float) and math.isfinite(value)):
        text = repr(value)
    else:
        return None
    return text if len(text) <= 60 else None


def short_json(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def notes(schema: Any) -> list[str]:
    """Formats and constraints worth telling the caller, as short phrases."""
    if not isinstance(schema, Mapping):
        return []
    notes: list[str] = []
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt:
        notes.append(f"Format: {fmt}.")
    for key, label in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="), ("exclusiveMaximum", "<")):
        value = schema.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            notes.append(f"Must be {label} {value}.")
    for key, label, unit in (("minLength", "At least", "character"), ("maxLength", "At most", "character"),
                             ("minItems", "At least", "item"), ("maxItems", "At most", "item"),
                             ("minProperties", "At least", "key"), ("maxProperties", "At most", "key")):
        value = schema.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            notes.append(f"{label} {value} {unit}{'' if value == 1 else 's'}.")
    multiple = schema.get("multipleOf")
    if isinstance(multiple, (int, float)) and not isinstance(multiple, bool):
        notes.append(f"A multiple of {multiple}.")
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        notes.append(f"Pattern: {one_line(pattern, 120)}.")
    if schema.get("uniqueItems") is True:
        notes.append("Items must be unique.")
    if "default" in schema:
        notes.append(f"Default: {short_json(schema['default'])}.")
    if schema.get("deprecated") is True:
        notes.append("Deprecated.")
    if schema.get("readOnly") is True:
        notes.append("Read-only.")
    if schema.get("writeOnly") is True:
        notes.append("Write-only.")
    examples = schema.get("examples")
    example = examples[0] if isinstance(examples, list) and examples else schema.get("example")
    if example is not None and not isinstance(example, (dict, list)):
        notes.append(f"Example: {short_json(example)}.")
    return notes


def field_doc(schema: Any) -> str:
    """The description of one field or parameter, with its notes."""
    description = schema.get("description") if isinstance(schema, Mapping) else None
    if not isinstance(description, str) or not description.strip():
        title = schema.get("title") if isinstance(schema, Mapping) else None
        description = ""
        if isinstance(title, str) and title.strip() and " " in title.strip():
            description = title.strip()
    parts = [description.strip()] if description.strip() else []
    parts.extend(notes(schema))
    return " ".join(parts)
