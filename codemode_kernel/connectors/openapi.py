"""OpenApiConnector: the operations of an HTTP API described by OpenAPI 3.x (issue 4).

This is the only module that imports ``httpx``. Requests are made on the host; the sandbox
sees method names, JSON Schemas and plain results, never the client, the base URL's
credentials or the auth headers. The document is read by
:mod:`codemode_kernel.connectors.openapi_document`.
"""

from __future__ import annotations

import asyncio
import codecs
import difflib
import fnmatch
import hashlib
import json
import re
from collections.abc import Collection, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import httpx

from codemode_kernel import codec
from codemode_kernel.connectors.base import Connector, ExecutionContext, RevertFn, Tool
from codemode_kernel.connectors.bounded_body import BadCoding, ContentDecoder, OverLimit
from codemode_kernel.connectors.http_auth import HttpAuth
from codemode_kernel.connectors.openapi_document import OpenApiDocument, Operation, parse_text
from codemode_kernel.connectors.policy import (
    ConnectorPolicy,
    RevertMapping,
    check_keys,
    expand_env,
    get_seconds,
    get_str,
    get_str_list,
    get_str_map,
    jsonable,
    shown,
    table_name,
)
from codemode_kernel.connectors.secrets import config_secrets, listed, redacting, redactor
from codemode_kernel.errors import ConfigurationError, ConnectorError, OutcomeUnknown
from codemode_kernel.targets import secret_part

_SAFE_METHODS = ("GET", "HEAD")
#: A gateway's answers that say the service got the request and its outcome is not known (review 15 M4).
_GATEWAY_GAVE_UP = (502, 504)
_EXCERPT_CHARS = 300
#: The most of an answer's body read into the host (review 14, M1): eight times the characters a call's
#: value may hold (codec.MAX_VALUE_CHARS), room for indentation and escapes (``\u00e9`` is six bytes for one
#: character). A larger body is refused unread, before it fills the host's memory.
MAX_RESPONSE_BYTES = 8 * codec.MAX_VALUE_CHARS
_ERROR_BODY_BYTES = 64 * 1024  # of an error answer, enough for its excerpt
#: The headers an answer whose body was not kept still reports (what was made, and where), each cut at
#: _HEADER_CHARS characters.
_KEPT_HEADERS = ("location", "content-location", "content-type", "content-length", "etag", "last-modified", "link",
                 "x-request-id", "request-id")
_HEADER_CHARS = 1000
MAX_DOCUMENT_BYTES = 64 * 2**20  # of a remote OpenAPI document (GitHub's REST description is 13 MB)
# Text encodings whose decoder is slow on long input (punycode is quadratic: 3 s for 200 kB) or refuses
# errors='replace' (idna): an answer naming one is read as UTF-8.
_SLOW_CHARSETS = frozenset({"punycode", "idna"})
_CONFIG_KEYS = ("openapi", "base_url", "auth", "headers", "requires_approval", "no_approval", "reverts", "timeout",
                "idempotency_header", "include", "exclude", "hint", "instructions", "max_response_bytes")


class OpenApiConnector(Connector):
    """Expose the operations of an OpenAPI 3.0/3.1 document as methods: ``pets.getPet(petId=1)``.

    ``document`` is a path (JSON or YAML), an ``http(s)://`` URL (fetched on first use,
    without credentials) or an already parsed dict. Each operation becomes one method named
    by its ``operationId`` (sanitized; without one, from method and path:
    ``get_pets_petId_card``). Path, query, header and cookie parameters and the request body
    are merged into one input object: an object body's properties sit beside the parameters
    (``createPet(name=..., species=...)``), any other body is the ``body`` argument. Header
    and cookie names become snake_case identifiers (``X-Trace-Id`` → ``x_trace_id``).
    Extra arguments are refused unless the body schema allows extra keys explicitly.

    Requests go to ``base_url`` (default: the document's first ``servers`` URL). ``auth``
    (an :class:`~codemode_kernel.connectors.http_auth.HttpAuth`, or the same table as in the
    configuration: ``{"type": "bearer", "token_env": "PETSTORE_TOKEN"}``) and ``headers`` are added on
    the host; parameters the credential fills (``Authorization``, the API key) are not
    arguments. Responses are decoded by content type (JSON → values, ``text/*`` → str,
    other → bytes, empty → None); a non-2xx status raises ``ConnectorError`` with the
    status and a short excerpt of the body; ``timeout`` (seconds, default 30) bounds each
    request, from connecting to the last byte of the answer. An answer's body is read up to
    ``max_response_bytes`` (:data:`MAX_RESPONSE_BYTES`, 8,000,000; the argument, the attribute or
    the configuration key changes it), decoded (gzip, deflate) in bounded pieces. A longer answer to
    GET or HEAD is refused with an error naming the limit; to any other method (the service did
    it) the call's value is ``{"status", "headers", "body": None, "body_bytes_at_least", "note"}``,
    so the call is recorded as done and can be rolled back. A request
    that was sent and got no answer (a timeout after sending, a connection lost) raises
    :class:`~codemode_kernel.errors.OutcomeUnknown` for every method but GET and HEAD: the
    service may have done it. A ``client`` (``httpx.AsyncClient``) or a ``transport`` (e.g.
    ``httpx.MockTransport``) can be injected; an injected client is not closed by us.

    Approval: every operation that is not GET/HEAD needs approval by default;
    ``requires_approval`` (``True``/``False`` for all, or names / ``fnmatch`` patterns) and
    ``no_approval`` (names / patterns) change that. Names may be operationIds, method names or
    ``tag:<tag>``.

    ``idempotency_header=True`` (or a header name) sends ``Idempotency-Key:
    <execution_id>:<seq>`` on every non-GET/HEAD request, so a server that honours it
    applies a retried call once. ``reverts`` maps an operation to its compensation:
    ``{"createPet": {"method": "deletePet", "args": {"petId": "$result.id"}}}``.
    ``include``/``exclude`` (operationIds, method names, ``tag:<tag>``; patterns allowed)
    choose which operations become methods.

    Configuration (``codemode.toml``), read by :meth:`from_config`::

        [connectors.pets]
        openapi = "petstore.yaml"                    # relative to this file, or a URL
        base_url = "http://127.0.0.1:8765"           # default: the document's servers[0]
        auth = { type = "bearer", token_env = "PETSTORE_TOKEN" }
        # auth = { type = "api_key", value_env = "KEY", name = "X-API-Key", in = "header" }
        # auth = { type = "basic", username = "me", password_env = "PASSWORD" }
        headers = { X-Api-Version = "2022-11-28" }   # ${VAR} is read from the environment
        requires_approval = ["getSecret"]            # in addition to every non-GET/HEAD
        no_approval = ["searchPets"]                 # a POST that only reads
        reverts = { createPet = { method = "deletePet", args = { petId = "$result.id" } } }
        idempotency_header = true                    # or "X-Idempotency-Key"
        timeout = 30
        max_response_bytes = 8_000_000               # the most of an answer read
        include = ["tag:pets", "health"]            # default: every operation
        exclude = ["deletePet"]
        hint = "The pet store."
    """

    max_response_bytes: int = MAX_RESPONSE_BYTES

    def __init__(
        self,
        name: str,
        document: str | Path | Mapping[str, Any],
        *,
        base_url: str | None = None,
        auth: HttpAuth | Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        instructions: str | None = None,
        requires_approval: Collection[str] | bool = (),
        no_approval: Collection[str] = (),
        reverts: Mapping[str, RevertMapping | Mapping[str, Any] | RevertFn] | None = None,
        idempotency_header: bool | str = False,
        timeout: float = 30.0,
        include: Collection[str] = (),
        exclude: Collection[str] = (),
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        base_dir: str | Path | None = None,
        max_response_bytes: int | None = None,
    ) -> None:
        where = f"OpenApiConnector {name!r}"
        if client is not None and transport is not None:
            raise ConfigurationError(f"{where}: give client= or transport=, not both.")
        if timeout <= 0:
            raise ConfigurationError(f"{where}: timeout must be a positive number of seconds.")
        self.name = name
        self.instructions = instructions
        self.base_url = base_url
        self.auth = HttpAuth.from_table(auth, where) if isinstance(auth, Mapping) else auth
        self.headers = dict(headers or {})
        self.timeout = float(timeout)
        if max_response_bytes is not None:
            limit = max_response_bytes
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
                raise ConfigurationError(f"{where}: max_response_bytes must be a positive whole number of bytes.")
            self.max_response_bytes = max_response_bytes
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self.idempotency_header = ("Idempotency-Key" if idempotency_header is True
                                   else idempotency_header or None)
        self.policy = ConnectorPolicy.from_arguments(requires_approval, no_approval, reverts, where)
        self._source = document
        self._base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        self._injected_client = client
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._document: OpenApiDocument | None = None
        self._operations: dict[str, Operation] = {}
        self._resolved_base: str | None = None

    @property  # where requests go: the base URL, once known
    def target(self) -> str | None:  # type: ignore[override]
        base = self._resolved_base or self.base_url
        if not base:
            return None
        # The account is the backend too: its headers and its credential (review 15 H1).
        chosen = {f"header {k}": v for k, v in self.headers.items()}
        if self.auth is not None:
            chosen.update(self.auth.identity())
        return f"openapi {base}" + secret_part("as", chosen) + self._routes_digest()

    def _routes_digest(self) -> str:
        """What each method sends where, as the document says now (HTTP method, path template, where each
        argument goes, the body's media type): a document changed since an execution paused makes its
        approval (or a rollback) refused rather than sent somewhere else (review 15, H6). Empty before the
        document is read."""
        if not self._operations:
            return ""
        routes = sorted(
            (name, op.http_method, op.path, [(p.key, p.name, p.location, p.style, p.explode, p.json_content)
                                             for p in op.parameters],
             op.body.content_type if op.body is not None else None)
            for name, op in self._operations.items())
        return " routes#" + hashlib.sha256(json.dumps(routes).encode("utf-8", "surrogatepass")).hexdigest()[:32]

    # -- configuration ---------------------------------------------------------------------------

    @classmethod
    def from_config(cls, name: str, table: Mapping[str, Any], base_dir: Path) -> OpenApiConnector:
        """Build from one ``[connectors.<name>]`` table; keys are listed in the class docstring."""
        where = table_name(name)
        check_keys(table, _CONFIG_KEYS, where)
        source = table.get("openapi")
        if not isinstance(source, str) or not source:
            raise ConfigurationError(f"{where}: openapi must be a path (relative to this file) or an http(s) URL "
                                     f"of an OpenAPI document; got {shown(source)}.")
        if not _is_url(source) and not (base_dir / source).is_file():
            raise ConfigurationError(f"{where}: openapi = {source!r}: no such file ({(base_dir / source)}).")
        policy = ConnectorPolicy.from_table(table, where)
        idem = table.get("idempotency_header", False)
        if not isinstance(idem, (bool, str)):
            raise ConfigurationError(f"{where}: idempotency_header must be true, false or a header name.")
        base_url = get_str(table, "base_url", where)
        if base_url is not None and not _is_url(base_url):
            raise ConfigurationError(f"{where}: base_url must be an http(s) URL; got {shown(base_url)}.")
        return cls(
            name,
            source if _is_url(source) else base_dir / source,
            base_url=base_url,
            auth=HttpAuth.from_table(table["auth"], where) if "auth" in table else None,
            headers=get_str_map(table, "headers", where),
            instructions=get_str(table, "instructions", where) or get_str(table, "hint", where),
            **policy.as_arguments(),
            idempotency_header=idem,
            timeout=get_seconds(table, "timeout", where, 30.0),
            include=get_str_list(table, "include", where),
            exclude=get_str_list(table, "exclude", where),
            base_dir=base_dir,
            max_response_bytes=table.get("max_response_bytes"),
        )

    # -- the catalog -----------------------------------------------------------------------------

    async def document(self) -> OpenApiDocument:
        """The parsed document (loaded once), redacted of the connector's secrets: its host may have written
        them in it (a document URL that carries a key, echoed into a description or a parameter's default), and
        its titles, descriptions and schemas reach describe, search and the model's tool text (review 16, H3)."""
        if self._document is None:
            source = self._source
            parsed: Any
            if isinstance(source, Mapping):
                parsed, where = source, f"the OpenAPI document of {self.name!r}"
            elif isinstance(source, str) and _is_url(source):
                text = await self._fetch_document(source)
                parsed, where = parse_text(text, source), source
            else:
                path = Path(source)
                path = path if path.is_absolute() else self._base_dir / path
                try:
                    text = path.read_text(encoding="utf-8")
                except OSError as exc:
                    raise ConfigurationError(f"connector {self.name!r}: cannot read the OpenAPI document {path}: "
                                             f"{exc.strerror or exc}.") from None
                parsed, where = parse_text(text, str(path)), str(path)
            if scrub := redactor(self.secrets()):  # one search of its JSON text when nothing is in it
                parsed = scrub.value(parsed)
            self._document = OpenApiDocument(parsed, where)
        return self._document

    async def _fetch_document(self, url: str) -> str:
        where = f"connector {self.name!r}: fetching the OpenAPI document {url}"
        try:
            # Bounded as an answer is (review 14, M1): the document's host may be anyone's.
            async with asyncio.timeout(self.timeout):
                async with self._http().stream("GET", url, timeout=self.timeout, follow_redirects=True) as response:
                    ok = response.status_code < 400
                    body = await _read_body(response, MAX_DOCUMENT_BYTES if ok else _ERROR_BODY_BYTES, refuse=ok,
                                            where=where)
        except TimeoutError:
            raise ConfigurationError(f"{where}: no answer within {self.timeout:g} s (timeout).") from None
        except httpx.HTTPError as exc:
            raise ConfigurationError(f"connector {self.name!r}: cannot fetch the OpenAPI document {url}: "
                                     f"{_describe_http_error(exc)}.") from None
        except ConnectorError as exc:  # too large
            raise ConfigurationError(str(exc).split(";")[0] + f"; a document is read up to {MAX_DOCUMENT_BYTES:,} "
                                     "bytes. Save it as a file beside codemode.toml instead.") from None
        if not ok:
            raise ConfigurationError(f"{where} gave HTTP {response.status_code}: "
                                     f"{_excerpt_of(response.headers, body)}")
        return _text(response.headers, body)

    def secrets(self) -> list[str]:
        """The credential (and basic auth's base64 form), secret headers, ``${VAR}`` values, URL passwords."""
        out = config_secrets(headers=self.headers, urls=[self.base_url, self._source if isinstance(
            self._source, str) else None])
        if self.auth is not None:
            out += self.auth.secrets()
        return out

    async def tools(self) -> Mapping[str, Tool]:
        """One method per operation of the document (after ``include``/``exclude``).

        A failure is a ConfigurationError for the notebook's author, redacted of the configured
        secrets; ``failure_summary`` says it in words fit for a model.
        """
        self.failure_summary = "its OpenAPI document could not be used"
        built = await listed(self._tools, name=self.name, doing="reading its operations", secrets=self.secrets())
        self.failure_summary = None
        return built

    async def _tools(self) -> dict[str, Tool]:
        doc = await self.document()
        where = f"connector {self.name!r}"
        auth = self._effective_auth(doc)
        operations = doc.operations(auth.secret_names() if auth else set())
        self._check_filters(operations, where)
        by_name: dict[str, Operation] = {}
        for op in operations:
            if not self._selected(op):
                continue
            if op.name in by_name:
                other = by_name[op.name]
                raise ConfigurationError(
                    f"{where}: operations {_op_label(other)} and {_op_label(op)} both become the method name "
                    f"{op.name!r}; give one a different operationId, or leave one out with `exclude`.")
            by_name[op.name] = op
        known = {op.name: op.name for op in by_name.values()}
        known.update({op.operation_id: op.name for op in by_name.values() if op.operation_id})
        self.policy.check(known, where, labels={f"tag:{t}" for op in by_name.values() for t in op.tags},
                          schemas={name: op.input_schema for name, op in by_name.items()})
        self._resolved_base = self._base_url(doc)
        self._operations = by_name
        self.auth = auth
        if self.instructions is None:
            self.instructions = _instructions(doc)
        clean = redactor(self.secrets())
        out: dict[str, Tool] = {}
        for method_name, op in by_name.items():
            names = [method_name, *([op.operation_id] if op.operation_id else []), *(f"tag:{t}" for t in op.tags)]
            revert = self.policy.revert([method_name, *([op.operation_id] if op.operation_id else [])], known,
                                        self._call_method, schemas={n: o.input_schema for n, o in by_name.items()})
            # The schemas come from the document, redacted when it was read (document()).
            out[method_name] = redacting(Tool(
                execute=self._executor(op),
                description=clean.text(op.description),
                input_schema=op.input_schema,
                output_schema=op.output_schema,
                requires_approval=self.policy.requires_approval(names, op.http_method not in _SAFE_METHODS),
                revert=revert,
            ), self.secrets)
        return out

    def _check_filters(self, operations: Sequence[Operation], where: str) -> None:
        """Refuse an ``include`` or ``exclude`` entry that matches no operation (review 14x, M14): a mistyped
        include left the connector with no methods, a mistyped exclude left callable the operation it was
        written to hide. The connector is then unavailable (fails closed), and the problem names the entry."""
        labels: set[str] = set()
        for op in operations:
            labels.update((op.name, *([op.operation_id] if op.operation_id else []), *(f"tag:{t}" for t in op.tags)))
        wrong = []
        for key, patterns in (("include", self.include), ("exclude", self.exclude)):
            for pattern in patterns:
                if not any(fnmatch.fnmatchcase(label, pattern) for label in labels):
                    close = difflib.get_close_matches(pattern, sorted(labels), n=1)
                    wrong.append(f"{key} names {pattern!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        if wrong:
            raise ConfigurationError(
                f"{where}: {'; '.join(wrong)}, which match{'es' if len(wrong) == 1 else ''} no operation of its "
                "document (operationIds, method names or tag:<tag>). Fix the table: the connector is left out until "
                "then.")

    def _selected(self, op: Operation) -> bool:
        labels = [op.name, *([op.operation_id] if op.operation_id else []), *(f"tag:{t}" for t in op.tags)]

        def hit(patterns: tuple[str, ...]) -> bool:
            return any(fnmatch.fnmatchcase(label, p) for p in patterns for label in labels)

        return (not self.include or hit(self.include)) and not hit(self.exclude)

    def _effective_auth(self, doc: OpenApiDocument) -> HttpAuth | None:
        if self.auth is None or self.auth.type != "api_key" or self.auth.name is not None:
            return self.auth
        schemes = (doc.data.get("components") or {}).get("securitySchemes") or {}
        for scheme in schemes.values() if isinstance(schemes, Mapping) else []:
            if isinstance(scheme, Mapping) and scheme.get("type") == "apiKey":
                return self.auth.with_default_key(scheme.get("name"), scheme.get("in"))
        return self.auth

    def _base_url(self, doc: OpenApiDocument) -> str:
        if self.base_url:
            return self.base_url.rstrip("/")
        servers = doc.data.get("servers")
        if isinstance(servers, list) and servers and isinstance(servers[0], Mapping):
            url = str(servers[0].get("url", ""))
            variables = servers[0].get("variables") or {}
            for var, spec in variables.items() if isinstance(variables, Mapping) else []:
                default = spec.get("default") if isinstance(spec, Mapping) else None
                url = url.replace("{" + str(var) + "}", str(default or ""))
            if isinstance(self._source, str) and _is_url(self._source):
                url = urljoin(self._source, url)
                self._check_origin(self._source, url)
            if _is_url(url):
                return url.rstrip("/")
        raise ConfigurationError(f"connector {self.name!r}: no base URL: the document has no absolute `servers` "
                                 "URL; set base_url (e.g. base_url = \"http://127.0.0.1:8765\").")

    def _check_origin(self, source: str, url: str) -> None:
        """A remote document may not send our credential to another origin (issue 10, item 5).

        Whoever controls the document's host could otherwise name their own host in
        ``servers[0]`` and receive the token; choosing another host is the author's call
        (``base_url``).
        """
        if not (self.auth is not None or self.secrets()) or _origin_key(url) == _origin_key(source):
            return
        raise ConfigurationError(
            f"connector {self.name!r}: the remote OpenAPI document {_origin(source)} names servers[0] {_origin(url)}, "
            f"another origin than the document's own ({_origin_key(source)}); the credential is only sent there if "
            f"you say so: set base_url (e.g. base_url = \"{_origin(url)}\") if you trust that host.")

    def _executor(self, op: Operation) -> Any:
        async def execute(args: dict[str, Any], ctx: ExecutionContext) -> Any:
            return await self.request(op, args, ctx)

        return execute

    async def _call_method(self, method: str, args: dict[str, Any], ctx: ExecutionContext) -> Any:
        """Send another operation by method name (a configured revert)."""
        return await self.request(self._operations[method], args, ctx, revert=True)

    # -- requests --------------------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        if self._injected_client is not None:
            return self._injected_client
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            # httpx pools connections per event loop; a new loop needs a new client.
            self._client = httpx.AsyncClient(transport=self._transport, timeout=self.timeout)
            self._client_loop = loop
        return self._client

    async def request(self, op: Operation, args: Mapping[str, Any], ctx: ExecutionContext | None = None,
                      *, revert: bool = False) -> Any:
        """Send one operation with ``args`` (the method's input object) and decode the response."""
        where = f"{self.name}.{op.name}"
        base = self._resolved_base or self.base_url or ""
        path = _literal_path(op.path)
        query: list[tuple[str, str | int | float | bool | None]] = []
        headers: dict[str, str] = {}
        cookies: dict[str, str] = {}
        for p in op.parameters:
            if p.key not in args or args[p.key] is None:
                if p.location == "path":
                    raise ConnectorError(f"{where}: the path parameter {p.key!r} is required.")
                continue
            value = args[p.key]
            if p.json_content:
                value = json.dumps(jsonable(value), separators=(",", ":"))
            if p.location == "path":
                segment = quote(_scalar(_joined(value)), safe="")
                if segment in ("", ".", ".."):
                    # A URL resolves dot segments before it is sent ('/pets/7/photos/..' is '/pets/7'): the
                    # request would go to another operation than the one approved (review 13).
                    raise ConnectorError(f"{where}: the path parameter {p.key!r} is {segment!r}, which would "
                                         "change the request's path instead of naming something in it; nothing "
                                         "was sent. Pass the identifier itself.")
                path = path.replace("{" + p.name + "}", segment)
            elif p.location == "query":
                query.extend(_query_pairs(p.name, value, p.style, p.explode))
            elif p.location == "header":
                headers[p.name] = _scalar(_joined(value))
            else:
                cookie = _scalar(_joined(value))
                if any(c in cookie for c in ';,"\\') or not cookie.isprintable() or cookie != cookie.strip():
                    # The Cookie header joins cookies with '; ': 'dark; session=x' added a cookie (review 13).
                    raise ConnectorError(f"{where}: the cookie parameter {p.key!r} holds a character a cookie "
                                         "value cannot (a ';', ',', '\"', '\\', a space at either end or a "
                                         "control character); nothing was sent.")
                cookies[p.name] = cookie
        for key, value in self.headers.items():
            headers[key] = expand_env(value, f"{where} header {key}")
        if self.auth is not None and not op.open_security:
            extra_headers, extra_query, extra_cookies = self.auth.apply(f"connector {self.name!r} auth")
            headers.update(extra_headers)
            query.extend(extra_query.items())
            cookies.update(extra_cookies)
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        if self.idempotency_header and ctx is not None and op.http_method not in _SAFE_METHODS:
            headers[self.idempotency_header] = ctx.idempotency_key + (":revert" if revert and not ctx.revert else "")
        content, data, files, json_body = self._body(op, args)
        if op.body is not None and "Content-Type" not in headers and (content is not None):
            headers["Content-Type"] = op.body.content_type
        headers.setdefault("Accept", "application/json, */*;q=0.5")
        for key, value in headers.items():
            problem = _header_problem(value)
            if problem is not None:
                label = next((f"the header parameter {p.key!r}" for p in op.parameters
                              if p.location == "header" and p.name == key), f"the header {key!r}")
                raise ConnectorError(f"{where}: {label} {problem}, which an HTTP header cannot hold; nothing "
                                     "was sent.")
        sending = _Sending()
        try:
            # One deadline for the whole request (review 14, M1): httpx's own timeout bounds each phase (the
            # connect, each read), so a service sending a byte a second would hold the call for ever.
            async with asyncio.timeout(self.timeout):
                async with self._http().stream(
                        op.http_method, _url(base, path), params=query or None, headers=headers, content=content,
                        data=data, files=files, json=json_body, timeout=self.timeout,
                        extensions={"trace": sending.trace}) as response:
                    ok = 200 <= response.status_code < 300
                    try:
                        body = await _read_body(response, self.max_response_bytes if ok else _ERROR_BODY_BYTES,
                                                refuse=ok, where=f"{where}: {op.http_method} {op.path}")
                    except _TooLarge as exc:
                        if op.http_method in _SAFE_METHODS:
                            raise  # nothing was done: an error, and the program may ask for less
                        return self._not_kept(op, response, exc)
        except TimeoutError:
            raise self._no_answer(where, op, sent=sending.sent(None)) from None
        except httpx.TimeoutException as exc:
            raise self._no_answer(where, op, sent=sending.sent(exc)) from None
        except httpx.HTTPError as exc:
            detail = _describe_http_error(exc)
            if isinstance(exc, httpx.LocalProtocolError):  # the request itself is malformed: not sent
                raise ConnectorError(f"{where}: {op.http_method} {op.path} could not be sent: {detail}; nothing "
                                     "was sent.") from None
            if sending.sent(exc) and op.http_method not in _SAFE_METHODS:
                raise OutcomeUnknown(
                    f"{where}: {op.http_method} {op.path} was sent, and the connection failed before the answer "
                    f"came ({detail}): the service may have done it. Check with the service (e.g. read the "
                    "resource) before sending it again.") from None
            raise ConnectorError(f"{where}: {op.http_method} {_origin(base)}{op.path} failed: {detail}. Is the "
                                 "service running, and is base_url right?") from None
        if not ok and response.status_code in _GATEWAY_GAVE_UP and op.http_method not in _SAFE_METHODS:
            # A gateway in front of the service answered: the service got the request and did not answer in
            # time (504), or its connection broke mid-request (502). The request may have been done
            # (review 15 M4): recorded as an unknown outcome, like a timeout after sending.
            raise OutcomeUnknown(
                f"{where}: {op.http_method} {op.path} was answered HTTP {response.status_code} "
                f"{response.reason_phrase} by a gateway in front of the service: the service may have done it. "
                "Check with the service (e.g. read the resource) before sending it again.")
        if not ok:
            raise ConnectorError(f"{where}: {op.http_method} {op.path} returned HTTP {response.status_code} "
                                 f"{response.reason_phrase}: {_excerpt_of(response.headers, body)}")
        return _decode(response.status_code, response.headers, body)

    def _not_kept(self, op: Operation, response: httpx.Response, exc: _TooLarge) -> dict[str, Any]:
        """The value of a request that was done (not GET/HEAD, HTTP 2xx) whose answer was over
        ``max_response_bytes``: the status, the headers that say what was made, and a note. A value, not an
        error, so the call is journaled ``applied``: a replay gives the same, and rollback reverts it (an
        error left it recorded as a call that did nothing)."""
        headers = {k: v[:_HEADER_CHARS] for k in _KEPT_HEADERS if (v := response.headers.get(k)) is not None}
        return {
            "status": response.status_code,
            "headers": headers,
            "body": None,
            "body_bytes_at_least": exc.at_least,
            "note": (f"{op.http_method} {op.path} was done (HTTP {response.status_code}); its answer's body was "
                     f"{exc.size}, more than the connector's max_response_bytes ({self.max_response_bytes:,}), so "
                     "it was not read or kept. Do not send it again: read what it made with a narrower request "
                     f"(a filter, a page, fewer fields), or raise max_response_bytes (e.g. max_response_bytes = "
                     f"{_raised(exc.at_least)} in the connector's codemode.toml table)."),
        }

    def _no_answer(self, where: str, op: Operation, *, sent: bool) -> ConnectorError:
        """The timeout error: a request that was sent may have been done (review 14, H5)."""
        if sent and op.http_method not in _SAFE_METHODS:
            return OutcomeUnknown(
                f"{where}: {op.http_method} {op.path} was sent and got no answer within {self.timeout:g} s "
                "(timeout): the service may have done it. Check with the service (e.g. read the resource) before "
                "sending it again; raise `timeout` in the connector configuration if it is often this slow.")
        done = "" if sent else " (nothing was sent)"
        return ConnectorError(f"{where}: {op.http_method} {op.path} got no answer within {self.timeout:g} s "
                              f"(timeout){done}. Try again later, or raise `timeout` in the connector "
                              "configuration.")

    def _body(self, op: Operation, args: Mapping[str, Any]) -> tuple[Any, Any, Any, Any]:
        """(content, data, files, json) for httpx."""
        body = op.body
        if body is None:
            return None, None, None, None
        if body.key is not None:
            if body.key not in args:
                return None, None, None, None
            value = args[body.key]
        else:
            params = {p.key for p in op.parameters}
            value = {k: v for k, v in args.items() if k not in params}
            if not value and not body.required:
                return None, None, None, None
        ctype = body.content_type.split(";")[0].strip().lower()
        if ctype == "application/json" or ctype.endswith("+json") or ctype == "*/*":
            return json.dumps(jsonable(value), ensure_ascii=False).encode(), None, None, None
        if ctype == "application/x-www-form-urlencoded" and isinstance(value, Mapping):
            return None, {k: _form_value(v) for k, v in value.items()}, None, None
        if ctype == "multipart/form-data" and isinstance(value, Mapping):
            files = {k: (k, v) for k, v in value.items() if isinstance(v, bytes)}
            data = {k: _form_value(v) for k, v in value.items() if not isinstance(v, bytes)}
            return None, data or None, files or None, None
        if isinstance(value, bytes):
            return value, None, None, None
        if isinstance(value, str):
            return value.encode(), None, None, None
        return json.dumps(jsonable(value), ensure_ascii=False).encode(), None, None, None

    async def aclose(self) -> None:
        """Close our HTTP client (an injected one is left to its owner)."""
        client, self._client = self._client, None
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await client.aclose()


# -- values ----------------------------------------------------------------------------------------


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def _origin(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}"


def _origin_key(url: str) -> str:
    """scheme://host:port, with the scheme's default port filled in (the browser's notion of an origin)."""
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower(), 0)
    except ValueError:
        port = -1
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}:{port}"


def _op_label(op: Operation) -> str:
    ident = f"operationId {op.operation_id!r}" if op.operation_id else "no operationId"
    return f"{op.http_method} {op.path} ({ident})"


def _instructions(doc: OpenApiDocument) -> str | None:
    text = doc.title
    if doc.description:
        first = doc.description.strip().split("\n\n", 1)[0]
        text = f"{text}: {first}" if text else first
    return " ".join(text.split()) or None


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _joined(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ",".join(_scalar(v) for v in value)
    if isinstance(value, Mapping):
        return ",".join(f"{k},{_scalar(v)}" for k, v in value.items())
    return value


def _form_value(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_scalar(v) for v in value]
    if isinstance(value, Mapping):
        return json.dumps(jsonable(value))
    return _scalar(value)


def _query_pairs(name: str, value: Any, style: str, explode: bool) -> list[tuple[str, str]]:
    if isinstance(value, (list, tuple)):
        if explode and style == "form":
            return [(name, _scalar(v)) for v in value]
        sep = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(style, ",")
        return [(name, sep.join(_scalar(v) for v in value))]
    if isinstance(value, Mapping):
        if style == "deepObject":
            return [(f"{name}[{k}]", _scalar(v)) for k, v in value.items()]
        if explode:
            return [(str(k), _scalar(v)) for k, v in value.items()]
        return [(name, ",".join(f"{k},{_scalar(v)}" for k, v in value.items()))]
    return [(name, _scalar(value))]


class _Sending:
    """Whether a request's bytes began to go out, from httpcore's trace events: a failure before that
    (connecting, waiting for a pooled connection) sent nothing; one after it may have been done."""

    def __init__(self) -> None:
        self.traced = False
        self.started = False

    async def trace(self, name: str, info: Mapping[str, Any]) -> None:
        self.traced = True
        if "send_request_headers" in name:
            self.started = True

    def sent(self, exc: BaseException | None) -> bool:
        """Whether the request may have reached the service, given the failure ``exc`` (None: our deadline)."""
        if self.traced:
            return self.started
        # A transport that does not trace (an injected one): judge by the error; our deadline may have
        # fallen anywhere, so count it as sent.
        return not isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout))


class _TooLarge(ConnectorError):
    """An answer's body past the limit, refused unread; ``size`` says how large (``"9,000,000 bytes"``,
    ``"over 8,000,000 bytes"``) and ``at_least`` in bytes."""

    def __init__(self, where: str, size: str, at_least: int, limit: int) -> None:
        super().__init__(_too_large(where, size, limit))
        self.size = size
        self.at_least = at_least


async def _read_body(response: httpx.Response, limit: int, *, refuse: bool, where: str) -> bytes:
    """The body, read up to ``limit`` bytes: past it, refused (``refuse``: :class:`_TooLarge`) or cut there.

    Read raw and decoded here in bounded pieces (:mod:`~codemode_kernel.connectors.bounded_body`): httpx
    decodes a gzip chunk whole, and a 64 KB chunk of a gzip bomb was ~66 MB before this limit applied."""
    declared = response.headers.get("content-length", "")
    if refuse and declared.isdigit() and int(declared) > limit:
        raise _TooLarge(where, f"{int(declared):,} bytes", int(declared), limit)
    chunks: list[bytes] = []
    size = 0

    def take(piece: bytes) -> bool:
        """Keep ``piece`` (cut at the limit); False once the limit is passed."""
        nonlocal size
        size += len(piece)
        chunks.append(piece if size <= limit else piece[:limit - size + len(piece)])
        return size <= limit

    try:
        decoder = ContentDecoder(response.headers.get("content-encoding", ""), limit)
        async for raw in response.aiter_raw():
            if not all(take(piece) for piece in decoder.decode(raw)):
                break
        else:
            all(take(piece) for piece in decoder.flush())
    except httpx.StreamConsumed:  # an injected transport's answer, made whole in memory (and decoded) already
        content = response.content
        all(take(content[i:i + 2**16]) for i in range(0, len(content), 2**16))
    except OverLimit:
        size = limit + 1
    except BadCoding as exc:
        raise httpx.DecodingError(str(exc), request=response.request) from None
    if size > limit and refuse:
        raise _TooLarge(where, f"over {limit:,} bytes", limit + 1, limit)
    return b"".join(chunks)


def _too_large(where: str, size: str, limit: int) -> str:
    return (f"{where} answered with a body of {size}; an answer is read up to {limit:,} bytes (the connector's "
            "max_response_bytes), so it was not read. The request itself was done: ask for less (a filter, a "
            "page, fewer fields) rather than sending it again as it is.")


def _raised(at_least: int) -> str:
    """A round limit above ``at_least`` bytes, written as a TOML integer (``16_000_000``)."""
    step = 10 ** max(len(str(at_least)) - 1, 6)
    return f"{(at_least // step + 1) * step:_}"


def _url(base: str, path: str) -> str:
    """``base`` and the operation's ``path`` as one URL: a query in ``base`` goes after the path (it was read
    as the path's end), and a fragment, which is never sent, is dropped (s15o)."""
    parts = urlsplit(base)
    if not parts.query and not parts.fragment:
        return base + path
    head = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    return head + path + (f"?{parts.query}" if parts.query else "")


_PLACEHOLDER = re.compile(r"(\{[^{}]*\})")
_BARE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _literal_path(template: str) -> str:
    """An operation's path template with its literal text percent-encoded where a path cannot hold it
    as it is (s15o): a ``?`` or ``#`` in a path key (which OpenAPI does not allow) began the query or the
    fragment, and the parameters after it went there (``/files#{id}`` sent ``/files``); a space, a
    backslash, a ``%`` not followed by two hex digits, text outside ASCII. ``{name}`` placeholders stay."""
    parts = _PLACEHOLDER.split(template)
    for i in range(0, len(parts), 2):  # the literal text between placeholders
        parts[i] = _BARE_PERCENT.sub("%25", quote(parts[i], safe="/!$&'()*+,;=:@%"))
    return "".join(parts)


def _header_problem(value: str) -> str | None:
    if any((ord(c) < 32 and c != "\t") or ord(c) == 127 for c in value):
        return "holds a control character (a line break, a NUL)"
    if not value.isascii():
        return "holds a character outside ASCII"
    if value != value.strip(" \t"):
        return "starts or ends with a space or a tab"
    return None


def _decode(status: int, headers: httpx.Headers, content: bytes) -> Any:
    if status == 204 or not content:
        return None
    ctype = headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "application/json" or ctype.endswith("+json"):
        try:
            return codec.loads_data(content)
        except ValueError:  # not JSON, NaN / Infinity (no JSON value), nested too deeply: the body as text
            return _text(headers, content)
    if ctype.startswith("text/") or ctype in ("application/xml", "application/yaml", "application/x-yaml",
                                              "application/javascript"):
        return _text(headers, content)
    return content


def _text(headers: httpx.Headers, content: bytes) -> str:
    """The body as text, in the charset the answer names when that is a text encoding (review 14, H4): the
    call already ran, so no charset (``rot13``, ``hex``, ``undefined``, bytes it cannot decode) may fail it."""
    charset = _charset(headers.get("content-type", ""))
    if charset is not None:
        try:
            return content.decode(charset, "replace")
        except Exception:  # LookupError for a codec that is not a text encoding, UnicodeError, ...
            pass
    return content.decode("utf-8", "replace")


def _charset(content_type: str) -> str | None:
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            name = value.strip().strip('"').strip()
            try:
                info = codecs.lookup(name)
            except (LookupError, ValueError):
                return None
            return None if info.name in _SLOW_CHARSETS else info.name
    return None


def _excerpt_of(headers: httpx.Headers, content: bytes) -> str:
    """A short, readable excerpt of an error body (the message field of a JSON error if there is one)."""
    text = _text(headers, content)
    try:
        data = codec.loads_data(content)
    except ValueError:
        data = None
    if isinstance(data, Mapping):
        for key in ("error", "message", "detail", "title"):
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                text = value if key != "error" or "detail" not in data else f"{value} ({data['detail']})"
                break
            if isinstance(value, Mapping) and isinstance(value.get("message"), str):
                text = value["message"]
                break
    text = " ".join(str(text).split())
    if not text:
        return "(empty body)"
    return text if len(text) <= _EXCERPT_CHARS else text[:_EXCERPT_CHARS] + f"… ({len(text):,} characters)"


def _describe_http_error(exc: httpx.HTTPError) -> str:
    """What went wrong, without the URL (its query string may hold a credential)."""
    kind = type(exc).__name__
    cause: BaseException | None = exc.__cause__ or exc.__context__
    detail = str(cause) if cause is not None and str(cause) else ""
    if not detail:
        detail = str(exc).split(" for url ", 1)[0]
    if isinstance(exc, httpx.ConnectError):
        kind = "could not connect"
    return f"{kind} ({detail})" if detail else kind
