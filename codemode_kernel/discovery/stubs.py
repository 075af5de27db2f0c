"""JSON Schema → Python declarations (keyword signatures, TypedDicts, docstrings).

First version: primitive types, arrays and objects; everything else is ``Any``.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping, Sequence
from typing import Any

_PRIMS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def _type(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "Any"
    t = schema.get("type")
    if isinstance(t, str) and t in _PRIMS:
        return _PRIMS[t]
    if t == "array":
        return f"list[{_type(schema.get('items'))}]"
    if t == "object":
        return "dict[str, Any]"
    return "Any"


def _doc(text: str, indent: str) -> str:
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip() or "(no description)"
    lines = body.splitlines()
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""\n'
    return f'{indent}"""' + lines[0] + "\n" + "\n".join(indent + ln for ln in lines[1:]) + f'\n{indent}"""\n'


def method_stub(
    name: str,
    *,
    description: str,
    input_schema: Mapping[str, Any] | None,
    output_schema: Mapping[str, Any] | None = None,
    requires_approval: bool = False,
) -> str:
    """Python declarations for calling one method with keyword arguments."""
    props = (input_schema or {}).get("properties") or {}
    required = set((input_schema or {}).get("required") or [])
    params: list[str] = []
    for pname, pschema in props.items():
        if not pname.isidentifier() or keyword.iskeyword(pname):
            continue
        ann = _type(pschema)
        params.append(f"{pname}: {ann}" if pname in required else f"{pname}: {ann} | None = None")
    params.sort(key=lambda p: "=" in p)
    sig = ", ".join(["*", *params]) if params else ""
    doc = description + ("\n\nRequires human approval: the pass pauses until it is approved." if requires_approval else "")
    return f"from typing import Any\n\n\ndef {name}({sig}) -> {_type(output_schema)}:\n{_doc(doc, '    ')}    ...\n"


def connector_stub(name: str, instructions: str | None, methods: Sequence[tuple[str, str, bool]], limit: int = 40) -> str:
    """A class listing a connector's methods (name, first description line), at most ``limit``."""
    out = [f"class {name}:\n", _doc(instructions or f"The {name} connector.", "    ")]
    for mname, desc, approval in list(methods)[:limit]:
        first = (desc.strip().splitlines() or [""])[0]
        note = " (requires approval)" if approval else ""
        out.append(f"\n    def {mname}(self, **kwargs: Any) -> Any:\n{_doc(first + note, '        ')}        ...\n")
    if len(methods) > limit:
        out.append(f"\n    # … and {len(methods) - limit} more methods: use codemode.search(query) to find them.\n")
    return "from typing import Any\n\n\n" + "".join(out)
