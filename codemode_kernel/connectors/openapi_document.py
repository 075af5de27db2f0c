"""An OpenAPI 3.0/3.1 document read into operations with one JSON Schema input each.

:class:`OpenApiDocument` parses the text (JSON or YAML), resolves local ``$ref``s and
turns every operation into an :class:`Operation`: a method name (``operationId``
sanitized; otherwise HTTP method + path), its parameters and request body merged into one
input object, an output schema from the first 2xx response, and the description.

Schemas. OpenAPI 3.0 schemas are converted to JSON Schema (``nullable`` → ``"null"`` in
the type, boolean ``exclusiveMinimum``/``exclusiveMaximum`` → numbers). References to
``#/components/schemas/X`` stay references, rewritten to ``#/$defs/X``, and each input or
output schema carries the ``$defs`` it needs (transitively): recursive schemas work, and
the runtime's validator and ``describe()`` both see a self-contained schema. Other local
references (parameters, request bodies, responses, schemas deep inside another schema) are
inlined; a cycle among those is an error naming the path. ``readOnly`` properties are
left out of request schemas. External references (other files, URLs) are not fetched:
they accept anything, and say so in their description.

Every problem names where in the document it is (``paths./pets.get.parameters[0]``).
No network here: :mod:`codemode_kernel.connectors.openapi` fetches URLs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import yaml

from codemode_kernel import json_pointer
from codemode_kernel.connectors.base import sanitize_identifier
from codemode_kernel.errors import ConfigurationError

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
Location = Literal["path", "query", "header", "cookie"]
Mode = Literal["request", "response"]
_SCHEMA_PREFIX = "#/components/schemas/"
_JSON_TYPES = ("application/json",)
_ANNOTATIONS = frozenset({"description", "title", "example", "examples", "deprecated", "readOnly", "writeOnly",
                          "default"})


@dataclass(frozen=True)
class Parameter:
    """One path, query, header or cookie parameter; ``key`` is its name in the input object."""

    name: str
    key: str
    location: Location
    required: bool
    schema: Mapping[str, Any]
    style: str
    explode: bool
    json_content: bool = False


@dataclass(frozen=True)
class RequestBody:
    """The request body: sent as ``content_type``; ``key`` is None when its properties are merged."""

    content_type: str
    key: str | None
    required: bool


@dataclass(frozen=True)
class Operation:
    name: str
    operation_id: str | None
    http_method: str
    path: str
    description: str
    parameters: tuple[Parameter, ...]
    body: RequestBody | None
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    open_security: bool
    tags: tuple[str, ...] = ()


#: How many nodes YAML aliases may add to a document once each is expanded (a shared node counts once
#: per place it appears). Walkers expand them: a 0.8 KB document of nine levels of nine aliases is
#: 387 million nodes, and describing one method took seconds and gigabytes (review 13).
MAX_ALIAS_EXPANSION = 1_000_000
_ANCHOR = re.compile(r"(?:^|[\s\[{,:-])&[^\s]")


def parse_text(text: str, source: str) -> Any:
    """JSON or YAML text → data; an error names the source and the line."""
    stripped = text.lstrip()
    try:
        if stripped.startswith("{"):
            return json.loads(text)
        data = yaml.safe_load(text)
        if _ANCHOR.search(text):  # no anchor, no alias: a plain document is not walked again
            _check_aliases(data, source)
        return data
    except json.JSONDecodeError as exc:
        raise ConfigurationError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise ConfigurationError(f"{source}: not valid YAML{where}: {getattr(exc, 'problem', exc)}.") from None


def _check_aliases(data: Any, source: str) -> None:
    """Refuse a document whose aliases nest into itself or expand past :data:`MAX_ALIAS_EXPANSION`."""
    sizes: dict[int, int] = {}  # expanded node count of each container, by identity
    unique = 0
    stack: list[tuple[Any, bool]] = [(data, False)]
    open_: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        if not isinstance(node, dict | list):
            continue
        key = id(node)
        items = list(node.values()) if isinstance(node, dict) else node
        if children_done:
            open_.discard(key)
            sizes[key] = 1 + sum(sizes.get(id(c), 1) for c in items)
            continue
        if key in sizes:
            continue
        if key in open_:
            raise ConfigurationError(f"{source}: a YAML alias refers to a node that contains it, so the document "
                                     "never ends; remove the anchor (&) and alias (*) that nest.")
        open_.add(key)
        unique += 1
        stack.append((node, True))
        stack.extend((c, False) for c in items if isinstance(c, dict | list) and id(c) not in sizes)
    expanded = sizes.get(id(data), 1)
    if expanded - unique > MAX_ALIAS_EXPANSION:
        raise ConfigurationError(f"{source}: its YAML aliases (*) expand to {expanded:,} nodes, more than the "
                                 f"{MAX_ALIAS_EXPANSION:,} a document may add that way; write the shared parts "
                                 "once under components and refer to them with $ref.")


def _camel_to_snake(text: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text).lower()


class OpenApiDocument:
    """A parsed OpenAPI 3.x document; ``source`` (a path or URL) is used in messages."""

    def __init__(self, data: Any, source: str) -> None:
        self.source = source
        if not isinstance(data, Mapping):
            raise ConfigurationError(f"{source}: an OpenAPI document must be a JSON/YAML object; got "
                                     f"{type(data).__name__}.")
        version = data.get("openapi")
        if not isinstance(version, str) or not version.startswith("3."):
            hint = (" Swagger 2.0 documents are not supported: convert it to OpenAPI 3 first (e.g. with "
                    "swagger2openapi)." if "swagger" in data else "")
            raise ConfigurationError(f"{source}: `openapi` must be a 3.x version string; got {version!r}.{hint}")
        if not isinstance(data.get("paths", {}), Mapping):
            raise ConfigurationError(f"{source}: `paths` must be an object mapping paths to path items.")
        self.data = data
        self.version = version
        info = data.get("info") if isinstance(data.get("info"), Mapping) else {}
        self.title = str(info.get("title") or "") if isinstance(info, Mapping) else ""
        self.description = str(info.get("description") or "") if isinstance(info, Mapping) else ""
        self._components: dict[tuple[str, Mode], Any] = {}

    # -- errors and references -------------------------------------------------------------------

    def error(self, where: str, problem: str) -> ConfigurationError:
        return ConfigurationError(f"{self.source}: {where}: {problem}")

    def resolve(self, ref: Any, where: str) -> Any:
        if not isinstance(ref, str):
            raise self.error(where, f"$ref must be a string; got {ref!r}.")
        if not json_pointer.is_local(ref):
            raise self.error(where, f"$ref {ref!r} points outside this document; only local references "
                                    "(#/...) are supported.")
        try:
            return json_pointer.resolve(self.data, ref)
        except json_pointer.Unresolved as exc:
            raise self.error(where, f"{exc}.") from None

    def deref(self, node: Any, where: str) -> Any:
        """Follow ``$ref`` chains of a non-schema object (parameter, body, response)."""
        seen: list[str] = []
        while isinstance(node, Mapping) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                raise self.error(where, f"$ref cycle: {' -> '.join([*seen, str(ref)])}.")
            seen.append(ref)
            node = self.resolve(ref, where)
        return node

    # -- schemas ---------------------------------------------------------------------------------

    def schema(self, node: Any, where: str, mode: Mode, defs: set[str]) -> Any:
        """``node`` as JSON Schema; names of ``#/components/schemas`` it uses are added to ``defs``."""
        return self._convert(node, where, mode, defs, ())

    def _convert(self, node: Any, where: str, mode: Mode, defs: set[str], inlining: tuple[str, ...]) -> Any:
        if isinstance(node, bool):
            return node
        if not isinstance(node, Mapping):
            if isinstance(node, list):
                return [self._convert(v, f"{where}[{i}]", mode, defs, inlining) for i, v in enumerate(node)]
            return node
        if "$ref" in node:
            ref = node["$ref"]
            rest = {k: v for k, v in node.items() if k not in ("$ref", "nullable")}
            if isinstance(ref, str) and not ref.startswith("#"):
                out: dict[str, Any] = {"description": f"(external reference {ref} not loaded: any value)"}
            elif isinstance(ref, str) and ref.startswith(_SCHEMA_PREFIX) and "/" not in ref[len(_SCHEMA_PREFIX):]:
                name = json_pointer.tokens(ref)[-1]
                self.resolve(ref, where)  # fail early, naming the place that refers
                defs.add(name)
                out = {"$ref": "#/$defs/" + json_pointer.escape(name)}
            else:
                if ref in inlining:
                    raise self.error(where, f"$ref cycle through {ref!r} outside #/components/schemas.")
                target = self.resolve(ref, where)
                converted = self._convert(target, where, mode, defs, (*inlining, str(ref)))
                out = dict(converted) if isinstance(converted, Mapping) else {"allOf": [converted]}
            if rest:
                extra = self._convert(rest, where, mode, defs, inlining)
                if isinstance(extra, Mapping) and not set(extra) - _ANNOTATIONS:
                    out = {**out, **extra}  # $ref beside annotations only (2020-12 allows siblings)
                else:
                    out = {"allOf": [out, extra]}
            if node.get("nullable") is True:  # OpenAPI 3.0: {$ref: X, nullable: true}
                out = {"anyOf": [out, {"type": "null"}]}
            return out
        out = {}
        for key, value in node.items():
            sub = f"{where}.{key}"
            if key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
                if not isinstance(value, Mapping):
                    raise self.error(sub, f"must be an object; got {type(value).__name__}.")
                out[key] = {k: self._convert(v, f"{sub}.{k}", mode, defs, inlining) for k, v in value.items()}
            elif key in ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then",
                         "else", "unevaluatedProperties", "unevaluatedItems", "additionalItems"):
                out[key] = self._convert(value, sub, mode, defs, inlining)
            elif key in ("allOf", "anyOf", "oneOf", "prefixItems"):
                if not isinstance(value, list):
                    raise self.error(sub, f"must be a list; got {type(value).__name__}.")
                out[key] = [self._convert(v, f"{sub}[{i}]", mode, defs, inlining) for i, v in enumerate(value)]
            elif key in ("discriminator", "xml", "externalDocs", "example", "examples", "nullable"):
                if key in ("example", "examples"):
                    out[key] = value
            else:
                out[key] = value
        _openapi30_to_json_schema(node, out)
        if mode == "request":
            _drop_read_only(out)
        return out

    def component(self, name: str, mode: Mode) -> Any:
        """``#/components/schemas/<name>`` converted, cached per mode."""
        key = (name, mode)
        if key not in self._components:
            self._components[key] = {}  # placeholder: recursive components refer by name only
            defs: set[str] = set()
            node = self.resolve(_SCHEMA_PREFIX + json_pointer.escape(name), f"components.schemas.{name}")
            converted = self.schema(node, f"components.schemas.{name}", mode, defs)
            self._components[key] = (converted, frozenset(defs))
        value = self._components[key]
        return value[0] if isinstance(value, tuple) else {}

    def closure(self, names: set[str], mode: Mode) -> dict[str, Any]:
        """Every component schema ``names`` need, transitively, converted."""
        out: dict[str, Any] = {}
        todo = sorted(names)
        while todo:
            name = todo.pop()
            if name in out:
                continue
            out[name] = self.component(name, mode)
            entry = self._components.get((name, mode))
            if isinstance(entry, tuple):
                todo.extend(n for n in entry[1] if n not in out)
        return out

    def with_defs(self, schema: Any, names: set[str], mode: Mode) -> Any:
        if not names or not isinstance(schema, Mapping):
            return schema
        return {**schema, "$defs": self.closure(names, mode)}

    # -- operations ------------------------------------------------------------------------------

    def operations(self, skip_params: set[tuple[str, str]] | None = None) -> list[Operation]:
        """Every operation; ``skip_params`` are (location, lower-case name) pairs the host fills in (auth)."""
        skip = skip_params or set()
        out: list[Operation] = []
        paths = self.data.get("paths") or {}
        for path, item in paths.items():
            where = f"paths.{path}"
            if not isinstance(path, str) or not path.startswith("/"):
                raise self.error(where, "a path must be a string starting with '/'.")
            item = self.deref(item, where)
            if not isinstance(item, Mapping):
                raise self.error(where, f"a path item must be an object; got {type(item).__name__}.")
            shared = item.get("parameters", [])
            for method in HTTP_METHODS:
                op = item.get(method)
                if op is None:
                    continue
                if not isinstance(op, Mapping):
                    raise self.error(f"{where}.{method}", f"an operation must be an object; got {type(op).__name__}.")
                out.append(self._operation(path, method, op, shared, skip))
        return out

    def _operation(self, path: str, method: str, op: Mapping[str, Any], shared: Any,
                   skip: set[tuple[str, str]]) -> Operation:
        where = f"paths.{path}.{method}"
        operation_id = op.get("operationId")
        if operation_id is not None and not isinstance(operation_id, str):
            raise self.error(f"{where}.operationId", f"must be a string; got {operation_id!r}.")
        name = sanitize_identifier(operation_id) if operation_id else _fallback_name(method, path)
        params = self._parameters(where, shared, op.get("parameters", []), skip)
        defs_in: set[str] = set()
        properties: dict[str, Any] = {}
        required: list[str] = []
        parameters: list[Parameter] = []
        for raw_where, p in params:
            schema, json_content = self._parameter_schema(p, raw_where, defs_in)
            key = _param_key(p["name"], p["in"], properties)
            properties[key] = schema
            is_required = bool(p.get("required")) or p["in"] == "path"
            if is_required:
                required.append(key)
            style = p.get("style") or ("form" if p["in"] in ("query", "cookie") else "simple")
            explode = p.get("explode", style == "form")
            parameters.append(Parameter(p["name"], key, p["in"], is_required, schema, str(style), bool(explode),
                                        json_content))
        body, extra = self._body(where, op.get("requestBody"), properties, required, defs_in)
        input_schema: dict[str, Any] = {"type": "object", "properties": properties,
                                        "additionalProperties": extra}
        if required:
            input_schema["required"] = required
        input_schema = self.with_defs(input_schema, defs_in, "request")
        output_schema = self._output(where, op.get("responses"))
        security = op.get("security")
        raw_tags = op.get("tags")
        tags = tuple(t for t in raw_tags if isinstance(t, str)) if isinstance(raw_tags, list) else ()
        return Operation(
            name=name, operation_id=operation_id, http_method=method.upper(), path=path,
            description=_description(op, method, path), parameters=tuple(parameters), body=body,
            input_schema=input_schema, output_schema=output_schema,
            open_security=isinstance(security, list) and not security, tags=tags,
        )

    def _parameters(self, where: str, shared: Any, own: Any,
                    skip: set[tuple[str, str]]) -> list[tuple[str, Mapping[str, Any]]]:
        merged: dict[tuple[str, str], tuple[str, Mapping[str, Any]]] = {}
        for label, items in (("parameters", shared), ("parameters", own)):
            if not isinstance(items, list):
                raise self.error(f"{where}.{label}", f"must be a list; got {type(items).__name__}.")
            for i, raw in enumerate(items):
                pw = f"{where}.{label}[{i}]"
                p = self.deref(raw, pw)
                if not isinstance(p, Mapping):
                    raise self.error(pw, f"a parameter must be an object; got {type(p).__name__}.")
                name, location = p.get("name"), p.get("in")
                if not isinstance(name, str) or not name:
                    raise self.error(pw, "a parameter needs a `name` (a non-empty string).")
                if location not in ("path", "query", "header", "cookie"):
                    raise self.error(pw, f"parameter {name!r}: `in` must be path, query, header or cookie; "
                                         f"got {location!r}.")
                if (location, name.lower()) in skip or (location == "header" and name.lower() in (
                        "accept", "content-type", "authorization")):
                    continue
                merged[(location, name)] = (pw, p)
        return list(merged.values())

    def _parameter_schema(self, p: Mapping[str, Any], where: str, defs: set[str]) -> tuple[Any, bool]:
        json_content = False
        if "schema" in p:
            schema = self.schema(p["schema"], f"{where}.schema", "request", defs)
        elif isinstance(p.get("content"), Mapping) and p["content"]:
            media = next(iter(p["content"].values()))
            schema = self.schema(media.get("schema", {}) if isinstance(media, Mapping) else {},
                                 f"{where}.content", "request", defs)
            json_content = True
        else:
            schema = {"type": "string"}
        if not isinstance(schema, Mapping):
            schema = {} if schema is True else {"not": {}}
        schema = dict(schema)
        description = p.get("description")
        if isinstance(description, str) and description.strip() and "description" not in schema:
            schema["description"] = description.strip()
        if p.get("deprecated") is True:
            schema["deprecated"] = True
        return schema, json_content

    def _body(self, where: str, raw: Any, properties: dict[str, Any], required: list[str],
              defs: set[str]) -> tuple[RequestBody | None, Any]:
        if raw is None:
            return None, False
        bw = f"{where}.requestBody"
        body = self.deref(raw, bw)
        if not isinstance(body, Mapping) or not isinstance(body.get("content"), Mapping):
            raise self.error(bw, "a request body needs a `content` object (media type → schema).")
        content: Mapping[str, Any] = body["content"]
        content_type = _pick_content_type(list(content))
        if content_type is None:
            return None, False
        media = content[content_type] if isinstance(content[content_type], Mapping) else {}
        schema = self.schema(media.get("schema", {}), f"{bw}.content.{content_type}.schema", "request", defs)
        is_required = body.get("required") is True
        description = body.get("description")
        flat = self._flat_object(schema) if _mergeable(content_type) else None
        if flat is not None and not (set(flat[0]) & set(properties)):
            props, req, extra = flat
            properties.update(props)
            if is_required:
                required.extend(r for r in req if r in props)
            return RequestBody(content_type, None, is_required), extra
        key = "body" if "body" not in properties else "request_body"
        if isinstance(schema, Mapping) and isinstance(description, str) and "description" not in schema:
            schema = {**schema, "description": description.strip()}
        properties[key] = schema
        if is_required:
            required.append(key)
        return RequestBody(content_type, key, is_required), False

    def _flat_object(self, schema: Any) -> tuple[dict[str, Any], list[str], Any] | None:
        """Properties, required keys and extra-keys rule of an object schema, through $ref/allOf; else None."""
        schema = self._local(schema)
        if not isinstance(schema, Mapping):
            return None
        if isinstance(schema.get("allOf"), list):
            props: dict[str, Any] = {}
            req: list[str] = []
            extra: Any = False
            for part in schema["allOf"]:
                flat = self._flat_object(part)
                if flat is None:
                    return None
                props.update(flat[0])
                req.extend(flat[1])
                extra = extra or flat[2]
            own = {k: v for k, v in schema.items() if k != "allOf"}
            if own.get("properties"):
                flat = self._flat_object(own)
                if flat is None:
                    return None
                props.update(flat[0])
                req.extend(flat[1])
            return props, req, extra
        if any(k in schema for k in ("oneOf", "anyOf", "$ref")):
            return None
        kind = schema.get("type")
        if kind not in (None, "object") or not isinstance(schema.get("properties", {}), Mapping):
            return None
        if kind is None and "properties" not in schema:
            return None
        # Extra keys are accepted only when the body schema says so explicitly: most documents
        # leave additionalProperties out, and a misspelt argument should be an error, not a
        # silently ignored body field.
        extra = schema.get("additionalProperties", False)
        required = schema.get("required")  # a list of names; anything else (null, a string) names none
        names = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
        return dict(schema.get("properties", {})), names, (
            extra if extra is not False else False)

    def _local(self, schema: Any) -> Any:
        """Follow a ``#/$defs/X`` reference of a converted schema to the converted component."""
        for _ in range(16):
            if isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and len(schema) == 1 \
                    and schema["$ref"].startswith("#/$defs/"):
                name = json_pointer.tokens("#/" + schema["$ref"][len("#/$defs/"):])[0]
                schema = self.component(name, "request")
            else:
                return schema
        return schema

    def _output(self, where: str, responses: Any) -> Any:
        if not isinstance(responses, Mapping):
            return None
        codes = sorted((str(c) for c in responses), key=lambda c: (not c.startswith("2"), c))
        for code in codes:
            if not (code.startswith("2") or code.upper() == "2XX"):
                continue
            rw = f"{where}.responses.{code}"
            response = self.deref(responses[code], rw)
            if not isinstance(response, Mapping):
                raise self.error(rw, f"a response must be an object; got {type(response).__name__}.")
            content = response.get("content")
            if not isinstance(content, Mapping) or not content:
                return None
            ctype = _pick_content_type(list(content))
            if ctype is None:
                return None
            media = content[ctype] if isinstance(content[ctype], Mapping) else {}
            if not _is_json(ctype):
                if ctype.startswith("text/"):
                    return {"type": "string"}
                return {"type": "string", "format": "binary",
                        "description": f"The response body ({ctype}) as bytes."}
            defs: set[str] = set()
            schema = self.schema(media.get("schema", {}), f"{rw}.content.{ctype}.schema", "response", defs)
            description = response.get("description")
            # "OK" / "Created." / "Response" say nothing; longer response descriptions are kept.
            if (isinstance(schema, Mapping) and isinstance(description, str) and "description" not in schema
                    and len(description.split()) >= 3):
                schema = {**schema, "description": description.strip()}
            return self.with_defs(schema, defs, "response")
        return None


def _openapi30_to_json_schema(original: Mapping[str, Any], out: dict[str, Any]) -> None:
    for bound, flag in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if original.get(flag) is True and bound in out:
            out[flag] = out.pop(bound)
        elif original.get(flag) is False:
            out.pop(flag, None)
    if original.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif isinstance(kind, list):
            if "null" not in kind:
                out["type"] = [*kind, "null"]
        else:
            inner = dict(out)
            out.clear()
            out["anyOf"] = [inner, {"type": "null"}]
            return
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]


def _drop_read_only(schema: dict[str, Any]) -> None:
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return
    gone = [k for k, v in props.items() if isinstance(v, Mapping) and v.get("readOnly") is True]
    if gone:
        schema["properties"] = {k: v for k, v in props.items() if k not in gone}
        if isinstance(schema.get("required"), list):
            schema["required"] = [r for r in schema["required"] if r not in gone]


def _is_json(content_type: str) -> bool:
    base = content_type.split(";")[0].strip().lower()
    return base in _JSON_TYPES or base.endswith("+json") or base == "*/*"


def _mergeable(content_type: str) -> bool:
    base = content_type.split(";")[0].strip().lower()
    return _is_json(base) or base in ("application/x-www-form-urlencoded", "multipart/form-data")


def _pick_content_type(types: list[str]) -> str | None:
    if not types:
        return None
    ranked = sorted(types, key=lambda t: (
        0 if _is_json(t) else
        1 if t.startswith("application/x-www-form-urlencoded") else
        2 if t.startswith("multipart/form-data") else
        3 if t.startswith("text/") else 4))
    return ranked[0]


def _param_key(name: str, location: str, taken: Mapping[str, Any]) -> str:
    if location in ("header", "cookie") and not name.isidentifier():
        key = sanitize_identifier(_camel_to_snake(name).replace("-", "_"))
    else:
        key = name if name.isidentifier() and sanitize_identifier(name) == name else sanitize_identifier(name)
    if key in taken:
        key = f"{key}_{location}"
    n = 2
    base = key
    while key in taken:
        key = f"{base}{n}"
        n += 1
    return key


def _fallback_name(method: str, path: str) -> str:
    parts = [p.strip("{}") for p in path.split("/") if p]
    return sanitize_identifier("_".join([method, *parts]) if parts else method)


def _description(op: Mapping[str, Any], method: str, path: str) -> str:
    summary = op.get("summary") if isinstance(op.get("summary"), str) else ""
    description = op.get("description") if isinstance(op.get("description"), str) else ""
    parts = [s.strip() for s in (summary, description) if s and s.strip()]
    if len(parts) == 2 and parts[1].startswith(parts[0]):
        parts = [parts[1]]
    text = "\n\n".join(parts) or f"{method.upper()} {path}"
    notes = [f"HTTP: {method.upper()} {path}"]
    if op.get("deprecated") is True:
        notes.append("Deprecated.")
    return text + "\n\n" + " ".join(notes)
