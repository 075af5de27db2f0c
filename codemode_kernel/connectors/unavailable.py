"""What a model is told about a connector that is unavailable, and what it is not.

When a connector's ``tools()`` fails (an MCP server that does not start, an OpenAPI document
that cannot be read), the catalog keeps the full reason for the notebook's author: the
server's command line, the end of its stderr, absolute paths. Those are not the model's
business and may hold credentials (issue 10, item 5: ``--password p@ss`` and ``TOKEN=…``
reached the model). The model gets :func:`unavailable_note`: each connector's
``failure_summary`` (short words the connector chose to be safe) and where the author looks.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping

from codemode_kernel.connectors.base import Connector

GENERIC_REASON = "its methods could not be listed"
WHERE_TO_LOOK = "the notebook's author can see the details with %connectors"


def safe_reason(connector: Connector | None) -> str:
    """A connector's short, safe reason for being unavailable: its ``failure_summary`` (or a generic one),
    without a closing full stop, as it is joined into sentences."""
    summary = connector.failure_summary if connector is not None else None
    return (summary or GENERIC_REASON).strip().rstrip(".")


def unavailable_hints(connectors: Mapping[str, Connector], unavailable: Collection[str]) -> dict[str, str]:
    """The tool description's hint for each connector known to be unusable: one that failed (``unavailable``,
    with its ``failure_summary``) or whose command is not installed (known without starting it).

    One wording for every door that hands a model the tool (``codemode mcp``, ``%tool``,
    ``runtime.tool()``): without it a broken connector is advertised as if it worked, and a program
    that uses it meets a NameError (review 14x, H2).
    """
    hints = {}
    for name, connector in connectors.items():
        missing = getattr(connector, "missing_command", None)
        reason = missing() if callable(missing) else None
        if reason is None and name in unavailable:
            reason = safe_reason(connector)
        if reason:
            hints[name] = f"UNAVAILABLE: {reason}; its methods cannot be called (tell the person)."
    return hints


def unavailable_note(unavailable: Mapping[str, str], connectors: Mapping[str, Connector]) -> str:
    """One sentence naming each unavailable connector with a short, safe reason (never ``unavailable``'s text)."""
    parts = []
    for name in sorted(unavailable):
        parts.append(f"connector {name!r} is unavailable: {safe_reason(connectors.get(name))}")
    return "Note: " + "; ".join(parts) + f"; {WHERE_TO_LOOK}." if parts else ""


def named_in(code: str, name: str) -> bool:
    """Whether a program's text names ``name`` as a whole word (a connector it may use). Python reads
    identifiers in NFKC form, so ``ｐｅｔｓ`` names ``pets`` too (review 16, L2)."""
    if not code.isascii():
        code = unicodedata.normalize("NFKC", code)
    return re.search(rf"\b{re.escape(name)}\b", code) is not None


def unavailable_note_for(code: str, unavailable: Mapping[str, str], connectors: Mapping[str, Connector]) -> str:
    """:func:`unavailable_note` for the unavailable connectors the program names ("" when it names none):
    what a failed pass adds to its error, in every door (the runtime, the journal-less code tool)."""
    return unavailable_note({n: why for n, why in unavailable.items() if named_in(code, n)}, connectors)
