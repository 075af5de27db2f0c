"""The catalog: every configured connector's methods, resolved once and validated."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from codemode_kernel.codec import MAX_NAME_CHARS
from codemode_kernel.connectors.base import Connector, Tool, sanitize_identifier
from codemode_kernel.errors import ConfigurationError
from codemode_kernel.targets import fingerprint
from codemode_kernel.validation import InputValidator

RESERVED_NAMES = frozenset({"codemode", "input", "print", "printed"})


@dataclass(frozen=True)
class Method:
    connector: str
    name: str
    tool: Tool

    @property
    def path(self) -> str:
        return f"{self.connector}.{self.name}"

    @cached_property
    def validator(self) -> InputValidator:
        """The compiled input schema, built on the first call and kept with the method."""
        return InputValidator(self.path, self.tool.input_schema)


def check_connector_names(connectors: Iterable[Connector]) -> dict[str, Connector]:
    """Refuse duplicate, reserved and non-identifier connector names."""
    out: dict[str, Connector] = {}
    for c in connectors:
        if not isinstance(c, Connector):
            raise ConfigurationError(f"{c!r} is not a Connector (subclass codemode_kernel.Connector or use "
                                     "ToolSetConnector for plain functions)")
        name = c.name
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"connector {type(c).__name__} has no name: set its `name` attribute")
        if name in RESERVED_NAMES:
            raise ConfigurationError(f"a connector cannot be named {name!r}: that global is reserved by Code Mode; "
                                     "choose another name")
        if len(name) > MAX_NAME_CHARS:
            raise ConfigurationError(f"connector name {name[:40]!r}… is {len(name):,} characters; the limit is "
                                     f"{MAX_NAME_CHARS}: choose a shorter name")
        if sanitize_identifier(name) != name:
            raise ConfigurationError(f"connector name {name!r} is not a valid sandbox identifier; "
                                     f"use e.g. {sanitize_identifier(name)!r}")
        if name in out:
            raise ConfigurationError(f"two connectors are named {name!r}; connector names must be unique")
        out[name] = c
    return out


class Catalog:
    """Methods by connector, after the ``tool(name, t)`` decoration hook."""

    def __init__(self, methods: Mapping[str, Mapping[str, Method]], connectors: Mapping[str, Connector],
                 unavailable: Mapping[str, str] | None = None, *, starting: frozenset[str] = frozenset()) -> None:
        self.methods = {k: dict(v) for k, v in methods.items()}
        self.connectors = {k: v for k, v in connectors.items() if k in self.methods}
        # Every connector it was given, listed or not (one that failed, one still starting, one left out by
        # only()): whose secrets a pass redacts from every answer (review 16, C1).
        self.configured = dict(connectors)
        # Connectors whose tools() failed (an MCP server that did not start): left out, with the reason.
        self.unavailable = dict(unavailable or {})
        # Connectors whose tools() has not answered yet (CatalogResolver): left out of this catalog only.
        self.starting = starting
        self._namespaces: dict[str, list[str]] | None = None

    @classmethod
    def resolve_sync(cls, connectors: Mapping[str, Connector]) -> Catalog | None:
        """Resolve when every ``tools()`` is synchronous and returns; None otherwise.

        None leaves the work to :meth:`resolve` at the first pass, which reports a connector
        whose ``tools()`` raises as unavailable instead of failing the runtime. A tool list that
        breaks a rule (:meth:`_build`) still fails here, when the runtime is built.
        """
        raw: dict[str, Mapping[str, Tool]] = {}
        for name, c in connectors.items():
            if inspect.iscoroutinefunction(type(c).tools):
                return None
            try:
                tools = c.tools()
            except Exception:
                return None
            if inspect.isawaitable(tools):
                _close(tools)
                return None
            raw[name] = tools
        return cls._build(raw, connectors)

    @classmethod
    async def resolve(cls, connectors: Mapping[str, Connector]) -> Catalog:
        """Resolve every connector; one whose tools cannot be listed or used is left out and reported.

        A server that is down, or a tool list that breaks a naming rule, must not take the
        other connectors with it: the reason is kept in ``unavailable`` and shown in errors.
        """
        methods: dict[str, dict[str, Method]] = {}
        unavailable: dict[str, str] = {}
        for name, c in connectors.items():
            try:
                tools = c.tools()
                if inspect.isawaitable(tools):
                    tools = await tools
                methods.update(cls._build({name: tools}, {name: c}).methods)
            except Exception as exc:
                unavailable[name] = str(exc) if isinstance(exc, ConfigurationError) else f"{type(exc).__name__}: {exc}"
        return cls(methods, {k: v for k, v in connectors.items() if k in methods}, unavailable)

    @classmethod
    def _build(cls, raw: Mapping[str, Mapping[str, Tool]], connectors: Mapping[str, Connector]) -> Catalog:
        methods: dict[str, dict[str, Method]] = {}
        for cname, tools in raw.items():
            c = connectors[cname]
            seen: dict[str, str] = {}
            out: dict[str, Method] = {}
            for tname, t in tools.items():
                ident = sanitize_identifier(tname)
                if len(ident) > MAX_NAME_CHARS:  # the journal keeps names in bounded columns (review 14, M3)
                    raise ConfigurationError(
                        f"connector {cname!r}: tool {tname[:40]!r}… has a name of {len(ident):,} characters; the limit "
                        f"is {MAX_NAME_CHARS} (override the connector's tool names, or leave the tool out)")
                if ident in seen:
                    raise ConfigurationError(
                        f"connector {cname!r}: tools {seen[ident]!r} and {tname!r} both become the method "
                        f"name {ident!r}; rename one of them (or override the connector's tool names)")
                seen[ident] = tname
                decorated = c.tool(ident, t)
                if not isinstance(decorated, Tool):
                    raise ConfigurationError(f"{cname}.tool({ident!r}, ...) must return a Tool")
                if decorated.replay not in ("log", "reexecute"):
                    raise ConfigurationError(f"{cname}.{ident}: replay must be 'log' or 'reexecute'")
                if decorated.replay == "reexecute" and decorated.requires_approval:
                    raise ConfigurationError(
                        f"{cname}.{ident}: replay='reexecute' cannot be combined with requires_approval "
                        "(an approved action must run exactly once; re-executing it on every pass would repeat it)")
                out[ident] = Method(cname, ident, decorated)
            methods[cname] = out
        return cls(methods, connectors)

    @cached_property
    def targets(self) -> dict[str, str]:
        """Each connector's fingerprint (:func:`codemode_kernel.targets.fingerprint`), as executions record it."""
        return {name: fingerprint(c) for name, c in self.connectors.items()}

    def only(self, names: Collection[str]) -> Catalog:
        """This catalog with the connectors ``names`` alone (self when it has no other).

        A paused execution's later passes run over the connectors its first pass had (its recorded
        ``connectors``), not over whatever the runtime that approves it has: a model's program approved in
        the notebook's kernel does not reach the notebook's other connectors, and a connector that was down
        when the execution started stays out of it, as it was then (review 16, C3 and H2). The secrets of
        every configured connector are still redacted (``configured``).
        """
        kept = set(names)
        if kept.issuperset(self.methods):
            return self
        return Catalog({k: v for k, v in self.methods.items() if k in kept}, self.configured,
                       {k: v for k, v in self.unavailable.items() if k in kept},
                       starting=frozenset(k for k in self.starting if k in kept))

    def namespaces(self) -> dict[str, list[str]]:
        """Each connector's method names, sorted: computed once (every pass hands them to the sandbox;
        ~0.14 ms for 3,000 methods), a fresh dict of the same lists on each call."""
        if self._namespaces is None:
            self._namespaces = {c: sorted(m) for c, m in self.methods.items()}
        return dict(self._namespaces)

    def get(self, connector: str, method: str) -> Method | None:
        return self.methods.get(connector, {}).get(method)

    def missing(self, connector: str, method: str) -> str:
        """Why ``connector.method`` is not a method, for the program (``get`` returned None)."""
        known = ", ".join(sorted(self.methods)) or "(none)"
        where = (f"connector {connector!r} has no method {method!r}" if connector in self.methods
                 else f"there is no connector {connector!r} (connectors: {known})")
        return f"{where}; use codemode.search(...) to find methods"

    def all_methods(self) -> Sequence[Method]:
        return [m for ms in self.methods.values() for m in ms.values()]



class CatalogResolver:
    """The catalog of a fixed set of connectors: resolved whole once, or kept without the ones that failed.

    Each connector is resolved in its own task. A caller that says what it ``needs`` (a pass: the
    connectors its program names) waits for those, and at the first resolution for the others only until
    :data:`START_GRACE_SECONDS` have passed since they began: a server that hangs at start keeps out of
    the passes that do not use it, the first cell of a notebook included, while one that fails at once is
    still reported by that cell; the kernel's warm-up (no ``needs``) waits for every one (review 15x,
    M13). Until its task ends, a connector is in ``catalog.starting``, neither listed nor unavailable.

    A connector whose ``tools()`` fails is left out (its reason is in ``catalog.unavailable``) and
    asked again, alone, when :data:`RETRY_SECONDS` have passed since it was last asked, or at
    once for a program that names it (``needs``) or when ``force`` is given: a server that was
    down comes back without restarting anything, and one that hangs at start does not make every
    pass wait its ``connect_timeout`` (review 14x, H3). Concurrent calls resolve once.
    ``on_resolve`` runs after each resolution (e.g. to drop a search index built on the last).
    """

    #: Seconds between two tries of a connector that failed, unless a program names it.
    RETRY_SECONDS = 60.0
    #: Seconds a connector has to start before passes that do not name it go on without it: a server that
    #: fails at once (a missing key, a typo) is still said by the first cell, one that hangs keeps out of it.
    START_GRACE_SECONDS = 3.0

    def __init__(self, connectors: Mapping[str, Connector], *, resolved: Catalog | None = None,
                 on_resolve: Callable[[], None] | None = None) -> None:
        self._connectors = connectors
        self._catalog = resolved
        self._lock = asyncio.Lock()
        self._on_resolve = on_resolve
        self._retry_at = 0.0
        self._tasks: dict[str, asyncio.Future[Catalog]] = {}  # a resolution in flight, by connector
        self._started_at: dict[str, float] = {}  # when each of those began (loop time)

    @property
    def last(self) -> Catalog | None:
        """The catalog last resolved, whole or not (None before the first resolution)."""
        return self._catalog

    @property
    def in_flight(self) -> list[str]:
        """The connectors whose start (or retry) is still running, sorted."""
        return sorted(name for name, task in self._tasks.items() if not task.done())

    @property
    def whole(self) -> Catalog | None:
        """The catalog once every connector resolved (kept for good), else None (:meth:`get` resolves)."""
        catalog = self._catalog
        return catalog if catalog is not None and not catalog.unavailable and not catalog.starting else None

    def _due(self, catalog: Catalog | None, needs: Callable[[str], bool] | None, force: bool,
             settled: bool = False) -> bool:
        if catalog is None:
            return True
        if catalog.starting and (needs is None or settled or any(t.done() for t in self._tasks.values())
                                 or any(needs(name) for name in catalog.starting)):
            return True
        if not catalog.unavailable:
            return False
        return force or time.monotonic() >= self._retry_at or (
            needs is not None and any(needs(name) for name in catalog.unavailable))

    async def get(self, *, needs: Callable[[str], bool] | None = None, force: bool = False,
                  settled: bool = False) -> Catalog:
        """The catalog; the connectors that failed are asked again if it is time (see the class).
        ``settled``: wait for every connector still starting, though ``needs`` names only some (a program
        that searches or runs snippets may use any)."""
        if not self._due(self._catalog, needs, force, settled):
            assert self._catalog is not None
            return self._catalog
        async with self._lock:
            last = self._catalog
            if not self._due(last, needs, force, settled):
                assert last is not None
                return last
            if last is None:
                asked = list(self._connectors)
            elif force or time.monotonic() >= self._retry_at or (
                    needs is not None and any(needs(name) for name in last.unavailable)):
                asked = list(last.unavailable)  # only the ones that failed: the others stay as they were resolved
            else:
                asked = []
            loop = asyncio.get_running_loop()
            for name in asked:
                if name not in self._tasks:
                    self._tasks[name] = asyncio.ensure_future(Catalog.resolve({name: self._connectors[name]}))
                    self._started_at[name] = loop.time()
            if asked:
                self._retry_at = time.monotonic() + self.RETRY_SECONDS
            waited = [t for name, t in self._tasks.items() if needs is None or settled or needs(name)]
            others = [t for t in self._tasks.values() if t not in waited]
            # The grace is for the first resolution only (what the first cell reports); a later try of a
            # connector that failed goes on in the background for the passes that do not name it.
            grace = (max((self._started_at.get(name, 0.0) for name in self._tasks), default=0.0)
                     + self.START_GRACE_SECONDS - loop.time()) if last is None else 0.0
        if waited:  # outside the lock: another pass that needs less does not wait for these
            await asyncio.wait(waited)
        if others and grace > 0:  # the others get what is left of their start's grace (START_GRACE_SECONDS)
            await asyncio.wait(others, timeout=grace)
        async with self._lock:
            catalog = self._take(self._catalog)
            if catalog is not self._catalog:
                self._catalog = catalog
                if self._on_resolve is not None:
                    self._on_resolve()
            return catalog

    def _take(self, last: Catalog | None) -> Catalog:
        """``last`` with the results of the resolutions that ended (the same object when none did)."""
        done = {name: t for name, t in self._tasks.items() if t.done()}
        starting = frozenset(name for name in self._tasks if name not in done)
        if last is not None and not done and starting == last.starting:
            return last
        methods = dict(last.methods) if last is not None else {}
        unavailable = dict(last.unavailable) if last is not None else {}
        for name, task in done.items():
            del self._tasks[name]
            self._started_at.pop(name, None)
            methods.pop(name, None)
            unavailable.pop(name, None)
            if task.cancelled():
                unavailable[name] = "its start was cancelled"
                continue
            result = task.result()  # Catalog.resolve reports a failure as unavailable, never raises
            methods.update(result.methods)
            unavailable.update(result.unavailable)
        for name in starting:
            unavailable.pop(name, None)
        return Catalog(methods, self._connectors, unavailable, starting=starting)

    async def aclose(self) -> None:
        """Stop the resolutions still in flight (a server still starting when the runtime closes)."""
        tasks, self._tasks, self._started_at = list(self._tasks.values()), {}, {}
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


def _close(awaitable: Any) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
