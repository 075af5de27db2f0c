"""The connector policy: which methods need approval and how calls are reverted, for every kind of
connector (issue 11), plus environment references and checked reading of ``[connectors.<name>]``
tables.

Python (``python = ...`` tables, through :class:`WithPolicy`), MCP and OpenAPI connectors take
the same keys, checked the same way, into one :class:`ConnectorPolicy`; they wrap tools whose
code does not say how to approve or undo them, so approval and compensation come from
configuration:

- an :class:`ApprovalRule` says which methods need approval: names or ``fnmatch``
  patterns that always do (``requires_approval``), names or patterns that never do
  (``no_approval``), and otherwise the connector's default (OpenAPI: every method that is not
  GET/HEAD; MCP: the server's annotations when enabled, else none);
- a :class:`RevertMapping` says how to undo a call with another method of the same
  connector: ``{method = "deletePet", args = {petId = "$result.id"}}``. Argument values are
  templates: ``"$result.a.b"`` and ``"$args.name"`` pick from the call's result and arguments
  (dotted paths; list indices are numbers), anything else is a literal (``"$$x"`` is the
  literal ``"$x"``).

Each connector checks its policy against its methods when it lists them
(:meth:`ConnectorPolicy.check`: an exact name that matches no method is refused, naming the
closest ones) and asks it per method (:meth:`ConnectorPolicy.requires_approval`,
:meth:`ConnectorPolicy.revert`), giving the one thing that differs: how to call another of
its methods to revert.
"""

from __future__ import annotations

import base64
import difflib
import fnmatch
import inspect
import os
import re
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from codemode_kernel.connectors.base import Connector, ExecutionContext, PassEndStatus, RevertFn, Tool
from codemode_kernel.connectors.secrets import redacting
from codemode_kernel.errors import ConfigurationError, ConnectorError

_WILDCARDS = re.compile(r"[*?\[]")
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def table_name(name: str) -> str:
    return f"[connectors.{name}]"


def check_keys(table: Mapping[str, Any], allowed: Collection[str], where: str) -> None:
    """Refuse keys a table does not know, suggesting the closest known key."""
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), list(allowed), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else f" Known keys: {', '.join(sorted(allowed))}."
            raise ConfigurationError(f"{where}: unknown key {key!r}.{hint}")


def get_str(table: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str | None:
    value = table.get(key, default)
    if value is not None and not isinstance(value, str):
        raise ConfigurationError(f"{where}: {key} must be a string; got {_kind(value)}.")
    return value


def get_bool(table: Mapping[str, Any], key: str, where: str, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigurationError(f"{where}: {key} must be true or false; got {shown(value)}.")
    return value


def get_seconds(table: Mapping[str, Any], key: str, where: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigurationError(f"{where}: {key} must be a positive number of seconds; got {shown(value)}.")
    return float(value)


# The two readers below never print the values they were given: a list of flags or a table of headers
# may hold a literal secret beside the entry that is wrong (review 14); they name the entry and its type.


def get_str_list(table: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list):
        raise ConfigurationError(f"{where}: {key} must be a list of strings; got {_kind(value)}.")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigurationError(f"{where}: {key} must be a list of strings; item {i + 1} is {_kind(item)}.")
    return list(value)


def get_str_map(table: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = table.get(key, {})
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"{where}: {key} must be a table of strings (e.g. {{ NAME = \"value\" }}); "
                                 f"got {_kind(value)}.")
    for name, item in value.items():
        if not isinstance(name, str) or not isinstance(item, str):
            shown = repr(name)[:80] if isinstance(name, str) else f"a key that is {_kind(name)}"
            raise ConfigurationError(f"{where}: {key} must be a table of strings (e.g. {{ NAME = \"value\" }}); "
                                     f"{shown} is {_kind(item)}.")
    return dict(value)


def shown(value: Any) -> str:
    """A configuration value as an error message may show it: a value may hold a credential (a token in a
    URL's query, a header, an env entry, a string pasted under the wrong key), so only numbers and booleans
    are shown as they are, a URL with its password and credential-named query values masked, anything else
    by its kind and size (s15o; as journal_files.shown_store masks a store URL)."""
    if isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        if not value:
            return "an empty string"
        if "://" in value:
            return f"a URL beginning {url_head(value)!r}"
        return f"a string of {len(value)} characters"
    if isinstance(value, (list, tuple)):
        kinds = sorted({_kind(v) for v in value})
        return f"a list of {len(value)} ({', '.join(kinds)})" if value else "an empty list"
    if isinstance(value, Mapping):
        keys = ", ".join(repr(k)[:40] for k in list(value)[:8] if isinstance(k, str))
        return f"a table with the keys {keys}" if keys else "an empty table"
    return _kind(value)


def url_head(url: str) -> str:
    """A URL's scheme and host (``https://api.example.com/…``): its user part, path and query may hold a
    credential (a password, a webhook's token in its path, a signed query)."""
    scheme, _, rest = url.partition("://")
    host = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]
    tail = "/…" if len(rest) > len(host) or "@" in rest else ""
    return f"{scheme[:20]}://{host[:100]}{tail}"


def _kind(value: Any) -> str:
    """What a configuration value is, in words, without its content."""
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
             dict: "a table"}
    return next((n for t, n in names.items() if type(value) is t), "a table" if isinstance(value, Mapping)
                else f"a {type(value).__name__}")


def expand_env(text: str, what: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace ``${VAR}`` with the variable's value; a missing variable is an error naming it."""
    env = os.environ if environ is None else environ

    def one(match: re.Match[str]) -> str:
        var = match.group(1)
        if var not in env:
            raise ConnectorError(f"{what} uses ${{{var}}}, but the environment variable {var} is not set. "
                                 "Set it in the environment the kernel (or the host program) runs in.")
        return env[var]

    return _ENV_REF.sub(one, text)


def read_env(var: str, what: str) -> str:
    """The value of an environment variable that holds a credential; an error names it if unset."""
    value = os.environ.get(var)
    if value is None or value == "":
        raise ConnectorError(f"{what} reads the environment variable {var}, which is not set. Set it in the "
                             "environment the kernel (or the host program) runs in; the sandbox never sees it.")
    return value


# -- approval ------------------------------------------------------------------------------------


def _matches(pattern: str, names: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(n, pattern) for n in names)


@dataclass(frozen=True)
class ApprovalRule:
    """Which methods need approval: explicit names/patterns first, then the connector's default.

    ``default_all`` overrides the connector's default for every method (``True``: all need
    approval; ``False``: none do) when ``requires_approval = true/false`` is configured.
    """

    always: tuple[str, ...] = ()
    never: tuple[str, ...] = ()
    default_all: bool | None = None

    @classmethod
    def from_table(cls, table: Mapping[str, Any], where: str) -> ApprovalRule:
        raw = table.get("requires_approval", [])
        default_all: bool | None = None
        if isinstance(raw, bool):
            default_all, always = raw, []
        elif isinstance(raw, list) and all(isinstance(v, str) for v in raw):
            always = list(raw)
        else:
            raise ConfigurationError(f"{where}: requires_approval must be true, false or a list of method names "
                                     f"or patterns (e.g. [\"create_*\", \"git_commit\"]); got {shown(raw)}.")
        never = get_str_list(table, "no_approval", where)
        both = set(always) & set(never)
        if both:
            raise ConfigurationError(f"{where}: {sorted(both)} is listed in both requires_approval and no_approval.")
        return cls(tuple(always), tuple(never), default_all)

    @classmethod
    def from_arguments(cls, requires_approval: bool | Collection[str], no_approval: Collection[str]) -> ApprovalRule:
        """The rule given to a connector's constructor (``True``/``False`` for all, or names/patterns)."""
        if isinstance(requires_approval, bool):
            return cls((), tuple(no_approval), requires_approval)
        return cls(tuple(requires_approval), tuple(no_approval))

    def decide(self, names: Sequence[str], default: bool) -> bool:
        """Approval for a method known by ``names`` (its original and sanitized names)."""
        if any(_matches(p, names) for p in self.always):
            return True
        if any(_matches(p, names) for p in self.never):
            return False
        return default if self.default_all is None else self.default_all

    def check_known(self, known: Mapping[str, str], where: str) -> None:
        """Refuse exact names that match no method, and ``requires_approval`` patterns that match none: the
        call such a pattern was written to guard (a typo, a tool the server renamed) would run with nobody asked
        (review 16, M5); the connector is then unavailable, as for include/exclude. A ``no_approval`` pattern that
        matches nothing only asks more, and is let be. ``known`` maps every name to its method."""
        for key, patterns in (("requires_approval", self.always), ("no_approval", self.never)):
            for p in patterns:
                if not _WILDCARDS.search(p):
                    if p not in known:
                        raise ConfigurationError(_unknown_method(where, key, p, known))
                elif key == "requires_approval" and not _matches(p, known):
                    raise ConfigurationError(_unguarded(where, p, known))


def _unguarded(where: str, pattern: str, known: Mapping[str, str]) -> str:
    words = [w for w in re.split(r"[*?\[\]_]+", pattern) if len(w) > 2]
    near = sorted({name for name in known if any(w.lower() in name.lower() for w in words)})[:5]
    hint = f" Methods with its words: {', '.join(repr(n) for n in near)}." if near else ""
    return (f"{where}: requires_approval pattern {pattern!r} matches no method of this connector, so it guards "
            f"nothing and the calls it was meant for would run with nobody asked.{hint} Correct the pattern (or "
            "name the methods), or remove it.")


def _unknown_method(where: str, key: str, name: str, known: Mapping[str, str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=3)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"{where}: {key} names {name!r}, which is not a method of this connector.{hint}"


# -- reverts -------------------------------------------------------------------------------------


def _check_revert_args(where: str, key: str, revert: RevertMapping, schema: Any) -> None:
    """Refuse a revert argument its method's input schema does not name (unless the schema takes any)."""
    if not isinstance(schema, Mapping) or schema.get("additionalProperties", False) not in (False, None):
        return
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return
    for name in revert.args:
        if name not in properties:
            close = difflib.get_close_matches(str(name), [str(p) for p in properties], n=1)
            hint = f" Did you mean {close[0]!r}?" if close else f" Its arguments: {', '.join(map(str, properties))}."
            raise ConfigurationError(f"{where}: reverts.{key}.args names {name!r}, which {revert.method!r} does not "
                                     f"take.{hint}")


@dataclass(frozen=True)
class RevertMapping:
    """Undo a call by calling ``method`` with arguments rendered from the call's args and result."""

    method: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def render(self, call_args: Mapping[str, Any], result: Any) -> dict[str, Any]:
        return {k: _render(v, call_args, result, k) for k, v in self.args.items()}


def parse_reverts(table: Mapping[str, Any], where: str) -> dict[str, RevertMapping]:
    raw = table.get("reverts", {})
    if not isinstance(raw, Mapping):
        raise ConfigurationError(f"{where}: reverts must be a table like "
                                 "{ createPet = { method = \"deletePet\", args = { petId = \"$result.id\" } } }.")
    out: dict[str, RevertMapping] = {}
    for name, spec in raw.items():
        if isinstance(spec, str):
            spec = {"method": spec}
        if not isinstance(spec, Mapping) or not isinstance(spec.get("method"), str):
            raise ConfigurationError(f"{where}: reverts.{name} must be a method name or a table with a `method` "
                                     f"key (and optional `args`); got {shown(spec)}.")
        check_keys(spec, ("method", "args"), f"{where} reverts.{name}")
        args = spec.get("args", {})
        if not isinstance(args, Mapping):
            raise ConfigurationError(f"{where}: reverts.{name}.args must be a table; got {shown(args)}.")
        for key, value in args.items():
            _check_template(value, f"{where} reverts.{name}.args.{key}")
        out[str(name)] = RevertMapping(spec["method"], dict(args))
    return out


def reverts_from_arguments(reverts: Mapping[str, Any] | None, where: str) -> dict[str, RevertMapping | RevertFn]:
    """A connector constructor's ``reverts``: mappings, functions, or configuration-style tables."""
    out: dict[str, RevertMapping | RevertFn] = {}
    for key, spec in (reverts or {}).items():
        if isinstance(spec, RevertMapping) or callable(spec):
            out[key] = spec
        else:
            out.update(parse_reverts({"reverts": {key: spec}}, where))
    return out


def _check_template(value: Any, where: str) -> None:
    if isinstance(value, str) and value.startswith("$") and not value.startswith("$$"):
        head = value[1:].split(".", 1)[0]
        if head not in ("result", "args"):
            raise ConfigurationError(f"{where}: {value!r} must start with $result or $args (write $$ for a "
                                     "literal dollar sign).")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            _check_template(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_template(v, f"{where}[{i}]")


def _render(value: Any, call_args: Mapping[str, Any], result: Any, where: str) -> Any:
    if isinstance(value, str) and value.startswith("$$"):
        return value[1:]
    if isinstance(value, str) and value.startswith("$"):
        head, _, rest = value[1:].partition(".")
        node: Any = result if head == "result" else call_args
        for part in rest.split(".") if rest else []:
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise ConnectorError(f"cannot revert: the revert argument {where!r} = {value!r} finds nothing "
                                     f"(no {part!r} there). Fix the reverts mapping in the configuration.")
        return node
    if isinstance(value, Mapping):
        return {k: _render(v, call_args, result, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_render(v, call_args, result, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


# -- the policy ----------------------------------------------------------------------------------

#: How a connector calls one of its methods (by method name) to revert another call.
CallMethod = Callable[[str, dict[str, Any], ExecutionContext], Awaitable[Any]]


@dataclass(frozen=True)
class ConnectorPolicy:
    """Approval and reverts of a connector's methods: the same rule for Python, MCP and OpenAPI connectors."""

    approval: ApprovalRule = field(default_factory=ApprovalRule)
    reverts: Mapping[str, RevertMapping | RevertFn] = field(default_factory=dict)

    @classmethod
    def from_table(cls, table: Mapping[str, Any], where: str) -> ConnectorPolicy:
        """``requires_approval``, ``no_approval`` and ``reverts`` of a ``[connectors.<name>]`` table."""
        return cls(ApprovalRule.from_table(table, where), parse_reverts(table, where))

    @classmethod
    def from_arguments(cls, requires_approval: bool | Collection[str], no_approval: Collection[str],
                       reverts: Mapping[str, Any] | None, where: str) -> ConnectorPolicy:
        """A connector constructor's ``requires_approval``, ``no_approval`` and ``reverts``."""
        return cls(ApprovalRule.from_arguments(requires_approval, no_approval), reverts_from_arguments(reverts, where))

    def as_arguments(self) -> dict[str, Any]:
        """The constructor arguments that give this policy back (``from_config`` builds with them)."""
        rule = self.approval
        return {"requires_approval": rule.default_all if rule.default_all is not None else list(rule.always),
                "no_approval": list(rule.never), "reverts": dict(self.reverts)}

    def check(self, known: Mapping[str, str], where: str, *, labels: Collection[str] = (),
              schemas: Mapping[str, Any] | None = None) -> None:
        """Refuse names that match no method; ``known`` maps every name of a method to the method.

        ``labels`` are further names approval rules may use (OpenAPI's ``tag:<tag>``). ``schemas``
        (each method's input schema) lets a revert's argument names be checked too: a name the
        method does not take failed only at rollback, when the person needed it (review 14x, M15).
        """
        self.approval.check_known({**known, **dict.fromkeys(labels, "")}, where)
        for key, revert in self.reverts.items():
            if key not in known:
                raise ConfigurationError(_unknown_method(where, "reverts", key, known))
            if isinstance(revert, RevertMapping) and revert.method not in known:
                raise ConfigurationError(_unknown_method(where, f"reverts.{key}.method", revert.method, known))
            if isinstance(revert, RevertMapping) and schemas is not None:
                _check_revert_args(where, key, revert, schemas.get(known[revert.method]))

    def requires_approval(self, names: Sequence[str], default: bool) -> bool:
        """Approval for the method known by ``names``; ``default`` is the connector's own answer."""
        return self.approval.decide(names, default)

    def revert(self, names: Sequence[str], known: Mapping[str, str], call: CallMethod, *,
               schemas: Mapping[str, Any] | None = None) -> RevertFn | None:
        """The configured compensation of the method known by ``names``, or None.

        A function is used as it is; a :class:`RevertMapping` calls another method through
        ``call`` with arguments rendered from the call's arguments and result. The rendered
        arguments are checked against that method's input schema (``schemas``, by method name) as a
        program's call is (review 15 M7): they come from the service's answer, and a rollback asks no
        approval; arguments the schema refuses send nothing, and the revert fails saying why.
        """
        spec = next((self.reverts[n] for n in names if n in self.reverts), None)
        if spec is None or not isinstance(spec, RevertMapping):
            return spec
        mapping, method = spec, known[spec.method]
        schema = (schemas or {}).get(method)
        checker: list[Any] = []

        async def run_revert(args: dict[str, Any], result: Any, ctx: ExecutionContext) -> Any:
            rendered = mapping.render(args, result)
            if schema is not None:
                if not checker:
                    from codemode_kernel.validation import InputValidator

                    checker.append(InputValidator(f"the revert {method}", schema))
                problem = checker[0].errors(rendered)
                if problem is not None:
                    raise ConnectorError(f"the revert {method}(...) was not sent: the arguments its mapping gave "
                                         f"(from the call's arguments and result) do not fit {method}'s input: "
                                         f"{problem}. Undo the call by hand.")
            return await call(method, rendered, ctx)

        return run_revert


class WithPolicy(Connector):
    """A Python connector (a ``python = ...`` table) with the configuration's approval rules and reverts.

    Configured rules decide first; methods they do not name keep what the connector says. A
    configured revert replaces the connector's own for that method. Everything else is the
    wrapped connector's: its instructions, its secrets (so what this wrapper adds is redacted
    of them too), why it is unavailable (``failure_summary``), its hooks.
    """

    def __init__(self, inner: Connector, policy: ConnectorPolicy, *, where: str) -> None:
        self.inner = inner
        self.policy = policy
        self.where = where
        self.name = inner.name

    @property  # type: ignore[override]  # the wrapped connector's, read when asked
    def instructions(self) -> str | None:
        return self.inner.instructions

    @instructions.setter
    def instructions(self, value: str | None) -> None:
        self.inner.instructions = value

    @property  # type: ignore[override]
    def failure_summary(self) -> str | None:
        return self.inner.failure_summary

    @failure_summary.setter
    def failure_summary(self, value: str | None) -> None:
        self.inner.failure_summary = value

    def secrets(self) -> Collection[str]:
        return self.inner.secrets()

    async def tools(self) -> Mapping[str, Tool]:
        raw = self.inner.tools()
        tools: Mapping[str, Tool] = await raw if inspect.isawaitable(raw) else raw
        decorated = {n: self.inner.tool(n, t) for n, t in tools.items()}
        known = {n: n for n in decorated}
        self.policy.check(known, self.where, schemas={n: t.input_schema for n, t in decorated.items()})

        async def call(method: str, args: dict[str, Any], ctx: ExecutionContext) -> Any:
            result = decorated[method].execute(args, ctx)
            return await result if inspect.isawaitable(result) else result

        out: dict[str, Tool] = {}
        for n, t in decorated.items():
            revert = self.policy.revert([n], known, call, schemas={m: t.input_schema for m, t in decorated.items()})
            t = t.with_approval(self.policy.requires_approval([n], t.requires_approval))
            out[n] = redacting(t.with_revert(revert), self.secrets) if revert is not None else t
        return out

    async def on_pass_end(self, execution_id: str, status: PassEndStatus) -> None:
        await self.inner.on_pass_end(execution_id, status)

    async def dispose_execution(self, execution_id: str, status: Any) -> None:
        await self.inner.dispose_execution(execution_id, status)

    async def aclose(self) -> None:
        await self.inner.aclose()


def jsonable(value: Any) -> Any:
    """Arguments as JSON values: tuples become lists, bytes base64 text, datetimes ISO text."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value
