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
import json
import os
import re
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from codemode_kernel.connectors.base import Connector
from codemode_kernel.errors import ConnectorError

#: Fingerprints of targets given in words start with this; those of objects with :data:`_OBJECT`.
_NAMED = "t:"
_OBJECT = "o:"

_tokens: weakref.WeakKeyDictionary[Connector, str] = weakref.WeakKeyDictionary()
_process = hashlib.sha256(os.urandom(16)).hexdigest()[:16]
_counter = itertools.count()


#: PBKDF2 rounds for the part of a target that may hold a credential (~15 ms once per distinct value set).
SECRET_ROUNDS = 20_000
_SALT = b"codemode-kernel connector target"
_digests: dict[str, str] = {}


def secret_part(label: str, values: Mapping[str, str]) -> str:
    """``" label#digest"`` for settings that pick the backend (an MCP server's ``env`` and ``headers``, an
    OpenAPI connector's ``headers`` and account; review 15 H1, 15x M10), or ``""`` for none. ``${VAR}``
    references are read from the environment, as the connection would (an unset one stays as written).
    A setting whose name is a credential's (:func:`credential_name`: TOKEN, Authorization, ...) counts by its
    name and the ``${VAR}`` names it reads only, and a URL without its password: those rotate while the backend
    stays. The digest is a slow salted hash all the same: what is left may name a user or a host, and the journal
    keeps its hash."""
    if not values:
        return ""
    from codemode_kernel.connectors.policy import expand_env  # policy imports the connectors' base, as we do

    def resolved(text: str) -> str:
        try:
            return expand_env(text, "target")
        except ConnectorError:
            return text

    def kept(name: str, text: str) -> str:
        # A credential rotates without the backend changing: its name counts, not its value (review 15x M10);
        # a URL's password likewise. Which variable it is read from is the account, though ("Bearer ${ALICE}"
        # or "${BOB}"), and so is a setting only named like a credential ("X-Author", "KEYSPACE", a URL under
        # "AUTH_URL"): those count (review 16 H1).
        if credential_name(name.rsplit(" ", 1)[-1]) and "://" not in text:
            read_from = sorted(set(_ENV_REF.findall(text)))
            return "(a credential" + (f" from ${', $'.join(read_from)})" if read_from else ")")
        return without_password(resolved(text))

    text = json.dumps({k: kept(k, v) for k, v in values.items()}, sort_keys=True, ensure_ascii=False)
    data = text.encode("utf-8", "surrogatepass")
    key = hashlib.sha256(data).hexdigest()
    digest = _digests.get(key)
    if digest is None:
        digest = _digests.setdefault(key, hashlib.pbkdf2_hmac("sha256", data, _SALT, SECRET_ROUNDS).hex()[:32])
    return f" {label}#{digest}"


_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: The words that make a setting's name a credential's, as whole words of it (``X-Api-Key``, ``GITHUB_TOKEN``,
#: ``Authorization``, ``db_password``), not as any part (``X-Author``, ``KEYSPACE``, ``X-Session-Db``: review 16 H1).
#: The redactor's test (``secrets.looks_secret``) stays the wide one: redacting too much costs little.
_CREDENTIAL_WORDS = frozenset({"token", "tokens", "secret", "secrets", "password", "passwd", "pwd", "pass",
                               "passphrase", "apikey", "key", "keys", "cookie", "cookies", "credential", "credentials",
                               "bearer", "signature", "authorization", "auth", "pat", "jwt"})
_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def credential_name(name: str) -> bool:
    """Whether a setting's name says its value is a credential, judged by its whole words."""
    return any(word.lower() in _CREDENTIAL_WORDS for word in _NAME_WORDS.findall(name))


def masked(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret value written ``(a credential)`` and URL passwords dropped: what a target keeps of
    a command line, a URL or options that carry a credential (review 16, M1). The fast hash of a target must
    not be an offline oracle for a password, and a rotated credential is the same backend."""
    for secret in sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True):  # as the redactor's
        text = text.replace(secret, "(a credential)")
    return without_password(text)


def without_password(text: str) -> str:
    """``text`` with any ``scheme://user:password@`` written ``scheme://user@``."""
    return _URL_PASSWORD.sub(r"\1@", text)


_URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*):[^/\s@]*@")


def _inner(connector: Connector) -> Connector:
    inner = connector
    while (wrapped := getattr(inner, "inner", None)) is not None and isinstance(wrapped, Connector):
        inner = wrapped  # a configuration's policy wrapper acts on what it wraps
    return inner


def fingerprint(connector: Connector) -> str:
    """The fingerprint an execution records for ``connector``: its target's hash, or this object's token."""
    inner = _inner(connector)
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


#: The words a refusal ends with where the person loads a configuration again and rejects an execution; the
#: doors put their own commands in their place (``commands.door_text``: ``%reload`` / ``%reject ID`` in a
#: notebook, ``codemode reject ID`` in a terminal, whose every command reads codemode.toml afresh).
RELOADED = ", load it again and "


def refusal(execution_id: str, verb: str, changed: Sequence[tuple[str, str]]) -> str:
    """Why ``verb`` (``roll back``, ``approve``) refused: which connectors, why, and what to do (review 15x, M2)."""
    names = [name for name, _ in changed]
    shown = ", ".join(repr(name) for name in names)
    several = len(changed) > 1
    s = "s" if several else ""
    made_in_code = [name for name, then in changed if then.startswith(_OBJECT)]
    configured = [name for name in names if name not in made_in_code]
    nothing = "nothing was rolled back" if verb == "roll back" else "nothing was approved"
    again = "roll it back" if verb == "roll back" else "approve it"
    were = "they were" if several else "it was"
    # A rollback checks the connectors the execution called; an approval every one it started with, called or
    # not yet (its later passes may call them): said so, not "made its calls on" (review 16x, M3).
    used = "made its calls on" if verb == "roll back" else "was started with"
    text = (f"Execution {execution_id!r} {used} connector{s} {shown} as {were} "
            f"configured then; the connector{s} of {'those names' if several else 'that name'} configured now may act "
            f"on another backend, so {nothing}: it would run where the execution never ran.")
    if configured:
        tables = ", ".join(f"[connectors.{name}]" for name in configured)
        text += (f" The configuration of {', '.join(repr(n) for n in configured)} changed since (another server, URL, "
                 f"command or options): put it back as it was (codemode.toml's {tables}, or the connector given to the "
                 f"runtime){RELOADED}{again}.")
    if made_in_code:
        text += (f" {', '.join(repr(n) for n in made_in_code)} {'were' if len(made_in_code) > 1 else 'was'} made in "
                 "code without a target=, so only that very object, in the process that ran the execution, is known to "
                 f"act on the same backend: {again} from there, or give the connector the same target= in both, e.g. "
                 f"ToolSetConnector([...], name={made_in_code[0]!r}, target='notes database /srv/notes.db').")
    if verb == "approve":
        text += f" Or reject the execution, which ends it without running the call: runtime.reject({execution_id!r})."
    return text


# -- tool definitions ------------------------------------------------------------------------------
#
# A target says where a connector acts, not what its tools are: an MCP server lists them at every start, and an
# upgraded server (or one pointed at other data) may give a method another input schema, or its name to another
# tool. An execution records, beside its targets, the definition digest of each method an approval or a rollback
# may send (McpConnector.method_digests / recorded_methods: the methods that need approval and the reverts'
# tools), keyed "connector.method" (a flat map of strings, which the journal keeps as JSON text once per value).
# Per method rather than one digest of all tools: a change to a tool the approval does not send refuses nothing.
# Rejected: one digest of the whole tool list in the target (as OpenAPI's routes#): any tool added, removed or
# edited would refuse every paused execution on that server.


def tool_digests(connectors: Mapping[str, Connector]) -> dict[str, str]:
    """``{"connector.method": digest}`` of the methods whose definition an execution records (see above)."""
    out: dict[str, str] = {}
    for name, connector in connectors.items():
        inner = _inner(connector)
        digests = getattr(inner, "method_digests", None)
        if not digests:
            continue
        for method in getattr(inner, "recorded_methods", ()):
            digest = digests.get(method)
            if isinstance(digest, str):
                out[f"{name}.{method}"] = digest
    return out


def tools_changed(recorded: Any, connectors: Mapping[str, Connector], calls: Callable[[], Iterable[tuple[str, str]]],
                  *, reverts: bool = False) -> list[str]:
    """``"connector.method"`` of the tools among ``calls()`` (``(connector, method)`` pairs; with ``reverts``, the
    tools their reverts call) whose definition is not the one ``recorded`` (an execution's ``tools`` option).

    ``calls`` is asked only when a recorded definition changed at all (it may read the journal). An execution
    recorded before definitions were (no ``tools``), or a method it has no digest of, is not refused: nothing
    known changed. A recorded method the server no longer lists counts as changed."""
    if not isinstance(recorded, Mapping) or not recorded:
        return []
    now: dict[str, str] = {}
    for name, connector in connectors.items():
        digests = getattr(_inner(connector), "method_digests", None)
        if isinstance(digests, Mapping):
            now.update((f"{name}.{method}", d) for method, d in digests.items())
    if all(now.get(key) == then for key, then in recorded.items()):
        return []
    out: set[str] = set()
    for name, called in calls():
        sent: Any = called
        if reverts:
            owner = connectors.get(name)
            to = getattr(_inner(owner), "revert_methods", None) if owner is not None else None
            sent = to.get(called) if isinstance(to, Mapping) else None
            if not isinstance(sent, str):
                continue  # a revert function: what it calls is not known here
        key = f"{name}.{sent}"
        then = recorded.get(key)
        if isinstance(then, str) and now.get(key) != then:
            out.add(key)
    return sorted(out)


def tool_refusal(execution_id: str, verb: str, tools: Sequence[str]) -> str:
    """Why ``verb`` (``roll back``, ``approve``) refused: the server defines ``tools`` otherwise now."""
    several = len(tools) > 1
    shown = ", ".join(tools)
    which = "which its MCP server defines" if not several else "which their servers define"
    what = (f"would send {shown}" if verb == "approve" else f"would revert its calls with {shown}")
    nothing = "nothing was rolled back" if verb == "roll back" else "nothing was approved"
    again = "roll it back" if verb == "roll back" else "approve it"
    shown_as = ("the call was shown for the tool as it was" if verb == "approve"
                else "the revert was configured for the tool as it was")
    text = (f"Execution {execution_id!r} {what}, {which} otherwise now than when the execution ran (another input "
            f"schema, or the name stands for another of its tools), so {nothing}: {shown_as}. Put the server back "
            f"as it was (its version, or what it is pointed at){RELOADED}{again}")
    if verb == "approve":
        return text + (f". Or reject the execution, which ends it without running the call, and run the program "
                       f"again: runtime.reject({execution_id!r}).")
    return text + ", or undo the calls by hand."
