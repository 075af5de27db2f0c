"""ToolSetConnector: a connector made of plain Python functions."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from codemode_kernel.connectors.base import Connector, ReplayPolicy, RevertFn, Tool, tool
from codemode_kernel.errors import ConfigurationError


class ToolSetConnector(Connector):
    """Expose plain functions as one connector namespace.

    Each function becomes a method named after it; its input schema comes from its type
    hints and docstring. ``requires_approval`` is a set of function names (or ``True`` for
    all), ``reverts`` maps a function name to ``revert(args, result, ctx)``, ``reexecute``
    names methods whose results are not stored for replay. ``target`` says what the functions act
    on (``"notes database /srv/notes.db"``): a rollback or an approval from another process (another
    host, a restarted kernel) needs the same target, since the functions alone do not show which
    backend they reach (:attr:`Connector.target`).

    >>> def add_note(text: str) -> dict: ...
    >>> notes = ToolSetConnector([add_note], name="notes", requires_approval={"add_note"})
    """

    def __init__(
        self,
        functions: Iterable[Callable[..., Any]],
        *,
        name: str,
        instructions: str | None = None,
        requires_approval: Collection[str] | bool = (),
        reverts: Mapping[str, RevertFn] | None = None,
        reexecute: Collection[str] = (),
        target: str | None = None,
    ) -> None:
        self.name = name
        self.instructions = instructions
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise ConfigurationError(f"ToolSetConnector {name!r}: target must be a non-empty string saying what "
                                     f"the functions act on (e.g. 'notes database /srv/notes.db'); got {target!r}")
        self.target = target
        self._functions: dict[str, Callable[..., Any]] = {}
        for fn in functions:
            fname = getattr(fn, "__name__", None)
            if not fname or fname == "<lambda>":
                raise ConfigurationError(f"ToolSetConnector {name!r}: every function needs a name (got {fn!r})")
            if fname in self._functions:
                raise ConfigurationError(f"ToolSetConnector {name!r}: two functions are named {fname!r}")
            self._functions[fname] = fn
        known = set(self._functions)
        approval = known if requires_approval is True else set(requires_approval or ())
        for label, names in (("requires_approval", approval), ("reverts", set(reverts or {})),
                             ("reexecute", set(reexecute))):
            unknown = names - known
            if unknown:
                raise ConfigurationError(
                    f"ToolSetConnector {name!r}: {label} names unknown function(s) {sorted(unknown)}; "
                    f"the functions are {sorted(known)}"
                )
        self._approval = approval
        self._reverts = dict(reverts or {})
        self._reexecute = set(reexecute)

    def tools(self) -> Mapping[str, Tool]:
        out: dict[str, Tool] = {}
        for fname, fn in self._functions.items():
            replay: ReplayPolicy = "reexecute" if fname in self._reexecute else "log"
            out[fname] = tool(
                fn,
                requires_approval=fname in self._approval,
                revert=self._reverts.get(fname),
                replay=replay,
            )
        return out
