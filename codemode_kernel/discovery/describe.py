"""Targeted Python declarations for a connector, a method, one argument, a result or a snippet.

What a model reads costs tokens, so the default is compact and everything has a hard cap:

- ``describe("github.pulls_create")``: the keyword signature with the direct input type,
  arguments filling lines of 100 columns (required ones documented in one short line each;
  nested objects typed ``dict`` and named for drill-down in a first ``# describe more:``
  line of suffixes), the first sentence of the description and "Needs approval." — one
  discovery round (top-5 search results + this) is ~500 tokens (bench_discovery.py);
- ``describe("github.pulls_create.head_repo")`` / ``describe("github.pulls_create.return")``:
  the full declarations of one argument's type or of the result; an argument the method
  does not have is answered with the ones it has;
- ``describe("github.pulls_create", full=True)``: the whole description and every nested type;
- ``describe("github")``: the connector's methods, one line each, ``page`` by page;
- ``describe("pulls_create")``: a bare method name, when exactly one connector has it;
- an unknown target is answered as data (``kind="not_found"``, ``error``, ``suggestions``).

Every answer stays valid Python: when a declaration would pass its cap it is generated
again with less detail (never cut in the middle), and a ``# note:`` says what was left out
and how to see it.
"""

from __future__ import annotations

import ast
import difflib
import re
import unicodedata
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from codemode_kernel import json_pointer
from codemode_kernel.catalog import Catalog, Method
from codemode_kernel.discovery.schema_shapes import object_properties, required_keys
from codemode_kernel.discovery.search import first_sentence, summary_line
from codemode_kernel.discovery.stub_text import comment, docstring, is_identifier, one_line, pascal
from codemode_kernel.discovery.stubs import method_stub, type_declarations
from codemode_kernel.discovery.text import words
from codemode_kernel.models import DescribeOutput
from codemode_kernel.wording import sentence

__all__ = ["COMPACT_CAP", "DETAIL_CAP", "FULL_CAP", "PAGE_SIZE", "describe_target", "not_found_message"]

COMPACT_CAP = 2_500
DETAIL_CAP = 8_000
FULL_CAP = 20_000
# Short: the answer's ``requires_approval`` and every display of it say so too.
APPROVAL_NOTE = " Needs approval."
_FUTURE = "from __future__ import annotations\n\n"
PAGE_SIZE = 40
COMPACT_WIDTH = 100  # arguments fill lines of this width: one per line cost ~30 % more tokens
_ARG_DOC = 90
_SUMMARY = 200
RESULT = "return"  # a Python keyword, so never a keyword argument's name

SnippetLookup = Callable[[str], DescribeOutput | None]
Ranker = Callable[[str], Sequence[str]]


# -- resolving a target --------------------------------------------------------------------------


def describe_target(catalog: Catalog, target: str, *, snippet: SnippetLookup, rank: Ranker, page: int = 1,
                    full: bool = False) -> DescribeOutput:
    """The answer for ``target``: a connector, ``conn.method``, ``conn.method.arg``/``.return``,
    a snippet, or a bare method name; anything else is a ``not_found`` answer with suggestions."""
    target = target.strip()
    if target in catalog.methods:
        return describe_connector(catalog, target, page=page)
    parts = target.split(".")
    if len(parts) >= 2 and parts[0] in catalog.methods:
        m = catalog.get(parts[0], parts[1])
        if m is not None and len(parts) == 2:
            return describe_method(m, full=full, shared=shared_arguments(catalog, m.connector))
        if m is not None and len(parts) == 3:
            detail = describe_detail(m, parts[2])
            if detail is not None:
                return detail
            return _no_such_argument(catalog, m, parts[2])
    found = snippet(target.removeprefix("snippet:"))
    if found is not None:
        return found
    if "." not in target and target:
        owners = [m for m in catalog.all_methods() if m.name == target]
        if len(owners) == 1:
            return describe_method(owners[0], full=full, shared=shared_arguments(catalog, owners[0].connector))
        if owners:
            paths = sorted(m.path for m in owners)
            return _not_found(target, paths, catalog, f"{target!r} is a method of several connectors; "
                                                      f"name one: {', '.join(paths)}")
    return _not_found(target, suggest(catalog, target, rank), catalog)


def suggest(catalog: Catalog, target: str, rank: Ranker, n: int = 5) -> list[str]:
    """Paths close to ``target``: spelling first (``list_item`` → ``shop.list_items``), then meaning."""
    paths = [m.path for m in catalog.all_methods()]
    by_name: dict[str, list[str]] = {}
    for m in catalog.all_methods():
        by_name.setdefault(m.name, []).append(m.path)
    out: list[str] = []
    for close in difflib.get_close_matches(target, [*paths, *catalog.methods], n=n, cutoff=0.75):
        out.append(close)
    last = target.rsplit(".", 1)[-1]
    for close in difflib.get_close_matches(last, list(by_name), n=n, cutoff=0.75):
        out.extend(by_name[close])
    out.extend(rank(target.replace(".", " ").replace("_", " ")))
    return list(dict.fromkeys(out))[:n]


def not_found_message(target: str, suggestions: Sequence[str], catalog: Catalog) -> str:
    """Why nothing was described and what to do: the shared tail of the data and the exception."""
    names = ", ".join(sorted(catalog.methods)) or "none configured"
    hint = f"did you mean {', '.join(suggestions)}? " if suggestions else ""
    return (f"{hint}describe a connector ({names}), a method ('connector.method') or a snippet; "
            "use codemode.search('what you want') to find names")


def _not_found(target: str, suggestions: list[str], catalog: Catalog, error: str | None = None) -> DescribeOutput:
    message = error or f"{target!r} not found; {not_found_message(target, suggestions, catalog)}"
    types = f"# {comment(message)}\n"
    return DescribeOutput(path=target, description=message, requires_approval=False, types=types,
                          kind="not_found", suggestions=suggestions, error=message)


def _no_such_argument(catalog: Catalog, m: Method, name: str) -> DescribeOutput:
    """``conn.method.nope``: the method exists, the argument does not; name the ones it has."""
    args = list(object_properties(m.tool.input_schema)) if isinstance(m.tool.input_schema, Mapping) else []
    close = difflib.get_close_matches(name, args, n=3, cutoff=0.6)
    paths = [f"{m.path}.{a}" for a in close] or [m.path]
    shown = ", ".join(args[:30]) + (f" and {len(args) - 30} more" if len(args) > 30 else "")
    error = (f"{m.path!r} has no argument {name!r}; "
             + (f"its arguments are {shown}" if args else "it takes no arguments")
             + f" ('{m.path}.{RESULT}' declares its result)")
    return _not_found(f"{m.path}.{name}", paths, catalog, error)


# -- a method ------------------------------------------------------------------------------------


def describe_method(m: Method, *, full: bool = False, shared: Mapping[str, str] | None = None) -> DescribeOutput:
    """``shared``: argument docs the connector's describe gives once (:func:`shared_arguments`),
    left out of the compact form."""
    t = m.tool
    if full:
        types, truncated = _full_method(m)
    else:
        types, truncated = _compact_method(m, shared or {})
    return DescribeOutput(path=m.path, description=summary_line(t.description), requires_approval=t.requires_approval,
                          types=types, kind="method", truncated=truncated)


def _full_method(m: Method) -> tuple[str, bool]:
    t = m.tool
    for defs, result_defs in ((60, 25), (20, 5), (5, 0), (0, 0)):
        types = method_stub(m.name, description=t.description, input_schema=t.input_schema,
                            output_schema=t.output_schema, requires_approval=t.requires_approval,
                            max_definitions=defs, max_result_definitions=result_defs)
        if len(types) <= FULL_CAP:
            if result_defs == 0 and t.output_schema is not None:  # the result is a bare dict here
                where = f"codemode.describe('{m.path}.{RESULT}')"
                types = f"# note: {comment(f'the result is typed as a dict here; {where} declares it')}\n{types}"
            return types, (defs, result_defs) != (60, 25)
    types, _ = _compact_method(m, {})
    note = f"# note: the full declaration is longer than {FULL_CAP:,} characters; this is the compact one\n"
    return note + types, True


def _compact_method(m: Method, shared: Mapping[str, str]) -> tuple[str, bool]:
    t = m.tool
    schema = t.input_schema if isinstance(t.input_schema, Mapping) else {}
    props = object_properties(schema)
    required = required_keys(schema)
    nested = [k for k, sub in props.items() if _structured(sub, schema)]
    # The first line (not only its first sentence: what a description says, hostile or not, is
    # shown, never silently dropped; tests/security/test_security_rendering.py); the rest is one
    # ``full=True`` away.
    summary = summary_line(t.description, _SUMMARY) or "(no description)"
    long_text = summary_line(t.description, 10_000) != (t.description or "").strip()
    # Detail levels, richest first: the first that fits the cap is used. Optional arguments
    # are named in the signature; their docs are one drill-down away (full=True).
    summary = sentence(summary) + APPROVAL_NOTE if t.requires_approval else summary
    levels = (("required", True), ("none", True), ("none", False))
    for docs, keep_optional in levels:
        shrunk = _shrink_input(m, schema, props, required, docs, keep_optional, shared)
        types = method_stub(m.name, description=summary, input_schema=shrunk, output_schema=_shallow(t.output_schema),
                            root=schema, max_definitions=60, max_result_definitions=0, width=COMPACT_WIDTH,
                            fill=True, short=True)
        if "class " not in types:  # no forward references without classes: 40 characters saved
            types = types.replace(_FUTURE, "", 1).lstrip("\n")
        omitted = docs != "required" or not keep_optional
        more = _more_note(m, nested, bool(t.output_schema), long_text or len(required) < len(props) or omitted)
        text = more + types
        if len(text) <= COMPACT_CAP:
            return text, omitted
    # Hundreds of arguments: name the required ones, summarise the rest in a note.
    optional = [k for k in props if k not in required]
    head = (f"# note: {len(optional)} optional arguments are not shown ({comment(', '.join(optional))[:300]}); "
            f"codemode.describe('{m.path}', full=True) lists them\n")
    params = [k for k in props if k in required and is_identifier(k)]
    signature = ", ".join(["*", *(f"{k}: Any" for k in params), "**optional: Any"]) if params else "**optional: Any"
    body = f"def {_ident(m.name)}({signature}) -> Any:\n{docstring(summary, '    ')}    ...\n"
    return "from __future__ import annotations\n\nfrom typing import Any\n\n\n" + head + body, True


def _more_note(m: Method, nested: Sequence[str], has_result: bool, more_text: bool) -> str:
    """One comment line naming the drill-downs that show what the compact form left out."""
    parts = [*nested[:4], *(["…"] if len(nested) > 4 else []), *([RESULT] if has_result else [])]
    # Suffixes, not paths: this line is read in every discovery round, and the codemode tool's
    # description says once how a suffix is described (tool_text.py).
    hints = [" ".join(p if p == "…" else f".{p}" for p in parts)] if parts else []
    if more_text:
        hints.append("full=True")
    return f"# describe more: {comment(', '.join(hints))}\n" if hints else ""


def _shrink_input(m: Method, schema: Mapping[str, Any], props: Mapping[str, Any], required: set[str], docs: str,
                  keep_optional: bool, shared: Mapping[str, str]) -> dict[str, Any]:
    """The input schema with short argument docs and nested objects reduced to their kind."""
    out: dict[str, Any] = {}
    for key, sub in props.items():
        if not keep_optional and key not in required:
            continue
        node = dict(sub) if isinstance(sub, Mapping) else {}
        if _structured(sub, schema):
            node = {"type": _kind(sub, schema)}
            if isinstance(sub, Mapping) and sub.get("nullable") is True:
                node["nullable"] = True
        for k in ("description", "title", "format", "minimum", "maximum", "minLength", "maxLength", "pattern",
                  "minItems", "maxItems", "uniqueItems", "examples", "example"):
            node.pop(k, None)
        wanted = docs == "all" or (docs == "required" and key in required)
        text = _first_sentence(_described(sub, schema)) if wanted else ""
        if text and not _says_only_its_name(key, text) and shared.get(key) != text:
            node["description"] = text
        out[key] = node
    shrunk: dict[str, Any] = {"type": "object", "properties": out, "required": sorted(required & set(out))}
    extra = schema.get("additionalProperties")
    if extra is not None and extra is not False:
        shrunk["additionalProperties"] = extra if isinstance(extra, bool) else {"type": _kind(extra, schema)}
    return shrunk


# -- one argument or the result ------------------------------------------------------------------


#: (named types, field docs) of ``describe_detail``'s levels, richest first: at each number of named
#: types, field docs go (nested ones, then the type's own) before declarations do.
_DETAIL_LEVELS = tuple((defs, docs) for defs in (40, 12, 3, 1) for docs in ("all", "root", "none"))


def describe_detail(m: Method, part: str) -> DescribeOutput | None:
    """Declarations of one argument's type (``conn.method.arg``) or of the result (``.return``)."""
    t = m.tool
    if part == RESULT:
        if t.output_schema is None:
            types = f"# {comment(m.path)} returns Any: its result has no declared schema\n"
            return DescribeOutput(path=f"{m.path}.{RESULT}", description="the result", requires_approval=False,
                                  types=types, kind="method")
        schema, root, name, label = t.output_schema, t.output_schema, pascal(f"{m.name} result"), "the result"
    else:
        props = object_properties(t.input_schema) if isinstance(t.input_schema, Mapping) else {}
        if part not in props:
            return None
        schema, root, name, label = props[part], t.input_schema, pascal(f"{m.name} {part}"), f"argument {part!r}"
    # Richest first; the first level that fits the cap is used. Docs go before declarations, and the
    # type's own fields stay to the last: a large result (GitHub's full-repository: ~100 documented
    # fields) still lists them (review 14x H1).
    header = f"# {comment(f'{m.path}: {label} is {name}')}\n"
    for level, (defs, docs) in enumerate(_DETAIL_LEVELS):
        body = type_declarations(schema, name, root=root, max_definitions=defs, docs=docs, in_result=part == RESULT)
        if len(header) + len(body) <= DETAIL_CAP:
            return DescribeOutput(path=f"{m.path}.{part}", description=one_line(_described(schema, root), 200),
                                  requires_approval=False, types=header + body, kind="method", truncated=level > 0)
    first = _first_fields(schema, root, name, part == RESULT, DETAIL_CAP - len(header))
    if first is not None:
        return DescribeOutput(path=f"{m.path}.{part}", description=one_line(_described(schema, root), 200),
                              requires_approval=False, types=header + first, kind="method", truncated=True)
    types = f"# {comment(f'{m.path}: {label} is a large object; it is typed as dict[str, Any] here')}\n" \
            f"from typing import Any\n\n{name} = dict[str, Any]\n"
    return DescribeOutput(path=f"{m.path}.{part}", description=label, requires_approval=False, types=types,
                          kind="method", truncated=True)


def _first_fields(schema: Any, root: Any, name: str, in_result: bool, cap: int) -> str | None:
    """``name`` declared with as many of its first fields as fit in ``cap`` characters (no docs, no
    nested types), and a note saying how many are left out; None when it is not an object of fields."""
    target = schema
    for _ in range(8):  # a chain of $refs to the object
        ref = target.get("$ref") if isinstance(target, Mapping) else None
        if not isinstance(ref, str):
            break
        try:
            target = json_pointer.resolve(root, ref)
        except (LookupError, ValueError):
            return None
    props = object_properties(target) if isinstance(target, Mapping) else {}
    if not isinstance(target, Mapping) or not props:
        return None
    keys = list(props)

    def declared(count: int) -> str | None:
        shown = keys[:count]
        part = {**target, "properties": {k: props[k] for k in shown},
                "required": [k for k in required_keys(target) if k in shown]}
        note = f"# note: the first {count} of its {len(keys)} fields are shown\n"
        body = note + type_declarations(part, name, root=root, max_definitions=1, docs="none", in_result=in_result)
        return body if len(body) <= cap else None

    best, low, high = None, 1, len(keys) - 1  # the most fields that fit: a binary search
    while low <= high:
        middle = (low + high) // 2
        found = declared(middle)
        if found is None:
            high = middle - 1
        else:
            best, low = found, middle + 1
    return best


_SHARED: weakref.WeakKeyDictionary[Catalog, dict[str, dict[str, str]]] = weakref.WeakKeyDictionary()
SHARED_MIN_METHODS = 10


def shared_arguments(catalog: Catalog, connector: str) -> dict[str, str]:
    """Arguments a connector's methods document alike (GitHub's ``owner``, Kubernetes' ``namespace``):
    required in some method, in at least a fifth of the methods (and ten), with one first sentence
    in at least 80 % of them. The connector's describe says them once; a compact method describe
    does not repeat them (issue 13: ``owner`` and ``repo`` were ~25 tokens of every GitHub describe).
    """
    by_connector = _SHARED.get(catalog)
    if by_connector is None:
        by_connector = _SHARED[catalog] = {}
    found = by_connector.get(connector)
    if found is not None:
        return found
    methods = list(catalog.methods.get(connector, {}).values())
    seen: dict[str, dict[str, int]] = {}
    needed: set[str] = set()
    for m in methods:
        schema = m.tool.input_schema if isinstance(m.tool.input_schema, Mapping) else {}
        needed |= required_keys(schema)
        for key, sub in object_properties(schema).items():
            text = _first_sentence(_described(sub, schema))
            counts = seen.setdefault(key, {})
            counts[text] = counts.get(text, 0) + 1
    found = {}
    if len(methods) >= SHARED_MIN_METHODS:
        for key, counts in seen.items():
            total = sum(counts.values())
            text, n = max(counts.items(), key=lambda kv: kv[1])
            if key in needed and text and total >= max(SHARED_MIN_METHODS, len(methods) / 5) and n >= 0.8 * total:
                found[key] = text
    by_connector[connector] = found
    return found


# -- a connector ---------------------------------------------------------------------------------


def describe_connector(catalog: Catalog, name: str, *, page: int = 1) -> DescribeOutput:
    """The connector's methods, one line each, ``PAGE_SIZE`` per page (``page`` counts from 1)."""
    c = catalog.connectors[name]
    methods = sorted(catalog.methods[name].values(), key=lambda m: m.name)
    pages = max(1, -(-len(methods) // PAGE_SIZE))
    page = min(max(1, page), pages)
    chunk = methods[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
    instructions = summary_line(c.instructions or f"The {name} connector.", 300)
    lead = f"{len(methods)} methods"
    if pages > 1:
        lead += (f"; page {page} of {pages}" +
                 (f" (codemode.describe({name!r}, page={page + 1}) for the next)" if page < pages else ""))
    shared = shared_arguments(catalog, name)
    common = ("\n\nArguments many methods take:\n" + "\n".join(f"    {k}: {v}" for k, v in sorted(shared.items()))
              if shared else "")
    lines = [f"class {_ident(name)}:\n",
             docstring(f"{instructions}\n\n{lead}. codemode.describe('{name}.<method>') declares one; "
                       f"codemode.search('what you want') finds one.{common}", "    ")]
    for m in chunk:
        required = [k for k in sorted(required_keys(m.tool.input_schema)) if is_identifier(k)]
        args = ", ".join(["self", *(["*", *required] if required else []), "**optional"])
        flag = " [approval]" if m.tool.requires_approval else ""
        summary = comment(summary_line(m.tool.description, 100) + flag)
        lines.append(f"    def {_ident(m.name)}({args}): ...  # {summary}\n")
    types = "".join(lines)
    return DescribeOutput(path=name, description=instructions, requires_approval=False, types=types,
                          kind="connector", page=page, pages=pages)


# -- a snippet -----------------------------------------------------------------------------------


def inferred_input_schema(code: str) -> dict[str, Any] | None:
    """For a snippet saved without an input schema (``%snippet save``, the panel, ``codemode save-snippet``):
    what its code reads of ``input``, as a schema (review 15x, M3). ``input["tag"]`` is a required key,
    ``input.get("tag")`` an optional one; ``None`` when the code never names ``input``."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    named, required, optional = False, [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "input":
            named = True
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "input"
              and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            required.append(node.slice.value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and isinstance(node.func.value, ast.Name) and node.func.value.id == "input" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            optional.append(node.args[0].value)
    if not named:
        return None
    keys = list(dict.fromkeys([*required, *optional]))
    return {"type": "object", "properties": {k: {} for k in keys},
            "required": list(dict.fromkeys(required)), "additionalProperties": True}


def snippet_approvals(code: str, catalog: Catalog) -> list[str]:
    """The methods needing a person's approval that a snippet's code calls (``notes.add_note``), sorted: running it
    may pause there, so search and describe say so (review 16x, M10)."""
    found = {f"{c}.{m}" for c, m in _CALLED.findall(code)
             if (method := catalog.get(c, m)) is not None and method.tool.requires_approval}
    return sorted(found)


_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*\.\s*([A-Za-z_]\w*)\s*\(")


def describe_snippet(name: str, description: str, code: str, input_schema: Any,
                     connectors: list[str], approvals: Sequence[str] = ()) -> DescribeOutput:
    schema = input_schema if isinstance(input_schema, dict) else (inferred_input_schema(code) or {})
    wrapped = {"type": "object", "properties": {"input": schema}, "required": ["input"]} if schema else None
    header = method_stub("run", description=f"codemode.run({name!r}, input): {description}".strip(),
                         input_schema=wrapped or {"type": "object", "properties": {}})
    uses = f"# connectors: {', '.join(connectors) or '(none)'}\n"
    if approvals:
        uses += f"# needs a person's approval: it calls {', '.join(approvals)}\n"
    lines = code.splitlines()
    body = "".join(f"# {_source_line(line)}\n" if line.strip() else "#\n" for line in lines)
    truncated = False
    room = COMPACT_CAP * 2 - len(header) - len(uses)
    if len(body) > room:
        kept, size = [], 0
        for line in body.splitlines(keepends=True):
            if size + len(line) > room - 100:
                break
            kept.append(line)
            size += len(line)
        body = "".join(kept) + f"# note: {len(lines) - len(kept)} more source lines are not shown\n"
        truncated = True
    return DescribeOutput(path=name, description=description, requires_approval=bool(approvals),
                          types=f"{header}\n# snippet source:\n{uses}{body}", kind="snippet", truncated=truncated)


# -- helpers -------------------------------------------------------------------------------------


def _source_line(line: str) -> str:
    """A line of snippet source safe in a comment, indentation kept (control characters become '?')."""
    return "".join("?" if unicodedata.category(ch) in ("Cc", "Cs") else ch for ch in line.rstrip())


def _ident(name: str) -> str:
    ident = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name) or "method"
    return ident if is_identifier(ident) else f"m_{ident}".rstrip("_") + "_"


def _resolve(schema: Any, root: Any) -> Any:
    for _ in range(8):
        if not isinstance(schema, Mapping) or not isinstance(schema.get("$ref"), str):
            return schema
        try:
            schema = json_pointer.resolve(root, schema["$ref"])
        except (LookupError, ValueError):  # not local, or names nothing: keep the reference as it is
            return schema
    return schema


def _structured(schema: Any, root: Any) -> bool:
    """Whether a value of this schema is an object with named fields (or a list of them)."""
    s = _resolve(schema, root)
    if not isinstance(s, Mapping):
        return False
    if object_properties(s):
        return True
    for key in ("allOf", "anyOf", "oneOf"):
        options = s.get(key)
        if isinstance(options, list) and any(_structured(o, root) for o in options):
            return True
    items = s.get("items")
    return s.get("type") == "array" and isinstance(items, Mapping) and _structured(items, root)


def _kind(schema: Any, root: Any) -> str:
    s = _resolve(schema, root)
    if isinstance(s, Mapping) and s.get("type") == "array":
        return "array"
    return "object"


def _shallow(schema: Any) -> Any:
    """A result schema reduced to its outer kind (object, list of objects, string …)."""
    if schema is None:
        return None
    s = _resolve(schema, schema)
    if not isinstance(s, Mapping):
        return None
    kind = s.get("type")
    if kind == "array":
        items = _resolve(s.get("items"), schema)
        inner = items.get("type") if isinstance(items, Mapping) else None
        if object_properties(items) if isinstance(items, Mapping) else False:
            inner = "object"
        return {"type": "array", "items": {"type": inner}} if isinstance(inner, str) else {"type": "array"}
    if isinstance(kind, str) and kind != "object":
        return {"type": kind}
    return {"type": "object"}


def _described(schema: Any, root: Any) -> str:
    for node in (schema, _resolve(schema, root)):
        if isinstance(node, Mapping):
            text = node.get("description")
            if isinstance(text, str) and text.strip():
                return text.strip()
    return ""


_EMPTY_WORDS = frozenset({"parameter", "param", "argument", "field", "value", "the", "a", "an", "of"})


def _says_only_its_name(name: str, doc: str) -> bool:
    """``account_id: account_id parameter`` or ``name: The name.``: a doc that repeats the argument's name."""
    said = {w for w in words(doc) if w not in _EMPTY_WORDS}
    return said <= set(words(name))


def _first_sentence(text: str) -> str:
    return one_line(first_sentence(text), _ARG_DOC)
