"""Which execution a person means: ``last``, a full id, or a unique id prefix (issue 11).

The notebook's magics and cards, the ``codemode`` command and the side panel all accept
``last`` and id prefixes; they resolve them here, so ``last`` means the same everywhere:

| purpose | ``last`` is the newest execution that is |
|---|---|
| ``approve``, ``reject`` | paused |
| ``rollback`` | completed, error or rejected |
| ``snippet`` | completed or rolled back |
| anything else (``show``, ``delete``) | of any status |
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codemode_kernel.errors import CodemodeError, UnknownExecutionError

if TYPE_CHECKING:
    from codemode_kernel.runtime import CodemodeRuntime

#: The statuses ``last`` may name, per purpose; a purpose not listed takes any status.
LAST_STATUSES: dict[str, tuple[str, ...]] = {
    "approve": ("paused",),
    "reject": ("paused",),
    "rollback": ("completed", "error", "rejected"),
    "snippet": ("completed", "rolled_back"),
}
#: The shortest id prefix accepted (ids are 26 characters; 6 tells thousands apart).
ID_PREFIX_MIN = 6
#: How many recent executions ``last`` and prefixes look through.
SCAN_LIMIT = 1000


async def resolve_execution(runtime: CodemodeRuntime, token: str, purpose: str | None = None) -> str:
    """The execution id ``token`` means for ``purpose`` (see the module's table).

    Raises :class:`~codemode_kernel.errors.CodemodeError` when ``last`` names nothing or a
    prefix is ambiguous, and :class:`~codemode_kernel.errors.UnknownExecutionError` when no
    execution matches.
    """
    token = token.strip()
    wanted = LAST_STATUSES.get(purpose or "")
    executions = await runtime.executions(limit=SCAN_LIMIT)
    if token == "last":
        for state in executions:
            if wanted is None or state.status in wanted:
                return state.id
        what = " or ".join(wanted) if wanted else "recorded"
        to = f" to {purpose}" if purpose else ""
        raise CodemodeError(f"There is no {what} execution{to}. List the executions with their status "
                            "(%executions in a notebook, `codemode executions` in a terminal).")
    if any(s.id == token for s in executions) or len(token) >= 26:
        return token
    if len(token) >= ID_PREFIX_MIN:
        matches = [s.id for s in executions if s.id.startswith(token.upper())]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise CodemodeError(f"{token!r} matches {len(matches)} executions; give more characters of the id.")
    raise UnknownExecutionError(token, runtime.name)
