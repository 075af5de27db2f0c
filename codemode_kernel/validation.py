"""Argument checks: a method's input schema applied on the host, strictly and in bounded time.

Arguments come from the sandbox, so the check itself is attack surface (issue 10, items 3
and 4). One :class:`InputValidator` per method, built on first use and kept, runs the
schema once per call with jsonschema plus these changes:

- **Linear-time regexes.** ``pattern``, ``patternProperties`` and ``additionalProperties``
  (which consults ``patternProperties``) match with RE2, whose time grows linearly with the
  input; Python's ``re`` backtracks, and ``^([a-z0-9]+)+@x$`` against 30 hostile characters
  held the event loop for seconds (doubling per character). A pattern RE2 cannot run
  (look-around, backreferences) makes the method refuse its calls with a message for the
  connector's author; the schema is not silently weakened. So does ``unevaluatedProperties``
  next to ``patternProperties``: jsonschema would match those patterns with ``re``.
- **Linear ``uniqueItems``.** jsonschema compares every pair of unhashable items; items are
  compared here by a hashable key instead.
- **Strict types.** Decoded values are checked as what the connector will receive: a
  ``bytes``, ``date`` or ``datetime`` is a ``string`` only where the schema says so
  (``contentEncoding: base64`` or ``format: binary`` for bytes, ``format: date`` /
  ``date-time`` for dates, as ``signature.py`` writes for annotated parameters); a
  ``tuple`` is an ``array``. A ``str`` field therefore gets a ``str`` (issue 14, defect 1).
- **No fetching.** A ``$ref`` to a URL is not retrieved (jsonschema would fetch it with
  urllib, from the host); the call fails as a host error instead.
- **Bounded messages.** Each problem is quoted in at most a few hundred characters, so an
  invalid 1 MB argument is not echoed back to the sandbox.

Design log: running validation in a thread under the pass deadline was rejected (``re``
holds the GIL while it backtracks, so the loop stalls anyway, and a thread cannot be
killed); rewriting patterns for ``re`` (atomic groups) is not possible in general.
"""

from __future__ import annotations

import difflib
import itertools
import reprlib
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime
from typing import Any

import jsonschema
import re2  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError, ValidationError
from referencing import Registry

MAX_PROBLEMS = 5
MAX_QUOTE = 200

_SUPPORTED = (jsonschema.Draft4Validator, jsonschema.Draft6Validator, jsonschema.Draft7Validator,
              jsonschema.Draft201909Validator, jsonschema.Draft202012Validator)
# Keywords whose values are data, not schemas: a "pattern" key inside them is not a regex.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # a refused pattern is reported to the caller, not to stderr
    return options


_RE2_OPTIONS = _options()


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a valid JSON Schema (for its own draft), or ``None`` when it is."""
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None


class InputValidator:
    """The compiled input schema of one method (``path`` names it in messages)."""

    def __init__(self, path: str, schema: Mapping[str, Any]) -> None:
        self.path = path
        #: Why calls to this method are refused (a schema that cannot be checked safely), or None.
        self.problem: str | None = None
        self._validator: Any = None
        self._accepts: Callable[[Any], bool] | None = None
        schema = dict(schema)
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        if cls not in _SUPPORTED:
            cls = jsonschema.Draft202012Validator
        try:
            cls.check_schema(schema)
        except SchemaError:
            return  # a connector's broken schema must not block its calls: they go unchecked
        regexes: dict[str, Any] = {}
        keywords: set[str] = set()
        for pattern in _patterns(schema, keywords):
            if pattern in regexes:
                continue
            try:
                regexes[pattern] = re2.compile(pattern, _RE2_OPTIONS)
            except re2.error:
                self.problem = (
                    f"{path} cannot be called: its input schema has the pattern {_quote(pattern)}, which cannot "
                    "be checked in linear time (RE2 syntax has no look-around and no backreferences). The "
                    "connector was not called; the connector's author must rewrite the pattern in RE2 syntax.")
                return
        if "unevaluatedProperties" in keywords and "patternProperties" in keywords:
            self.problem = (
                f"{path} cannot be called: its input schema combines unevaluatedProperties with patternProperties, "
                "which cannot be checked in bounded time. The connector was not called; the connector's author "
                "must drop one of the two.")
            return
        # An empty registry: a "$ref" to a URL stays unresolved. jsonschema's default would fetch
        # it with urllib, from the host, on the event loop, while checking a call.
        self._validator = _extended(cls, regexes)(schema, registry=Registry())
        self._accepts = _quick_check(schema)

    def errors(self, args: Any) -> str | None:
        """None if ``args`` (decoded values) satisfy the schema, else what is wrong (bounded text).

        Raises what the schema check raises (e.g. ``RecursionError`` for a schema that refers
        to itself forever); the caller ends the pass on it.
        """
        if self.problem is not None:
            return self.problem
        if self._validator is None:
            return None
        if self._accepts is not None and self._accepts(args):
            return None
        # One walk: the first few problems, or none (validating twice doubled every attack).
        problems = list(itertools.islice(self._validator.iter_errors(args), MAX_PROBLEMS))
        if not problems:
            return None
        problems.sort(key=lambda e: [str(p) for p in e.absolute_path])
        return "; ".join(_explain(e) for e in problems)


# The quick check (issue 12): most tools take a flat object of scalars, and jsonschema's general
# walk cost ~40 us per call for it, a fifth of a journaled call. For schemas of exactly that
# shape a plain function decides; it only ever *accepts* (an instance it cannot vouch for, such
# as 1.0 for an integer or bytes for a declared string, goes to the full validator, which also
# writes every message), so its verdicts are the full validator's.
_QUICK_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,), "null": (type(None),),
}
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment"})
_QUICK_TOP = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "$schema"}


def _quick_check(schema: Mapping[str, Any]) -> Callable[[Any], bool] | None:
    """A function that returns True only for instances ``schema`` accepts, or None when the schema
    is not a flat object of scalar properties (the full validator then decides every call)."""
    if schema.get("type") != "object" or not set(schema) <= _QUICK_TOP:
        return None
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list) or type(extra) is not bool:
        return None
    kinds: dict[str, tuple[type, ...]] = {}
    for name, sub in properties.items():
        if not isinstance(sub, dict) or not set(sub) <= _ANNOTATIONS | {"type"}:
            return None
        kind = sub.get("type")
        if kind is None and "type" not in sub:
            kinds[name] = ()  # any value
            continue
        if not isinstance(kind, str) or kind not in _QUICK_TYPES:
            return None
        kinds[name] = _QUICK_TYPES[kind]
    if not all(isinstance(r, str) for r in required):
        return None
    needed = frozenset(required)
    closed = not extra

    def accepts(instance: Any) -> bool:
        if type(instance) is not dict or not needed <= instance.keys():
            return False
        for key, value in instance.items():
            allowed = kinds.get(key)
            if allowed is None:
                if closed:
                    return False
            elif allowed and type(value) not in allowed:  # exact types: bool is no integer here
                return False
        return True

    return accepts


def _patterns(schema: Any, keywords: set[str]) -> Iterator[str]:
    """Every regex in a schema (``pattern`` values, ``patternProperties`` keys); notes the keywords seen."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        for key, value in node.items():
            keywords.add(key)
            if key == "pattern" and isinstance(value, str):
                yield value
            elif key == "patternProperties" and isinstance(value, Mapping):
                yield from (k for k in value if isinstance(k, str))
                stack.extend(value.values())
            elif key not in _DATA_KEYWORDS:
                stack.append(value)


def _extended(cls: Any, regexes: Mapping[str, Any]) -> Any:
    """``cls`` with strict types, RE2 patterns and linear uniqueItems."""

    def search(pattern: str, text: str) -> bool:
        regex = regexes.get(pattern)
        if regex is None:  # not a string pattern: jsonschema's schema check let it through
            return False
        try:
            return regex.search(text) is not None
        except UnicodeEncodeError:  # a lone surrogate: RE2 matches UTF-8
            return regex.search(text.encode("utf-8", "replace")) is not None

    def pattern(validator: Any, patrn: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        if validator.is_type(instance, "string") and not search(patrn, instance):
            yield ValidationError(f"{_quote(instance)} does not match {_quote(patrn)}")

    def pattern_properties(validator: Any, pp: Mapping[str, Any], instance: Any,
                           schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in pp.items():
            for key, value in instance.items():
                if search(patrn, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    def additional_properties(validator: Any, ap: Any, instance: Any,
                              schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        properties = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        extras = [k for k in instance if k not in properties and not any(search(p, k) for p in patterns)]
        if validator.is_type(ap, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], ap, path=extra)
        elif ap is False and extras:
            shown = ", ".join(_quote(k) for k in sorted(extras)[:5]) + (", …" if len(extras) > 5 else "")
            yield ValidationError(f"Additional properties are not allowed ({shown} unexpected)")

    def type_(validator: Any, types: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        names = [types] if isinstance(types, str) else list(types)
        if any(validator.is_type(instance, t) for t in names):
            return
        if "string" in names and _declared_string(instance, schema):
            return
        yield ValidationError(f"{_quote(instance)} is not of type {', '.join(map(repr, names))}{_hint(instance)}")

    def unique_items(validator: Any, unique: Any, instance: Any,
                     schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        if unique and validator.is_type(instance, "array"):
            seen: set[Any] = set()
            for item in instance:
                key = _identity(item)
                if key in seen:
                    yield ValidationError(f"has non-unique elements ({_quote(item)} is repeated)")
                    return
                seen.add(key)

    checker = cls.TYPE_CHECKER.redefine_many({
        "string": lambda _c, i: type(i) is str,
        "array": lambda _c, i: type(i) is list or type(i) is tuple,
    })
    return jsonschema.validators.extend(cls, validators={  # type: ignore[no-untyped-call]
        "type": type_, "pattern": pattern, "patternProperties": pattern_properties,
        "additionalProperties": additional_properties, "uniqueItems": unique_items,
    }, type_checker=checker)


def _declared_string(instance: Any, schema: Mapping[str, Any]) -> bool:
    """Whether the schema declares this non-str value as its string form (see the module docstring)."""
    t = type(instance)
    if t is bytes:
        return schema.get("contentEncoding") == "base64" or schema.get("format") == "binary"
    if t is datetime:
        return schema.get("format") == "date-time"
    if t is date:
        return schema.get("format") == "date"
    return False


def _hint(instance: Any) -> str:
    t = type(instance)
    if t is bytes:
        return " (bytes are accepted only where the schema says contentEncoding: base64; pass a str, e.g. .decode())"
    if t is datetime or t is date:
        return f" (a {t.__name__} is accepted only where the schema gives that format; pass a str, e.g. .isoformat())"
    return ""


def _identity(value: Any) -> Any:
    """A hashable key equal for values JSON Schema calls equal (1 == 1.0, True != 1, [] == ())."""
    t = type(value)
    if t is bool:
        return ("bool", value)
    if t is int or t is float:
        return ("number", value)
    if t is list or t is tuple:
        return ("array", tuple(_identity(v) for v in value))
    if t is dict:
        return ("object", frozenset((k, _identity(v)) for k, v in value.items()))
    return (t.__name__, value)


def _short_repr() -> reprlib.Repr:
    short = reprlib.Repr()
    short.maxstring = short.maxother = MAX_QUOTE
    short.maxlist = short.maxtuple = short.maxdict = short.maxset = 10
    short.maxlevel = 3
    return short


_SHORT = _short_repr()


def _quote(value: Any) -> str:
    """A repr of bounded length whose cost is bounded too (no full repr of a large container)."""
    if type(value) is bytes and len(value) > MAX_QUOTE:
        return repr(value[:MAX_QUOTE]) + "…"
    return _SHORT.repr(value)


def _unexpected(e: ValidationError) -> str | None:
    """Keyword arguments the method does not take, in Python's words, each with the name it most likely meant
    (review 16x L10: "Additional properties are not allowed ('timezon' unexpected) (remove the extra argument)"
    for ``timezone``); None when the schema's own message must stand (patternProperties, odd shapes)."""
    schema, instance = e.schema, e.instance
    if not isinstance(schema, Mapping) or not isinstance(instance, Mapping) or schema.get("patternProperties"):
        return None
    known = schema.get("properties")
    names = [k for k in known if isinstance(k, str)] if isinstance(known, Mapping) else []
    taken = set(names)
    extra = [k for k in instance if isinstance(k, str) and k not in taken][:MAX_PROBLEMS]
    if not extra:
        return None
    said, near_any = [], False
    for key in extra:
        # Bounded: a hostile key or a schema with thousands of properties costs no quadratic matching.
        near = (difflib.get_close_matches(key, names, n=1, cutoff=0.6)
                if len(key) <= MAX_QUOTE and len(names) <= 500 else [])
        near_any = near_any or bool(near)
        said.append(f"{_quote(key)} (did you mean {near[0]!r}?)" if near else _quote(key))
    text = f"unexpected argument{'s' if len(extra) > 1 else ''} {', '.join(said)}"
    if not near_any:
        listed = ", ".join(sorted(names)[:20]) + (", …" if len(names) > 20 else "")
        text += f" (it takes {listed})" if names else " (it takes no arguments)"
    return text


def _explain(e: ValidationError) -> str:
    path = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path).lstrip(".")
    path = path if len(path) <= MAX_QUOTE else path[:MAX_QUOTE] + "…"
    where = f"argument {path!r}" if path else "arguments"
    message = e.message if len(e.message) <= 2 * MAX_QUOTE else e.message[: 2 * MAX_QUOTE] + "…"
    if e.validator == "additionalProperties" and not e.absolute_path:
        return _unexpected(e) or f"{message} (remove the extra argument)"
    if e.validator == "required":
        return f"missing required {message.split(' is a required')[0]} argument"
    return f"{where}: {message}"
