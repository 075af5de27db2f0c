"""JSON Schema → Python declarations (keyword signatures, TypedDicts, docstrings).

``describe()`` shows a model (or a person) how to call a method as Python source. The
source must always be valid Python, whatever the schema holds, and must say what the
schema says:

- required keys are plain fields, optional ones ``NotRequired[...]``; optional keyword
  parameters get their JSON Schema ``default`` (or ``...`` when there is none, never
  ``None``: sending ``null`` is not the same as leaving a key out);
- ``enum``/``const`` become ``Literal[...]``; ``nullable`` and ``type: [..., "null"]``
  add ``| None``; ``anyOf``/``oneOf`` become unions; ``allOf`` is merged into one object;
- objects with properties become named ``TypedDict`` classes (the functional syntax when a
  key is not an identifier); objects without properties become ``dict[str, T]``;
  arrays become ``list[T]`` and ``prefixItems`` tuples ``tuple[A, B]``;
- ``$ref`` into ``#/definitions``, ``#/$defs`` or ``#/components/...`` (any local JSON
  pointer) becomes a named declaration, emitted once; cycles refer to the name, and a depth
  and a size budget keep huge schemas (GitHub's) bounded;
- descriptions become docstrings (escaped: newlines, quotes, ``\"\"\"``, backslashes and
  control characters are all safe), with formats and constraints noted.

Anything the generator does not understand becomes ``Any``: it never raises on a schema.

Rejected designs: emitting ``Optional[T] = None`` for optional parameters (it invites
sending ``null``, which many APIs reject); quoting every forward reference instead of
``from __future__ import annotations`` (``"A" | None`` is a runtime error); inlining every
``$ref`` (recursive schemas never end, and GitHub's would print megabytes).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from codemode_kernel import json_pointer
from codemode_kernel.discovery.schema_shapes import (
    ANNOTATION_KEYS,
    extra_items,
    has_type_info,
    looks_like_object,
    merge_all_of,
    object_properties,
    option_hint,
    required_keys,
    types_of,
    union,
    value_type,
)
from codemode_kernel.discovery.stub_text import (
    comment,
    docstring,
    field_doc,
    is_identifier,
    literal_value,
    no_surrogates,
    notes,
    one_line,
    pascal,
    simple_default,
)

__all__ = ["connector_stub", "method_stub", "type_declarations"]

_PRIMS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_TYPING_NAMES = ("Any", "Literal", "Never", "NotRequired", "TypeAlias", "TypedDict")
_RESERVED = frozenset(
    {*_TYPING_NAMES, "str", "int", "float", "bool", "None", "list", "dict", "tuple", "bytes", "object", "type"}
)
_MAX_DEPTH = 24
_MAX_LITERALS = 60


# -- the generator ------------------------------------------------------------------------------


@dataclass
class _Definition:
    name: str
    source: str = ""


@dataclass
class _Builder:
    """Builds the declarations one stub needs; ``root`` is the document ``$ref``s point into."""

    root: Any
    max_definitions: int = 60
    definitions: list[_Definition] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    used_names: set[str] = field(default_factory=set)
    ref_names: dict[str, str] = field(default_factory=dict)
    in_progress: set[str] = field(default_factory=set)
    # References declared as a string alias (``D: TypeAlias = 'dict[str, D]'``, a cycle): at run time the name is a
    # str, so an expression that uses it (``D | None``) must stay a string too.
    string_refs: set[str] = field(default_factory=set)
    forward_hit: bool = False
    budget_noted: bool = False
    in_result: bool = False
    # Which field docs are written: "all" (description and notes, e.g. formats and examples), "root" (the
    # first sentence of each field of the ``root_name`` declaration only) or "none". A describe that would
    # not fit its cap drops docs before it drops declarations (review 14x H1).
    docs: str = "all"
    root_name: str = ""
    # How an object or list with nothing known inside reads: ``dict`` says as much as
    # ``dict[str, Any]`` in fewer tokens (the compact describe uses the short forms).
    open_dict: str = "dict[str, Any]"
    open_list: str = "list[Any]"

    # names -----------------------------------------------------------------------------------

    def fresh_name(self, hint: str) -> str:
        base = pascal(hint)
        if base in _RESERVED or keyword.iskeyword(base):
            base += "Type"
        name = base
        n = 2
        while name in self.used_names:
            name = f"{base}{n}"
            n += 1
        self.used_names.add(name)
        return name

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def budget_left(self) -> bool:
        if len(self.used_names) < self.max_definitions:
            return True
        if not self.budget_noted:
            self.budget_noted = True
            what = "the result has" if self.in_result else "the arguments have"
            self.note(f"{what} more nested types than shown: deeper objects are shown as dict[str, Any]")
        return False

    # references ------------------------------------------------------------------------------

    def resolve(self, ref: str) -> tuple[bool, Any]:
        if ref in ("#", "#/"):  # RFC 6901 reads "#/" as the key "", but schemas that write it mean the root
            return True, self.root
        try:
            return True, json_pointer.resolve(self.root, ref)
        except (LookupError, ValueError):
            return False, None

    def ref_annotation(self, ref: Any, depth: int) -> str:
        if not isinstance(ref, str):
            return "Any"
        if ref in self.ref_names:
            if ref in self.in_progress or ref in self.string_refs:
                self.forward_hit = True
            return self.ref_names[ref]
        found, target = self.resolve(ref)
        if not found:
            self.note(f"$ref {ref!r} could not be resolved; it is typed as Any")
            return "Any"
        if not self.budget_left():
            return self.open_dict if looks_like_object(target) else "Any"
        segment = json_pointer.unescape(ref.rstrip("/").rsplit("/", 1)[-1])
        hint = segment or "Root"
        name = self.fresh_name(unquote(hint))
        self.ref_names[ref] = name
        self.in_progress.add(ref)
        try:
            # An allOf of objects (``Pet = allOf[NewPet, {id}]``) is declared as one TypedDict
            # under the referenced name, not as an alias of an anonymous one.
            shape = (merge_all_of(self.resolve, self.note, target, {ref})
                     if isinstance(target, Mapping) and isinstance(target.get("allOf"), list) else target)
            if looks_like_object(shape) and object_properties(shape):
                self.emit_typeddict(name, shape, depth + 1)
            elif self.emit_alias(name, target, depth + 1):
                self.string_refs.add(ref)
        finally:
            self.in_progress.discard(ref)
        return name

    def field_doc(self, schema: Any) -> str:
        """:func:`field_doc`, following a ``$ref`` for the description when the field has none."""
        if self.docs != "all":
            return ""
        doc = field_doc(schema)
        if not doc and isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
            found, target = self.resolve(schema["$ref"])
            if found and isinstance(target, Mapping):
                description = target.get("description")
                if isinstance(description, str):
                    return description.strip()
        return doc

    # declarations ----------------------------------------------------------------------------

    def emit_alias(self, name: str, schema: Any, depth: int) -> bool:
        """Declare ``name`` as an alias of ``schema``'s type; whether it had to be written as a string."""
        slot = _Definition(name)
        saved = self.forward_hit
        self.forward_hit = False
        expr = self.annotation(schema, name, depth)
        forward = self.forward_hit
        self.forward_hit = saved or forward
        # An alias is evaluated when the module runs: a reference to a declaration that is
        # not finished yet (a cycle) must stay a string.
        value = repr(expr) if forward else expr
        text = f"{name}: TypeAlias = {value}\n"
        doc = field_doc(schema) if self.docs == "all" else ""
        if doc:
            text += docstring(doc, "")
        slot.source = text
        self.definitions.append(slot)
        return forward

    def emit_typeddict(self, name: str, schema: Mapping[str, Any], depth: int) -> None:
        props, required, extra = object_properties(schema), required_keys(schema), extra_items(schema)
        fields: list[tuple[str, str, str]] = []
        saved = self.forward_hit
        self.forward_hit = False
        short = self.docs == "root" and name == self.root_name
        for key, sub in props.items():
            ann = self.annotation(sub, f"{name} {key}", depth + 1)
            if key not in required:
                ann = f"NotRequired[{ann}]"
            fields.append((key, ann, _short_doc(sub) if short else self.field_doc(sub)))
        forward = self.forward_hit
        self.forward_hit = saved or forward
        doc_parts: list[str] = []
        description = schema.get("description")
        documented = self.docs == "all" or name == self.root_name
        if isinstance(description, str) and description.strip() and documented:
            doc_parts.append(description.strip() if self.docs == "all" else _short_doc(schema))
        if extra is not None:
            doc_parts.append(f"Other keys are allowed too (values: {extra}).")
        if self.docs == "all":
            doc_parts.extend(n for n in notes(schema) if not n.startswith("Default"))
        if all(is_identifier(key) for key in props):
            lines = [f"class {name}(TypedDict):\n"]
            if doc_parts:
                lines.append(docstring("\n\n".join(doc_parts), "    "))
            for key, ann, fdoc in fields:
                lines.append(f"    {key}: {ann}\n")
                if fdoc:
                    lines.append(docstring(fdoc, "    "))
            if not fields and not doc_parts:
                lines.append("    pass\n")
            source = "".join(lines)
        else:
            # Keys that are not identifiers need the functional syntax, which evaluates its
            # annotations at once: forward references stay strings.
            comments = [f"# {name}: {comment(' '.join(doc_parts))}\n"] if doc_parts else []
            comments += [f"#   {key!r}: {comment(fdoc)}\n" for key, _ann, fdoc in fields if fdoc]
            items = ", ".join(f"{_py_str(key)}: {repr(ann) if forward else ann}" for key, ann, _ in fields)
            source = "".join(comments) + f"{name} = TypedDict({name!r}, {{{items}}})\n"
        self.definitions.append(_Definition(name, source))

    # annotations -----------------------------------------------------------------------------

    def annotation(self, schema: Any, hint: str, depth: int) -> str:
        """The Python type expression for ``schema``; may add declarations."""
        if schema is True or schema is None:
            return "Any"
        if schema is False:
            return "Never"
        if not isinstance(schema, Mapping):
            self.note(f"a schema of type {type(schema).__name__} was not understood; it is typed as Any")
            return "Any"
        if depth > _MAX_DEPTH:
            return "Any"
        nullable = schema.get("nullable") is True
        expr = self._annotation(schema, hint, depth)
        return union([expr, "None"]) if nullable else expr

    def _annotation(self, schema: Mapping[str, Any], hint: str, depth: int) -> str:
        if "$ref" in schema:
            rest = {k: v for k, v in schema.items()
                    if k not in ANNOTATION_KEYS and k not in ("$ref", "nullable", "$defs", "definitions")}
            if not rest:
                return self.ref_annotation(schema["$ref"], depth)
            return self.annotation({"allOf": [{"$ref": schema["$ref"]}, rest]}, hint, depth + 1)
        if isinstance(schema.get("allOf"), list):
            merged = merge_all_of(self.resolve, self.note, schema, set())
            return self.annotation(merged, hint, depth + 1)
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
                if not any(has_type_info(o) for o in options):
                    return self.annotation(base, hint, depth + 1)
                parts: list[str] = []
                base_typed = has_type_info(base)
                for i, option in enumerate(options):
                    sub = {"allOf": [base, option]} if base_typed and isinstance(option, Mapping) else option
                    parts.append(self.annotation(sub, f"{hint} {option_hint(option, i)}", depth + 1))
                return union(parts)
        if "const" in schema:
            literal = literal_value(schema["const"])
            return f"Literal[{literal}]" if literal is not None else value_type(schema["const"])
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            literals = [literal_value(v) for v in enum]
            if all(lit is not None for lit in literals) and len(enum) <= _MAX_LITERALS:
                non_null = [lit for lit in literals if lit is not None and lit != "None"]
                parts = [f"Literal[{', '.join(dict.fromkeys(non_null))}]"] if non_null else []
                if len(non_null) < len(literals):
                    parts.append("None")
                return union(parts)
            return union([value_type(v) for v in enum])
        types = types_of(schema)
        if not types:
            return "Any"
        return union([self._typed(schema, t, hint, depth) for t in types])

    def _typed(self, schema: Mapping[str, Any], t: str, hint: str, depth: int) -> str:
        if t in _PRIMS:
            return _PRIMS[t]
        if t == "array":
            return self._array(schema, hint, depth)
        if t == "object":
            return self._object(schema, hint, depth)
        self.note(f"type {t!r} is not a JSON Schema type; it is typed as Any")
        return "Any"

    def _array(self, schema: Mapping[str, Any], hint: str, depth: int) -> str:
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if not isinstance(prefix, list) and isinstance(items, list):
            prefix, items = items, schema.get("additionalItems", True)  # draft 4-2019 tuple form
        if isinstance(prefix, list) and prefix:
            parts = [self.annotation(p, f"{hint} item{i}", depth + 1) for i, p in enumerate(prefix)]
            max_items = schema.get("maxItems")
            closed = items is False or (isinstance(max_items, int) and max_items <= len(prefix))
            if not closed:
                rest = "Any" if items is None or items is True else self.annotation(items, f"{hint} item", depth + 1)
                parts.append(f"*tuple[{rest}, ...]")
            return f"tuple[{', '.join(parts)}]"
        if items is None or items is True or isinstance(items, list):
            return self.open_list
        return f"list[{self.annotation(items, f'{hint} item', depth + 1)}]"

    def _object(self, schema: Mapping[str, Any], hint: str, depth: int) -> str:
        props = object_properties(schema)
        if not props:
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping) and extra:
                return f"dict[str, {self.annotation(extra, f'{hint} value', depth + 1)}]"
            patterns = schema.get("patternProperties")
            if isinstance(patterns, Mapping) and len(patterns) == 1:
                only = next(iter(patterns.values()))
                return f"dict[str, {self.annotation(only, f'{hint} value', depth + 1)}]"
            return self.open_dict
        if not self.budget_left():
            return self.open_dict
        title = schema.get("title")
        use_title = isinstance(title, str) and title.strip() and " " not in title.strip()
        name = self.fresh_name(title if use_title else hint)  # type: ignore[arg-type]
        self.emit_typeddict(name, schema, depth + 1)
        return name

    def extra_items(self, schema: Mapping[str, Any], depth: int) -> str | None:
        extra = schema.get("additionalProperties")
        if extra is True or (isinstance(extra, Mapping) and not extra):
            return "Any"
        if isinstance(extra, Mapping):
            return self.annotation(extra, "Extra", depth + 1)
        return None


def _py_str(text: str) -> str:
    return repr(no_surrogates(text))


def _short_doc(schema: Any) -> str:
    """The first sentence of a schema's description (no notes), at most 90 characters."""
    description = schema.get("description") if isinstance(schema, Mapping) else None
    lines = description.strip().splitlines() if isinstance(description, str) else []
    first = lines[0] if lines else ""
    for stop in (". ", "? ", "! "):
        first = first.split(stop, 1)[0] + stop.strip() if stop in first else first
    return one_line(first, 90)


# -- public functions ---------------------------------------------------------------------------


def _imports(body: str) -> str:
    used = [n for n in _TYPING_NAMES if re.search(rf"\b{n}\b", body)]
    head = "from __future__ import annotations\n\n"
    if used:
        head += f"from typing import {', '.join(used)}\n"
    return head


def _function_name(name: str) -> tuple[str, str | None]:
    """A valid function name for ``name`` (``github.list_repos`` → ``list_repos``), and the full path."""
    last = name.rsplit(".", 1)[-1]
    ident = re.sub(r"[^0-9A-Za-z_]+", "_", last).strip("_") or "method"
    if ident[0].isdigit():
        ident = "m_" + ident
    if keyword.iskeyword(ident) or keyword.issoftkeyword(ident):
        ident += "_"
    return ident, (name if name != ident else None)


def method_stub(
    name: str,
    *,
    description: str,
    input_schema: Mapping[str, Any] | None,
    output_schema: Mapping[str, Any] | None = None,
    requires_approval: bool = False,
    root: Mapping[str, Any] | None = None,
    max_definitions: int = 60,
    max_result_definitions: int = 25,
    width: int = 90,
    fill: bool = False,
    short: bool = False,
) -> str:
    """Python declarations for calling one method: TypedDicts, then a keyword signature.

    ``root`` is the document ``$ref``s resolve against (default: the input schema for the
    arguments and the output schema for the result, so ``#/$defs/...`` inside each works).
    The arguments get up to ``max_definitions`` named types, the result up to
    ``max_result_definitions`` more (deeper objects are ``dict[str, Any]``): a result type
    matters less than the arguments, and real APIs return very large objects. The output
    is always valid Python. A signature longer than ``width`` puts one parameter per line, or
    with ``fill`` as many as fit in ``width`` (a compact form: twenty arguments in five lines).
    ``short`` writes open objects and lists as ``dict`` and ``list`` (the same meaning).
    """
    func, path = _function_name(name)
    schema: Any = input_schema if input_schema is not None else {"type": "object", "properties": {}}
    builder = _Builder(root=root if root is not None else schema, max_definitions=max_definitions)
    if short:
        builder.open_dict, builder.open_list = "dict", "list"
    builder.used_names.add(func)
    base_name = pascal(func)

    params: list[str] = []
    arg_docs: list[str] = []
    call_note = ""
    resolved = _resolve_top(builder, schema)
    props = object_properties(resolved) if isinstance(resolved, Mapping) else {}
    required = required_keys(resolved) if isinstance(resolved, Mapping) else set()
    keyword_style = (isinstance(resolved, Mapping) and looks_like_object(resolved)
                     and all(is_identifier(k) for k in props))
    if keyword_style and props:
        req_params: list[str] = []
        opt_params: list[str] = []
        for key, sub in props.items():
            ann = builder.annotation(sub, f"{base_name} {key}", 1)
            documented = sub
            if key in required:
                req_params.append(f"{key}: {ann}")
            else:
                default = simple_default(sub.get("default")) if isinstance(sub, Mapping) and "default" in sub else None
                opt_params.append(f"{key}: {ann} = {default if default is not None else '...'}")
                if default is not None and isinstance(sub, Mapping):  # the signature shows it: no "Default: 30."
                    documented = {k: v for k, v in sub.items() if k != "default"}
            doc = builder.field_doc(documented)
            flag = "" if key in required else " (optional)"
            if doc:  # the signature already names every argument; a bare name here says nothing more
                arg_docs.append(f"{key}{flag}: {doc}")
        extra = builder.extra_items(resolved, 1)
        params = ["*", *req_params, *opt_params]
        if extra is not None:
            rest = "kwargs"
            while rest in props:
                rest = "more_" + rest
            params.append(f"**{rest}: {extra}")
    elif keyword_style and not props:
        extra = builder.extra_items(resolved, 1) if isinstance(resolved, Mapping) else None
        if extra is not None:
            params = [f"**kwargs: {extra}"]
    else:
        ann = builder.annotation(schema, f"{base_name} Input", 1)
        params = [f"args: {ann}", "/"]
        call_note = (f"Call it with one dict argument, e.g. {path or func}({{...}}): "
                     "some argument names are not Python identifiers.")

    builder.root = output_schema if root is None else root
    builder.max_definitions = len(builder.used_names) + max_result_definitions
    builder.budget_noted = False
    builder.in_result = True
    returns = builder.annotation(output_schema, f"{base_name} Result", 1) if output_schema is not None else "Any"

    doc_parts = [description.strip() or "(no description)"]
    if call_note:
        doc_parts.append(call_note)
    if arg_docs:
        doc_parts.append("Args:\n" + "\n".join("    " + one_line(d, 400) for d in arg_docs))
    if isinstance(output_schema, Mapping):
        out_doc = field_doc(output_schema)
        if out_doc:
            doc_parts.append("Returns:\n    " + one_line(out_doc, 400))
    if requires_approval:
        doc_parts.append("Requires human approval: the pass pauses at this call until it is approved.")

    body_parts = [d.source for d in builder.definitions]
    head_comments = "".join(f"# note: {comment(n)}\n" for n in builder.notes)
    if path:
        head_comments = f"# {comment(path)}\n" + head_comments
    joined = ", ".join(params)
    if len(joined) + len(func) + len(returns) > width:
        joined = "\n" + "".join(f"    {line},\n" for line in (_filled(params, width - 5) if fill else params))
    # The docstring is the body: a ``...`` after it would say nothing more.
    signature = f"def {func}({joined}) -> {returns}:\n" + docstring("\n\n".join(doc_parts), "    ")
    body = "\n\n".join([*body_parts, head_comments + signature])
    return _imports(body) + "\n\n" + body


def _filled(params: Sequence[str], width: int) -> list[str]:
    """Parameters joined into lines of at most ``width`` characters (a longer one gets a line alone)."""
    lines: list[str] = []
    for p in params:
        if lines and len(lines[-1]) + 2 + len(p) <= width:
            lines[-1] += ", " + p
        else:
            lines.append(p)
    return lines


def type_declarations(schema: Any, name: str, *, root: Mapping[str, Any] | None = None,
                      max_definitions: int = 60, docs: str = "all", in_result: bool = False) -> str:
    """Declarations for one schema as a named type (``name``), e.g. a snippet's input.

    At most ``max_definitions`` named types, ``name`` included (deeper objects are ``dict[str, Any]``):
    a schema that is a ``$ref`` to an object is declared as ``name`` itself, so its own fields are
    shown even when no other definition is. ``docs``: "all", "root" (short docs on ``name``'s fields
    only) or "none". ``in_result``: the schema is a method's result (the notes say so).
    """
    builder = _Builder(root=root if root is not None else schema, max_definitions=max_definitions,
                       docs=docs, in_result=in_result)
    alias = builder.root_name = builder.fresh_name(name)
    top = schema
    plain_ref = isinstance(schema, Mapping) and all(k in ANNOTATION_KEYS or k in ("$ref", "$defs", "definitions")
                                                    for k in schema)
    ref = schema.get("$ref") if plain_ref and isinstance(schema, Mapping) else None
    if isinstance(ref, str):
        found, target = builder.resolve(ref)
        if found and isinstance(target, Mapping) and looks_like_object(target) and object_properties(target):
            builder.ref_names[ref] = alias  # a field that refers back to the root names it
            builder.in_progress.add(ref)
            top = target
    if looks_like_object(top) and isinstance(top, Mapping) and object_properties(top):
        builder.emit_typeddict(alias, top, 1)
        builder.in_progress.clear()
    else:
        builder.emit_alias(alias, schema, 1)
    notes = "".join(f"# note: {comment(n)}\n" for n in builder.notes)
    body = notes + "\n\n".join(d.source for d in builder.definitions)
    return _imports(body) + "\n\n" + body


def _resolve_top(builder: _Builder, schema: Any) -> Any:
    """The top-level input schema with a top-level ``$ref``/``allOf`` flattened."""
    for _ in range(8):
        if not isinstance(schema, Mapping):
            return schema
        if "$ref" in schema and isinstance(schema["$ref"], str):
            found, target = builder.resolve(schema["$ref"])
            if not found:
                return schema
            schema = target
            continue
        if isinstance(schema.get("allOf"), list):
            return merge_all_of(builder.resolve, builder.note, schema, set())
        return schema
    return schema


def connector_stub(
    name: str, instructions: str | None, methods: Sequence[tuple[str, str, bool]], limit: int = 40
) -> str:
    """A class listing a connector's methods (name, first description line), at most ``limit``."""
    cls, _path = _function_name(name)
    out = [f"class {cls}:\n", docstring(instructions or f"The {name} connector.", "    ")]
    for mname, desc, approval in list(methods)[:limit]:
        func, _ = _function_name(mname)
        first = one_line((desc.strip().splitlines() or [""])[0], 160)
        note = " (requires approval)" if approval else ""
        hint = f"Full declaration: codemode.describe('{name}.{func}')."
        out.append(f"\n    def {func}(self, **kwargs: Any) -> Any:\n"
                   f"{docstring((first + note).strip() + chr(10) + chr(10) + hint, '        ')}        ...\n")
    if len(methods) > limit:
        out.append(f"\n    # … and {len(methods) - limit} more methods: use codemode.search(query) to find them.\n")
    body = "".join(out)
    return _imports(body) + "\n\n" + body
