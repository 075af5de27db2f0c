"""Completion and inspection for Code Mode cells.

Completion knows what the sandbox will have: the connector globals and their methods,
``codemode`` and its SDK, the pre-imported modules, the safe builtins, the names carried
over from earlier cells, and the magics. Nothing here runs cell code: values are looked
at host side only when they are carried-over plain data.
"""

from __future__ import annotations

import asyncio
import inspect
import keyword
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codemode_kernel.commands import COMMANDS
from codemode_kernel.executor.language import BUILTINS, MODULES
from codemode_kernel.executor.sandbox import CodemodeApi

if TYPE_CHECKING:
    from codemode_kernel.runtime import CodemodeRuntime

log = logging.getLogger(__name__)

CODEMODE_SDK: dict[str, str] = {
    name: (inspect.getdoc(getattr(CodemodeApi, name)) or "")
    for name in ("search", "describe", "step", "run")
}
_RETURNS = {"search": "dict", "describe": "dict", "step": "Any", "run": "Any"}


def _sdk_signature(name: str) -> str:
    """``codemode.<name>(...)`` read from the sandbox's own method, so it cannot fall behind it."""
    params = []
    for p in list(inspect.signature(getattr(CodemodeApi, name)).parameters.values())[1:]:  # without self
        ann = p.annotation  # a string under ``from __future__ import annotations``, else a type
        if ann is not inspect.Parameter.empty and not isinstance(ann, str):
            ann = inspect.formatannotation(ann)
        text = p.name if ann is inspect.Parameter.empty else f"{p.name}: {ann}"
        params.append(text if p.default is inspect.Parameter.empty else f"{text} = {p.default!r}")
    return f"codemode.{name}({', '.join(params)}) -> {_RETURNS[name]}"


CODEMODE_SIGNATURES = {name: _sdk_signature(name) for name in CODEMODE_SDK}
_KEYWORDS = sorted(k for k in keyword.kwlist if k not in ("async", "await"))
_BUILTIN_NAMES = sorted(n for n in BUILTINS if not n.startswith("_"))
_DOTTED_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z0-9_]*)$")
_NAME_BEFORE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
# ``x['al`` / ``x["al``: a string subscript being typed (group 1 the name, 3 the key so far).
_STRING_KEY_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[\s*(['\"])([^'\"\\]*)$")
# ``notes.add_note(title="a", te``: inside a connector call (group 3 what is typed since the parenthesis).
_CALL_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\(([^()]*)$")
# ``title=`` or ``title=va`` (not ``==``) at the end of a call's arguments: a value is being typed (review 16x L1).
_VALUE_BEFORE = re.compile(r"(?:^|[(,\s])[A-Za-z_][A-Za-z0-9_]*\s*=\s*[A-Za-z_0-9]*$")
#: Characters before the cursor searched for a call opened on an earlier line (a bound: completion runs per key).
_CALL_CONTEXT = 2_000
# Magics whose first argument is an execution id: ``last`` and recent ids complete there.
_ID_MAGICS = tuple(c.magic for c in COMMANDS if c.magic and c.positionals and c.positionals[0].kind == "execution")


@dataclass(frozen=True)
class Names:
    """Everything completion can offer, gathered by the kernel before it answers."""

    connectors: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # name -> method -> summary
    variables: Mapping[str, Any] = field(default_factory=dict)
    magics: Sequence[str] = ()
    executions: Sequence[str] = ()  # recent execution ids, newest first
    snippets: Sequence[str] = ()
    #: ``connector.method`` -> its argument names (its input schema's properties), for ``notes.add_note(te``.
    arguments: Mapping[str, Sequence[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Completion:
    text: str
    type: str
    signature: str = ""


async def gather_names(runtime: CodemodeRuntime, variables: Mapping[str, Any], magics: Sequence[str]) -> Names:
    """What completion can offer now; a broken connector or store leaves its part empty."""
    connectors: dict[str, dict[str, str]] = {}
    arguments: dict[str, list[str]] = {}
    try:
        catalog = await asyncio.wait_for(runtime.catalog(), timeout=5)
        for cname, methods in catalog.methods.items():
            connectors[cname] = {m: (meth.tool.description.strip().splitlines() or [""])[0]
                                 for m, meth in methods.items()}
            for m, meth in methods.items():
                properties = (meth.tool.input_schema or {}).get("properties")
                if isinstance(properties, Mapping):
                    arguments[f"{cname}.{m}"] = [str(k) for k in properties if str(k).isidentifier()]
    except Exception:  # completion must answer even when a connector is broken
        log.debug("catalog unavailable for completion", exc_info=True)
    try:
        executions = [s.id for s in await runtime.executions(limit=20)]
        snippets = [s.name for s in await runtime.snippets()]
    except Exception:
        executions, snippets = [], []
    return Names(connectors=connectors, variables=dict(variables), magics=list(magics), executions=executions,
                 snippets=snippets, arguments=arguments)


def complete(code: str, cursor_pos: int, names: Names) -> dict[str, Any]:
    """A Jupyter ``complete_reply`` content for the cursor position."""
    before = code[:cursor_pos]
    line = before.rsplit("\n", 1)[-1]
    items, start = _candidates(line, names, before[-_CALL_CONTEXT:])
    cursor_start = cursor_pos - start
    matches = [c.text for c in items]
    experimental = [{"start": cursor_start, "end": cursor_pos, "text": c.text, "type": c.type,
                     "signature": c.signature} for c in items]
    return {"status": "ok", "matches": matches, "cursor_start": cursor_start, "cursor_end": cursor_pos,
            "metadata": {"_jupyter_types_experimental": experimental}}


def _candidates(line: str, names: Names, before: str = "") -> tuple[list[Completion], int]:
    """Completions and how many characters before the cursor they replace (``before``: the code up to the cursor,
    for a call opened on an earlier line)."""
    stripped = line.lstrip()
    if stripped.startswith("%"):
        return _magic_candidates(stripped, names)
    keyed = _STRING_KEY_BEFORE.search(line)
    if keyed or _in_string(line):  # a dict's key, or any text: never a name (review 15x L9)
        value = names.variables.get(keyed.group(1)) if keyed else None
        prefix = keyed.group(3) if keyed else ""
        keys = sorted(k for k in value if isinstance(k, str)) if isinstance(value, Mapping) else []
        return [Completion(k, "text") for k in keys if k.startswith(prefix)], len(prefix)
    call = _CALL_BEFORE.search(line) or (_open_call(before) if "\n" in before else None)
    arguments = names.arguments.get(f"{call.group(1)}.{call.group(2)}") if call else None
    if call and arguments is not None:
        given = set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)", call.group(3)))
        word = _NAME_BEFORE.search(call.group(3))
        prefix = word.group(0) if word else ""
        if _VALUE_BEFORE.search(call.group(3)):  # ``title=`` / ``title=va``: a value goes here, not a keyword
            return (_names_for(prefix, names) if prefix else []), len(prefix)
        offered = [Completion(f"{a}=", "param", f"argument of {call.group(1)}.{call.group(2)}")
                   for a in arguments if a not in given and a.startswith(prefix)]
        return offered + (_names_for(prefix, names) if prefix else []), len(prefix)
    dotted = _DOTTED_BEFORE.search(line)
    if dotted:
        owner, prefix = dotted.group(1), dotted.group(2)
        return [c for c in _attributes(owner, names) if c.text.startswith(prefix)], len(prefix)
    match = _NAME_BEFORE.search(line)
    prefix = match.group(0) if match else ""
    if not prefix:
        return [], 0
    return _names_for(prefix, names), len(prefix)


def _open_call(before: str) -> re.Match[str] | None:
    """``_CALL_BEFORE``'s match for a call opened on an earlier line and not closed: the regex is tried only
    at the last ``(`` (from up to 200 characters before it), so a long line costs no backtracking."""
    last = before.rfind("(")
    if last == -1 or ")" in before[last:]:
        return None
    return _CALL_BEFORE.search(before, max(0, last - 200))


def _in_string(line: str) -> bool:
    """Whether the end of ``line`` is inside a one-line string literal (quotes counted, escapes skipped)."""
    quote = ""
    i = 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return False
        i += 1
    return bool(quote)


def _names_for(prefix: str, names: Names) -> list[Completion]:
    pool = ([Completion(n, "instance", f"connector {n}") for n in sorted(names.connectors)]
            + [Completion("codemode", "instance", "Code Mode SDK: search, describe, step, run")]
            + [Completion(n, "instance", type(v).__name__) for n, v in sorted(names.variables.items())]
            + [Completion(n, "module") for n in sorted(MODULES)]
            + [Completion(n, "function") for n in _BUILTIN_NAMES]
            + [Completion(k, "keyword") for k in _KEYWORDS])
    seen: set[str] = set()
    out = []
    for c in pool:
        if c.text.startswith(prefix) and c.text not in seen:
            seen.add(c.text)
            out.append(c)
    return out


def _attributes(owner: str, names: Names) -> list[Completion]:
    if owner in names.connectors:
        return [Completion(m, "function", summary) for m, summary in sorted(names.connectors[owner].items())]
    if owner == "codemode":
        return [Completion(n, "function", CODEMODE_SIGNATURES[n]) for n in sorted(CODEMODE_SDK)]
    if owner in MODULES:
        module = MODULES[owner]
        return [Completion(n, _kind(getattr(module, n, None))) for n in sorted(dir(module))
                if not n.startswith("_") and not n.endswith("_CAPI")]  # a C capsule: nothing a program uses
    if owner in names.variables:
        value = names.variables[owner]
        return [Completion(n, "function") for n in sorted(dir(type(value))) if not n.startswith("_")]
    return []


def _kind(obj: Any) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "instance"


def _magic_candidates(stripped: str, names: Names) -> tuple[list[Completion], int]:
    head, space, rest = stripped.partition(" ")
    if not space:
        options = [f"%{m}" for m in names.magics] + ["%%host"]
        return [Completion(o, "magic") for o in options if o.startswith(head)], len(head)
    magic = head.lstrip("%")
    word = rest.rsplit(" ", 1)[-1]
    pool: list[str] = []
    if magic == "describe":
        pool = list(names.connectors) + [f"{c}.{m}" for c, ms in names.connectors.items() for m in ms]
        pool += list(names.snippets)
    elif magic in _ID_MAGICS and " " not in rest.strip():
        pool = ["last", *names.executions]
    elif magic == "snippet":
        words = rest.split()
        if len(words) <= 1 and not rest.endswith(" "):
            pool = ["save", "delete", "show"]
        elif words and words[0] in ("delete", "show"):
            pool = list(names.snippets)
    elif magic == "reset":
        pool = list(names.variables)
    return [Completion(p, "text") for p in sorted(set(pool)) if p.startswith(word)], len(word)


# ---------------------------------------------------------------------------------------
# Inspection

_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_.]")


def token_at(code: str, cursor_pos: int) -> str:
    """The dotted name under (or just before) the cursor, e.g. ``github.list_pull_requests``."""
    start = end = min(cursor_pos, len(code))
    while start > 0 and _TOKEN_CHARS.match(code[start - 1]):
        start -= 1
    while end < len(code) and _TOKEN_CHARS.match(code[end]):
        end += 1
    token = code[start:end].strip(".")
    if not token and cursor_pos > 0 and code[cursor_pos - 1] == "(":
        return token_at(code, cursor_pos - 1)
    return token


def inspect_local(token: str, names: Names) -> str | None:
    """Text about ``token`` when it is not a connector (those go to ``describe()``): a carried name, the
    ``codemode`` API, a pre-imported module or one of its names, a builtin; None for anything else.

    The one answer of both questions a person asks in a notebook: Shift-Tab (the kernel's inspect) and
    ``name?`` alone in a cell (``Magics.help_target``, shown in the pager); s16o merged the two texts.
    """
    head, _, attr = token.partition(".")
    if head in names.connectors:
        return None
    if head in names.variables and not attr:
        from codemode_kernel.kernel.display import plain_text

        value = names.variables[head]
        text = plain_text(value)
        if len(text) > _VALUE_CHARS:
            text = text[:_VALUE_CHARS] + f"… ({len(text):,} characters; %vars lists the carried names)"
        return (f"{head}: {type(value).__name__}, carried from an earlier cell (names are carried over from cell "
                f"to cell; %vars lists them)\n\n{text}")
    if head == "codemode":
        if not attr:
            return "codemode: the Code Mode SDK every cell has\n\n" + "\n".join(
                f"{CODEMODE_SIGNATURES[n]}\n    {CODEMODE_SDK[n]}" for n in sorted(CODEMODE_SDK))
        if attr in CODEMODE_SDK:
            return f"{CODEMODE_SIGNATURES[attr]}\n\n{CODEMODE_SDK[attr]}"
        if attr.startswith("_"):
            return None
        return (f"codemode has no {attr!r}: its API is {', '.join(f'codemode.{n}' for n in sorted(CODEMODE_SDK))}. "
                "Ask codemode.X? for one of them.")
    target: Any = None
    if head in MODULES:
        target = MODULES[head]
        for part in attr.split(".") if attr else []:
            if part.startswith("_"):
                return None
            try:
                target = getattr(target, part)
            except AttributeError as exc:  # a module's view names what is left out, and why
                return f"{token}: {exc}"
        note = (f"{token}: Python's own {'name' if attr else 'module'} (pre-imported in every cell; see Python's "
                "documentation). `?` describes connectors, methods and snippets (%search QUERY finds them).")
    elif head in BUILTINS and not attr and not head.startswith("_"):
        target = BUILTINS[head]
        note = f"{token}: a Python builtin, as every cell has it."
    else:
        return None
    try:
        signature = str(inspect.signature(target))
    except (TypeError, ValueError):
        signature = ""
    doc = inspect.getdoc(target) or ""
    return f"{token}{signature}\n\n{doc}".strip() + "\n\n" + note


#: A carried value's text shown by inspect and ``name?`` (the rest is cut, saying how long it was).
_VALUE_CHARS = 2_000
