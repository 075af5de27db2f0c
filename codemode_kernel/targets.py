"""What each connector acts on, as an execution recorded it: rollback and approve stay on that backend.

An execution records its connectors' *names* (DESIGN §5, "Connector set") and, since review 13
(M4), a fingerprint of each one's :attr:`~codemode_kernel.Connector.target`: the server, URL,
command or configuration it acts on. Two runtimes over one journal (two hosts on a shared store,
``codemode --store`` from another folder, a notebook after ``%reload`` pointed a table at another
server) may give one name to different backends; a rollback or an approval from the one whose
backend is not the execution's would revert or run calls where the execution never made them.

A connector with no target (made in code without ``target=``) is fingerprinted as that very
object, in this process: another object, or the same code in another process, is not shown to
act on the same backend, so it is refused with a message that says how to name the target.
The journal keeps only a hash: a target may hold a path or a host name, never a secret in clear.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from codemode_kernel.connectors.base import Connector

#: Fingerprints of targets given in words start with this; those of objects with :data:`_OBJECT`.
_NAMED = "t:"
_OBJECT = "o:"

_tokens: weakref.WeakKeyDictionary[Connector, str] = weakref.WeakKeyDictionary()
_process = hashlib.sha256(os.urandom(16)).hexdigest()[:16]
_counter = itertools.count()


def fingerprint(connector: Connector) -> str:
    """The fingerprint an execution records for ``connector``: its target's hash, or this object's token."""
    inner = connector
    while (wrapped := getattr(inner, "inner", None)) is not None and isinstance(wrapped, Connector):
        inner = wrapped  # a configuration's policy wrapper acts on what it wraps
    target = connector.target if connector.target is not None else inner.target
    if isinstance(target, str) and target:
        return _NAMED + hashlib.sha256(target.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    token = _tokens.get(inner)
    if token is None:
        token = _tokens.setdefault(inner, f"{_OBJECT}{_process}-{next(_counter)}")
    return token


def changed(recorded: Any, now: Mapping[str, str], names: Sequence[str]) -> list[tuple[str, str]]:
    """``(name, recorded fingerprint)`` of the connectors among ``names`` whose target is not the recorded one.

    An execution recorded before targets were (no ``targets`` in its options), or a name it has no
    fingerprint for, is not refused: nothing says another backend is meant. A name missing now is
    the caller's other refusal ("not configured now").
    """
    if not isinstance(recorded, Mapping):
        return []
    out = []
    for name in names:
        then = recorded.get(name)
        if isinstance(then, str) and name in now and now[name] != then:
            out.append((name, then))
    return out


def refusal(execution_id: str, verb: str, changed: Sequence[tuple[str, str]]) -> str:
    """Why ``verb`` (``roll back``, ``approve``) refused: which connectors, why, and what to do."""
    names = ", ".join(repr(name) for name, _ in changed)
    several = len(changed) > 1
    made_in_code = any(then.startswith(_OBJECT) for _, then in changed)
    why = ("it was made in code without a target= (so only that very object, in the process that ran the "
           "execution, is known to act on the same backend)" if made_in_code else
           "its configuration names another server, URL, command or options than when the execution ran")
    nothing = "nothing was rolled back" if verb == "roll back" else "nothing was approved"
    return (f"execution {execution_id!r} made its calls on connector{'s' if several else ''} {names} as "
            f"{'they were' if several else 'it was'} configured then, and the connector{'s' if several else ''} "
            f"of that name configured now may act on another backend: {why}. So {nothing}: it would run on a "
            f"backend the execution never used. {verb.capitalize()} it from the notebook, folder or host that ran it "
            "(with the same configuration); a connector made in code needs the same target= in both, e.g. "
            "ToolSetConnector([...], name='notes', target='notes database /srv/notes.db').")
