"""The secrets a connector knows, and the one function that takes them out of what leaves the host.

A connector configured with credentials (a bearer token, a password, an API key, ``${VAR}``
expansions in headers, a URL or an MCP server's ``env``) says which values are secret through
:meth:`Connector.secrets() <codemode_kernel.connectors.base.Connector.secrets>`. A
:class:`Redactor` replaces each of them with ``[redacted]``, also in the forms an upstream
echoes them in: URL-encoded (a query string quoted back), JSON-escaped, base64 (and basic
auth's ``base64(user:password)``, which the HTTP auth adds as a secret of its own).

Connectors apply it where their output crosses into the runtime: :func:`redacting` wraps a
tool's ``execute`` and ``revert`` (results, and the messages of errors, which become what the
sandbox code catches and what the journal stores), and connectors pass their tool
descriptions, schemas and the reasons ``tools()`` fails through it. Issue 10, item 5: a 401
body quoting ``Authorization: Bearer …`` reached sandbox code and the journal verbatim.

Which configured values count as secret (:func:`config_secrets`): every ``${VAR}``
expansion; the value of a header, env entry or query parameter whose name looks like a
credential (``Authorization``, ``*TOKEN*``, ``*KEY*``, ``*SECRET*``, ``*PASS*``, ...), and the
credential part of ``Bearer <token>``; a URL's password (also inside a header or env value);
a command-line value after such a flag (``--password p@ss``, ``--token=x``). Values shorter
than :data:`MIN_SECRET_CHARS` are not redacted: replacing every ``ab`` in every result would
garble the output without protecting a credential that short.

Rejected: redacting in the runtime's pass handler with a process-wide list of secrets (a
connector knows when its credential rotates, since it reads the environment at request time,
and the handler treats every connector alike); redacting only the exact value (the query-string
echo and basic auth's base64 slipped through).
"""

from __future__ import annotations

import base64
import functools
import inspect
import json
import logging
import os
import re
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit

from codemode_kernel.connectors.base import Connector, Tool
from codemode_kernel.errors import ConfigurationError, ConnectorError, OutcomeUnknown

log = logging.getLogger(__name__)

T = TypeVar("T")

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 4
#: The shortest secret also looked for inside base64, as UTF-16 and as hex: a run of base64 or hex that
#: short would match unrelated data (an image's base64) too often.
MIN_ENCODED_CHARS = 8
#: bytes.translate table: 1 for a base64 (either alphabet) or hex character, 0 for any other byte.
_RUN_BYTES = bytes(1 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/-_") else 0 for b in range(256))

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SECRET_NAME = re.compile(r"(?i)pass|pwd|secret|token|auth|key|cookie|credential|session|private|signature|bearer")
_SCHEME = re.compile(r"(?i)^(bearer|basic|token|digest|apikey|key)\s+(\S+)$")
_PERCENT = re.compile(r"%[0-9A-F]{2}")
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")

SecretsFn = Callable[[], Collection[str]]


def looks_secret(name: str) -> bool:
    """Whether a header, variable, parameter or flag name says its value is a credential."""
    return bool(_SECRET_NAME.search(name))


def forms(secret: str, *, encoded: bool = True) -> set[str]:
    """``secret`` and the encodings an upstream may echo it in (each at least MIN_SECRET_CHARS long); with
    ``encoded``, also its forms inside base64, as UTF-16 and as hex (:func:`_encoded_forms`)."""
    quoted = quote(secret, safe="")
    raw = secret.encode("utf-8")
    out = {secret, quoted, _PERCENT.sub(lambda m: m.group(0).lower(), quoted), quote_plus(secret),
           json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    for blob in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        text = blob.decode("ascii")
        out |= {text, text.rstrip("=")}  # padded, and unpadded as JWTs and URL-safe tokens carry it
    if encoded and len(secret) >= MIN_ENCODED_CHARS:
        out |= _encoded_forms(secret)
    return {f for f in out if len(f) >= MIN_SECRET_CHARS}


def _encoded_forms(secret: str) -> set[str]:
    """The forms a secret takes inside other encodings (s15o), a bounded set of 22 at most:

    * inside a base64 blob (a JWT's payload, a data: URL, a logged record): the base64 characters that
      depend on the secret's bytes alone, at each of the three byte alignments, in both alphabets, for
      its UTF-8 and its UTF-16-LE bytes (PowerShell's -EncodedCommand is base64 of UTF-16-LE): 12;
    * its UTF-16-LE and UTF-16-BE bytes read as one-byte text (``t\\x00o\\x00...``) and JSON-escaped
      (``t\\u0000o...``): 4, also matched as bytes;
    * the hex of its UTF-8, UTF-16-LE and UTF-16-BE bytes, either case: 6.

    Left out: other text encodings (UTF-32, EBCDIC), base32/base85, nested encodings (base64 of the
    URL-encoded secret): each is another alternative in every search, for echoes not seen in practice.
    """
    out: set[str] = set()
    utf8, le, be = secret.encode("utf-8"), secret.encode("utf-16-le"), secret.encode("utf-16-be")
    for data in (utf8, le):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            for align in (0, 1, 2):
                text = encode(b"\0" * align + data).decode("ascii")
                # characters covering only the secret's bits: from bit 8*align to bit 8*(align+len)
                out.add(text[-(-8 * align // 6):8 * (align + len(data)) // 6])
    for data in (le, be):
        text = data.decode("latin-1")
        out |= {text, json.dumps(text)[1:-1]}
    for data in (utf8, le, be):
        out |= {data.hex(), data.hex().upper()}
    return out


def _pattern(words: Collection[str]) -> re.Pattern[str]:
    """One pattern for any of ``words``, matching the longest one at a position (a form inside another).

    Written as a trie (``ab(?:c|d)``, not ``abc|abd``): a flat alternation tries every word at every
    position, and the forms of a secret inside base64, as UTF-16 and as hex (s15o) made that 4.8 times
    slower on a 5 kB text; the trie tries one branch per character. A flat alternation, longest first, if
    the trie cannot be compiled (nesting deeper than ``re`` takes)."""
    try:
        return re.compile(_trie(words))
    except (RecursionError, re.error, OverflowError):
        return re.compile("|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w))))


def _trie(words: Collection[str]) -> str:
    groups: dict[str, list[str]] = {}
    ends = False
    for word in words:
        if word:
            groups.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    branches = []
    for first, rests in sorted(groups.items()):
        # a run with one way on (no other word branches or ends inside it) is written as one literal
        common = len(os.path.commonprefix(rests))  # noqa: RUF071 (characters, not path parts)
        branches.append(re.escape(first + rests[0][:common]) + _trie([r[common:] for r in rests]))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 and not ends else "(?:" + "|".join(branches) + ")"
    return body + "?" if ends and branches else body


class Redactor:
    """Replaces every form of the given secrets with ``[redacted]`` in text and in JSON-like values."""

    def __init__(self, secrets: Iterable[str]) -> None:
        usable = [s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_CHARS]
        plain = {f for s in usable for f in forms(s, encoded=False)}
        encoded = {f for s in usable if len(s) >= MIN_ENCODED_CHARS for f in _encoded_forms(s)} - plain
        self._text = _pattern(plain) if plain else None
        # The encoded forms are searched only in a text that may hold one (_may_hold_encoded): one more
        # alternation over every text made a 5 kB text's redaction 2.3 times slower, even as a trie.
        self._encoded = _pattern(encoded) if encoded else None
        self._run = min((len(f) for f in encoded if "\x00" not in f and "\\u0000" not in f), default=0)
        self._shortest = min((len(f) for f in encoded), default=0)
        # bytes (rarer): one trie over every form's UTF-8 bytes, written one character per byte
        both = plain | encoded
        raw = _pattern({f.encode("utf-8").decode("latin-1") for f in both}) if both else None
        self._bytes = re.compile(raw.pattern.encode("latin-1")) if raw is not None else None

    def __bool__(self) -> bool:
        return self._text is not None

    def text(self, text: str) -> str:
        if self._text is None:
            return text
        out = self._text.sub(REDACTED, text)
        if self._encoded is not None and self._may_hold_encoded(out):
            out = self._encoded.sub(REDACTED, out)
        return out

    def _found(self, text: str) -> bool:
        assert self._text is not None
        if self._text.search(text) is not None:
            return True
        return self._encoded is not None and self._may_hold_encoded(text) and self._encoded.search(text) is not None

    def _may_hold_encoded(self, text: str) -> bool:
        """Whether ``text`` may hold an encoded form: a NUL (UTF-16 read as one-byte text, raw or escaped), or
        a run of base64 / hex characters as long as the shortest such form. Checked on the text's bytes
        mapped to 1 (those characters) or 0 (any other byte), with one substring search: a few
        microseconds for 5 kB, where searching the forms themselves took ~50."""
        if len(text) < self._shortest:  # most strings of a result: no form fits
            return False
        if "\x00" in text or "\\u0000" in text:
            return True
        if not self._run:
            return False
        return b"\x01" * self._run in text.encode("utf-8", "surrogatepass").translate(_RUN_BYTES)

    def value(self, value: Any) -> Any:
        """``value`` with every string (keys too) and bytes redacted; other values unchanged."""
        if self._text is None or self._clean(value):
            return value
        try:
            return self._walk_recursive(value)  # the quick walk, for the depths results have
        except RecursionError:  # deeper than the interpreter's stack (or a cycle): the same walk, on a list
            return self._walk(value)

    def _walk_recursive(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bytes):
            assert self._bytes is not None
            return self._bytes.sub(REDACTED.encode(), value)
        if isinstance(value, Mapping):
            return {self._walk_recursive(k): self._walk_recursive(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk_recursive(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._walk_recursive(v) for v in value)
        return value

    def _clean(self, value: Any) -> bool:
        """True when no form of a secret occurs in ``value``: one search over its JSON text.

        Sound for strings: each appears in the text JSON-escaped, and the JSON-escaped secret is
        one of its forms. Bytes (and anything JSON cannot write) are walked instead. Measured on a 1.2 M
        character result (10,000 objects): 76-144 ms to walk, 17-22 ms to check this way.
        """
        assert self._text is not None
        opaque = False

        def mark(_: Any) -> None:
            nonlocal opaque
            opaque = True

        try:
            text = json.dumps(value, ensure_ascii=False, default=mark)
        except (TypeError, ValueError, RecursionError):
            return False
        return not opaque and not self._found(text)

    def _leaf(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bytes):
            assert self._bytes is not None
            return self._bytes.sub(REDACTED.encode(), value)
        return value

    def _walk(self, value: Any) -> Any:
        """``value`` redacted, walked with a stack of its own: any depth, no RecursionError (s15o). A part
        shared by several places is redacted once and stays shared; a value that contains itself (no JSON
        value does) is a ConnectorError, not a loop."""
        if not isinstance(value, (Mapping, list, tuple)):
            return self._leaf(value)
        done: dict[int, Any] = {}  # id of a finished container -> its redacted copy
        open_ids: set[int] = set()  # the containers being walked (the current path)
        stack: list[_Frame] = []
        result: list[Any] = []

        def enter(item: Any) -> Any:
            """The redacted item when it is known now; else its frame is pushed and _PENDING returned."""
            if not isinstance(item, (Mapping, list, tuple)):
                return self._leaf(item)
            if id(item) in done:
                return done[id(item)]
            if id(item) in open_ids:
                raise ConnectorError("the connector's result refers to itself (a cycle), which no JSON value "
                                     "holds; it cannot be returned")
            open_ids.add(id(item))
            items = iter(item.items()) if isinstance(item, Mapping) else iter(item)
            stack.append(_Frame(item, items, {} if isinstance(item, Mapping) else []))
            return _PENDING

        def give(item: Any) -> None:
            if not stack:
                result.append(item)
                return
            frame = stack[-1]
            if isinstance(frame.out, dict):
                frame.out[frame.key] = item
            else:
                frame.out.append(item)

        enter(value)
        while stack:
            frame = stack[-1]
            nxt = next(frame.items, _PENDING)
            if nxt is _PENDING:
                stack.pop()
                open_ids.discard(id(frame.source))
                out = tuple(frame.out) if isinstance(frame.source, tuple) else frame.out
                done[id(frame.source)] = out
                give(out)
                continue
            if isinstance(frame.out, dict):
                key, nxt = nxt
                frame.key = self._walk(key) if isinstance(key, tuple) else self._leaf(key)
            item = enter(nxt)
            if item is not _PENDING:
                give(item)
        return result[0]

    def error(self, exc: Exception) -> Exception:
        """``exc``, or a ConnectorError with its message redacted when the message held a secret.

        Only the type name and the message cross into the sandbox and the journal; the
        original exception (and whatever it carries) stays on the host.
        """
        message = str(exc)
        cleaned = self.text(message)
        if cleaned == message:
            return exc
        # The kind the runtime records by stays: a sent request's unknown outcome is never retried.
        return OutcomeUnknown(cleaned) if isinstance(exc, OutcomeUnknown) else ConnectorError(cleaned)


_PENDING: Any = object()


class _Frame:
    """One container being redacted: its source, the iterator over its items, the copy being built."""

    __slots__ = ("items", "key", "out", "source")

    def __init__(self, source: Any, items: Any, out: dict[Any, Any] | list[Any]) -> None:
        self.source = source
        self.items = items
        self.out = out
        self.key: Any = None


@functools.lru_cache(maxsize=64)
def _cached(secrets: frozenset[str]) -> Redactor:
    return Redactor(secrets)


def redactor(secrets: Iterable[str]) -> Redactor:
    """A (cached) :class:`Redactor` for these secrets."""
    return _cached(frozenset(s for s in secrets if isinstance(s, str)))


def every_secret(connectors: Iterable[Connector]) -> Redactor:
    """One redactor for the secrets of all ``connectors`` (every configured one, listed or not): each
    connector redacts its own, and a host redacts any connector's answer of the others' with this (review
    15 H7; 16 C2: the journaled pass and the journal-less code tool alike). A connector whose
    ``secrets()`` raises keeps its own redaction only."""
    found: set[str] = set()
    for connector in connectors:
        try:
            found.update(s for s in connector.secrets() if isinstance(s, str) and s)
        except Exception:
            log.warning("connector %s: its secrets could not be read", connector.name, exc_info=True)
    return redactor(found)


def redacting(t: Tool, secrets: SecretsFn) -> Tool:
    """``t`` with its results and error messages redacted; ``secrets()`` is read at each call."""
    execute, revert = t.execute, t.revert
    wrapped_execute = _wrap(execute, secrets)
    wrapped_revert = _wrap(revert, secrets) if revert is not None else None
    return replace(t, execute=wrapped_execute, revert=wrapped_revert)


def _wrap(fn: Callable[..., Any], secrets: SecretsFn) -> Any:
    # Keep sync functions sync: the runtime runs them in a thread, and an async wrapper would
    # run them on the event loop instead.
    if inspect.iscoroutinefunction(fn):

        async def run_async(*args: Any) -> Any:
            r = redactor(secrets())
            try:
                result = await fn(*args)
            except Exception as exc:
                raise r.error(exc) from None
            return r.value(result)

        return run_async

    def run_sync(*args: Any) -> Any:
        r = redactor(secrets())
        try:
            result = fn(*args)
        except Exception as exc:
            raise r.error(exc) from None
        if inspect.isawaitable(result):
            return _finish(result, r)
        return r.value(result)

    return run_sync


async def _finish(awaitable: Any, r: Redactor) -> Any:
    try:
        result = await awaitable
    except Exception as exc:
        raise r.error(exc) from None
    return r.value(result)


# -- which configured values are secret ------------------------------------------------------------


async def listed(build: Callable[[], Awaitable[T]], *, name: str, doing: str, secrets: Iterable[str]) -> T:
    """``await build()`` for a connector's ``tools()``; any failure becomes a redacted ConfigurationError.

    The catalog keeps a failure's text for the notebook's author (``%connectors``), so it is
    redacted here whatever raised it; ``doing`` names the step (``listing its tools``).
    """
    try:
        return await build()
    except ConfigurationError as exc:
        raise ConfigurationError(redactor(secrets).text(str(exc))) from None
    except Exception as exc:  # anything else too: the catalog would keep it unredacted
        raise ConfigurationError(redactor(secrets).text(
            f"connector {name!r}: {doing} failed: {type(exc).__name__}: {exc}")) from None


def env_values(text: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """The current values of the ``${VAR}`` references in ``text`` (unset ones are skipped)."""
    env = os.environ if environ is None else environ
    return [env[m.group(1)] for m in _ENV_REF.finditer(text) if env.get(m.group(1))]


def _expanded(text: str, env: Mapping[str, str]) -> str:
    return _ENV_REF.sub(lambda m: env.get(m.group(1), ""), text)


def _credential_values(name: str, value: str, env: Mapping[str, str]) -> list[str]:
    out = url_secrets(value, env) if "://" in value else env_values(value, env)  # DATABASE_URL=postgres://u:pw@…
    if looks_secret(name):
        full = _expanded(value, env)
        out.append(full)
        scheme = _SCHEME.match(full.strip())
        if scheme:
            out.append(scheme.group(2))
    return out


def url_secrets(url: str | None, environ: Mapping[str, str] | None = None) -> list[str]:
    """A URL's password and credential-named query values, and its ``${VAR}`` expansions."""
    if not url:
        return []
    env = os.environ if environ is None else environ
    out = env_values(url, env)
    try:
        parts = urlsplit(_expanded(url, env))
        password = parts.password
    except ValueError:
        return out
    if password:
        out.append(password)
    out += [v for k, v in parse_qsl(parts.query) if looks_secret(k)]
    return out


def arg_secrets(args: Sequence[str], named: Callable[[str], bool] = looks_secret) -> list[str]:
    """Values given to credential-named flags (``--password p@ss``, ``--token=x``; ``named`` judges a flag's
    name: the wide test for redaction, whole words for a target), and the passwords and credential-named query
    values of every URL an argument holds (``postgresql://app:pw@db/prod`` as a positional argument,
    ``--db-url=...``: review 15 H5)."""
    out: list[str] = []
    for arg in args:
        for url in _URL_IN_TEXT.findall(arg):
            out += url_secrets(url)
    for i, arg in enumerate(args):
        if not arg.startswith("-"):
            continue
        flag, eq, value = arg.partition("=")
        if not named(flag.lstrip("-")):
            continue
        if eq:
            out.append(value)
        elif i + 1 < len(args) and not args[i + 1].startswith("-"):
            out.append(args[i + 1])
    return out


def config_secrets(*, headers: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None,
                   urls: Iterable[str | None] = (), args: Sequence[str] = (),
                   environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret value in a connector's configuration (see the module docstring for the rules)."""
    host_env = os.environ if environ is None else environ
    out: list[str] = []
    for mapping in (headers or {}, env or {}):
        for name, value in mapping.items():
            out += _credential_values(name, value, host_env)
    for url in urls:
        out += url_secrets(url, host_env)
    out += arg_secrets(args)
    return [s for s in out if s]
