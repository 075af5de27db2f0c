"""The model-facing ``codemode`` tool's description and input schema.

It lists connector names with one line each (a hint, else the first line of the connector's
instructions), never their methods, so its size does not grow with the catalog (DESIGN §8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codemode_kernel.connectors.base import Connector
from codemode_kernel.executor.language import LANGUAGE_RULES

DEFAULT_HEAD = ("Run a short Python program that combines tools. Each connector is a global object; call its "
                "methods with keyword arguments, e.g. conn.method(arg=value).")

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"code": {"type": "string", "description": "Python source; the last expression is the result."}},
    "required": ["code"],
    "additionalProperties": False,
}


#: The most characters of a connector's line in a tool description: its hint or the first line of
#: its instructions, which an OpenAPI document's ``info.description`` (often a third party's) fills.
CONNECTOR_LINE_CHARS = 200


def connector_line(name: str, connector: Connector, hint: str | None = None) -> str:
    """``- name: text``, the text being ``hint`` or the first line of the connector's instructions, cut
    at :data:`CONNECTOR_LINE_CHARS` with an ellipsis: the description stays short whatever a document says."""
    first = (connector.instructions or "").strip().splitlines()[:1]
    text = (hint or (first[0] if first else "")).strip()
    if len(text) > CONNECTOR_LINE_CHARS:
        text = text[:CONNECTOR_LINE_CHARS - 1].rstrip() + "…"
    return f"- {name}" + (f": {text}" if text else "")


def tool_description(connectors: Mapping[str, Connector], hints: Mapping[str, str],
                     description: str | None = None) -> str:
    """The tool's description: ``description`` (or the default head), the connectors, how to discover and pause."""
    lines = [connector_line(name, c, hints.get(name)) for name, c in sorted(connectors.items())]
    return "\n".join([
        description or DEFAULT_HEAD, "", "Connectors:", *(lines or ["- (none)"]), "",
        "Discover before you call: codemode.search('what you want') ranks methods; "
        "codemode.describe('conn.method') gives its Python signature ('conn.method.arg' or '.return': one "
        "argument's or the result's types; full=True: all). codemode.step('name', fn) records a "
        "nondeterministic value (time, random) so it is the same when the program is replayed; "
        "codemode.run('snippet', input) runs a saved snippet.",
        "Some calls need human approval: the program then pauses (status 'paused') and is re-run from the "
        "top after approval, with earlier calls replayed from the journal, so keep it deterministic.",
        "Language: " + LANGUAGE_RULES,
    ])
