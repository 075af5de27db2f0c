"""Identifiers a request quotes ("cus_123", "CF123"), read as the resource they name (issue 13, round 6).

Many APIs give each kind of object an identifier with a typed prefix, and their descriptions
say so: Twilio's parameters carry a pattern (``^CF[0-9a-fA-F]{32}$`` for a conference's SID),
Stripe's prefixes abbreviate the resource of the path that takes the identifier (``cus_`` for
``/v1/customers/{customer}``, ``pm_`` for ``/v1/payment_methods/{payment_method}``). A person
who quotes an identifier names its resource without saying the word, so the request is read
with the identifier replaced by the resource's words. Everything here comes from the catalog
itself: the parameters' patterns and the literal path segment before each path parameter.

An identifier is a token with a digit after its prefix: two to four capitals then hex digits
(``CF123``, ``XR456``), or lower-case words joined by underscores then an underscore and a tail
(``cus_123``, ``sub_sched_1``). A lower-case prefix names a path segment when

- each of its parts begins the segment's word in the same place (``cus`` customers,
  ``sub_sched`` subscription_schedules), or
- one part is the initials of a segment of two or more words (``pm`` payment_methods), or
- one part of three letters or more is an abbreviation of a one-word segment: its letters in
  order, starting with the word's first (``acct`` accounts).

A prefix that names nothing is left as it is. An ``owner/name`` token (``acme/api``) names the
resource the most paths identify by two parameters in a row (``/repos/{owner}/{repo}``: repos);
a version (``batch/v1``), a URL, a path or two stop words (``and/or``) are not read. Dev set, on
top of the rest: top-5 45.8 -> 47.9 %, MRR 0.302 -> 0.308; the tuning file has no such token.
The ranker also lowers the other connectors when only one defines a quoted identifier's kind
(``search.ID_ELSEWHERE``). An e-mail address names what a path parameter named for one identifies
(Gmail's ``{sendAsEmail}``, ``{delegateEmail}``) and its own words are dropped (READ_EMAILS; dev
MRR 0.352 -> 0.356, Gmail's 0.289 -> 0.312, top-1/top-5 unchanged; the tuning file quotes none).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from codemode_kernel.discovery.text import STOP, stem, stems

__all__ = ["IdReader", "pair_resources", "path_resources", "pattern_prefixes", "taken_ids"]

READ_EMAILS = True
# At most this many resources are read for one identifier (those tied for the commonest).
MOST = 3
# ``owner/name`` (acme/api, cli/cli): two names joined by a slash, not a version (batch/v1) nor a path.
_PAIR = re.compile(r"(?<![\w@./:-])([A-Za-z][\w-]*)/([A-Za-z][\w.-]*[\w])(?![\w/])")
_VERSION = re.compile(r"v\d+(?:(?:alpha|beta)\d*)?")
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
# The tails are written with a lookahead for their digit, so a long token that fails to end well is
# read in linear time (``[0-9a-f]*[0-9][0-9a-f]*`` backtracks quadratically: 0.3 s for 5,000 digits).
_SID = re.compile(r"\b([A-Z]{2,4})(?=[0-9a-fA-F]*[0-9])[0-9a-fA-F]+\b")
_PREFIXED = re.compile(r"(?<![\w@.])([a-z]{2,}(?:_[a-z]{2,})*)_((?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]+)\b")
# ``^CF[0-9a-fA-F]{32}$``, ``^(SM|MM)[0-9a-fA-F]{32}$``: the literal capitals an identifier starts with.
_PATTERN_PREFIX = re.compile(r"^\^\(?([A-Z]{2,4}(?:\|[A-Z]{2,4})*)\)?\[")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


_SPLIT: dict[str, tuple[str, ...]] = {}


def _split(segment: str) -> tuple[str, ...]:
    """The words of a path segment or parameter name (``payment_methods``, ``AuthorizedConnectApps``)."""
    words = _SPLIT.get(segment)
    if words is None:
        words = tuple(w.lower() for w in _CAMEL.findall(segment))
        if len(_SPLIT) < 50_000:
            _SPLIT[segment] = words
    return words


def pattern_prefixes(properties: Mapping[str, object], http_path: str = "") -> list[tuple[str, str]]:
    """(prefix, resource words) for each parameter whose pattern fixes its identifier's prefix.

    The resource is the parameter's name without its ``Sid`` (``ConferenceSid``: "conference"),
    or, for a bare ``Sid``, the literal path segments before it (``/Usage/Triggers/{Sid}``:
    "usage triggers").
    """
    out: list[tuple[str, str]] = []
    for name, schema in properties.items():
        pattern = schema.get("pattern") if isinstance(schema, Mapping) else None
        if not isinstance(pattern, str):
            continue
        found = _PATTERN_PREFIX.match(pattern)
        if found is None:
            continue
        words = _split(name.split("Sid", 1)[0] if "Sid" in name else name)
        if not words:
            runs = [run for run, param in _runs(http_path) if param == name]
            words = runs[0] if runs else ()
        if words:
            out.extend((prefix, " ".join(words)) for prefix in found.group(1).split("|"))
    return out


def _runs(http_path: str) -> list[tuple[tuple[str, ...], str]]:
    """Each path parameter with the words of the literal segments right before it (those without digits)."""
    out = []
    run: list[str] = []
    for segment in http_path.split("/"):
        if segment.startswith("{"):
            words = tuple(w for literal in run for w in _split(literal))
            if words:
                out.append((words, segment.split("}", 1)[0][1:]))
            run = []
        elif segment and not any(c.isdigit() for c in segment):
            run.append(segment)
    return out


EMAIL = ("#email",)
"""The resource an e-mail address names: whatever a path parameter named ``…Email`` identifies."""


def taken_ids(http_path: str) -> tuple[tuple[str, ...], ...]:
    """The stems of the resource each path parameter identifies, in order (the last is the item):
    the words of the literal segments before it (``/v1/issuing/cards/{card}``: issuing, card); a
    parameter named for an e-mail address (``{sendAsEmail}``) identifies :data:`EMAIL` as well."""
    return tuple(tuple(stem(w) for w in words) + (EMAIL if param.lower().endswith("email") else ())
                 for words, param in _runs(http_path))


def path_resources(http_path: str) -> list[str]:
    """The resources a path's parameters identify: the words of the literal segments before each, and each of
    their tails (``/v1/issuing/cards/{card}``: "issuing cards" and "cards")."""
    return [" ".join(words[i:]) for words, _param in _runs(http_path) for i in range(len(words))]


def pair_resources(http_path: str) -> list[str]:
    """The resources a path identifies by two parameters in a row (``/repos/{owner}/{repo}``: "repos")."""
    return [" ".join(words) for words in _pair_runs(http_path)]


def _pair_runs(http_path: str) -> list[tuple[str, ...]]:
    out = []
    segments = http_path.split("/")
    for k in range(1, len(segments) - 1):
        if segments[k].startswith("{") and segments[k + 1].startswith("{") and not segments[k - 1].startswith("{"):
            literal = segments[k - 1]
            if literal and not any(c.isdigit() for c in literal):
                out.append(_split(literal))
    return out


class IdReader:
    """Replaces the identifiers of a request by the words of the resources they name.

    Built from each method's pattern prefixes and HTTP path; the tables are made when a request
    first quotes an identifier, so an index that never sees one pays nothing for them.
    """

    def __init__(self, prefixes: Sequence[Iterable[tuple[str, str]]], paths: Sequence[str]) -> None:
        self._prefixes = prefixes
        self._paths = paths
        self._sids: dict[str, tuple[str, ...]] | None = None
        self._resources: Counter[tuple[str, ...]] | None = None
        self._pair: tuple[str, ...] | None = None
        self._read: dict[str, tuple[tuple[str, ...], ...]] = {}

    @property
    def sids(self) -> dict[str, tuple[str, ...]]:
        """Prefix -> the words of its commonest resource (CA: "call" of CallSid, not "parent call")."""
        if self._sids is None:
            by_prefix: dict[str, Counter[str]] = {}
            for pairs in self._prefixes:
                for prefix, words in pairs:
                    by_prefix.setdefault(prefix, Counter())[words] += 1
            self._sids = {p: _commonest(counts) for p, counts in by_prefix.items()}
        return self._sids

    @property
    def resources(self) -> Counter[tuple[str, ...]]:
        """The resources of the paths (as words), each with how many paths identify it."""
        if self._resources is None:
            self._resources = Counter(tuple(r.split()) for path in self._paths for r in path_resources(path))
        return self._resources

    @property
    def pair(self) -> tuple[str, ...]:
        """The resource the most paths identify by two parameters in a row ("repos" of ``/repos/{owner}/{repo}``),
        which an ``owner/name`` token names; ``()`` if none does."""
        if self._pair is None:
            counts = Counter(words for path in self._paths if "}/{" in path for words in _pair_runs(path))
            self._pair = counts.most_common(1)[0][0] if counts else ()
        return self._pair

    def read(self, query: str) -> str:
        """``query`` with each identifier whose prefix names a resource replaced by that resource's words
        (those the request does not say already)."""
        return self.parse(query)[0]

    def parse(self, query: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
        """:meth:`read`'s text, and the stems of each resource an identifier of the request names (a SID's
        as ``("#sid", prefix)``, after its resource)."""
        digits = any(c.isdigit() for c in query)
        sid = _SID.search(query) if digits else None
        prefixed = _PREFIXED.search(query) if digits else None
        pair = _PAIR.search(query) if "/" in query else None
        email = _EMAIL.search(query) if "@" in query else None
        if sid is None and prefixed is None and pair is None and email is None:
            return query, ()
        said = set(stems(_PAIR.sub(" ", _PREFIXED.sub(" ", _SID.sub(" ", query)))))
        found: list[tuple[str, ...]] = []

        def by_pair(m: re.Match[str]) -> str:
            if _VERSION.fullmatch(m.group(2)) or m.group(1).lower() in STOP or m.group(2).lower() in STOP:
                return m.group(0)
            return self._replace(m, (self.pair,) if self.pair else (), said, found)

        def by_sid(m: re.Match[str]) -> str:
            named = self.sids.get(m.group(1), ())
            out = self._replace(m, named, said, found)
            if named:
                found.append(("#sid", m.group(1)))
            return out

        if sid is not None:
            query = _SID.sub(by_sid, query)
        if prefixed is not None:
            query = _PREFIXED.sub(lambda m: self._replace(m, self.named(m.group(1), said), said, found), query)
        if pair is not None:
            query = _PAIR.sub(by_pair, query)
        if email is not None and READ_EMAILS:
            # An address's own words (its mailbox and domain) say nothing of the method wanted.
            query = _EMAIL.sub(" ", query)
            found.append(EMAIL)
        return query, tuple(dict.fromkeys(found))

    @staticmethod
    def _replace(m: re.Match[str], named: Sequence[str | tuple[str, ...]], said: set[str],
                 found: list[tuple[str, ...]]) -> str:
        if not named:
            return m.group(0)
        resources = [tuple(r.split()) if isinstance(r, str) else r for r in named]
        found.extend(tuple(stem(w) for w in r) for r in resources)
        kept: dict[str, str] = {}
        for w in (w for r in resources for w in r):
            if stem(w) not in said:
                kept.setdefault(stem(w), w)  # "queue" and "queues" (QueueSid, /Queues/{Sid}) once
        return " ".join(kept.values())

    def named(self, prefix: str, said: Iterable[str] = ()) -> tuple[tuple[str, ...], ...]:
        """The resources (as words) a lower-case prefix names: of those of the closest kind of match, the one
        the request's other words name (``in_123`` beside "invoice": invoices, not intents), else the one the
        most paths identify (``pm``: payment methods, not public members); ``()`` for none."""
        found = self._read.get(prefix)
        if found is None:
            parts = prefix.split("_")
            found = ()
            for kind in (_spelled, _initials, _abbreviated):
                found = tuple(sorted(r for r in self.resources if kind(parts, r)))
                if found:
                    break
            self._read[prefix] = found
        context = set(said)
        scored = [((any(stem(w) in context for w in r), self.resources[r]), r) for r in found]
        top = max((score for score, _r in scored), default=None)
        return tuple(r for score, r in scored if score == top)[:MOST]


def _commonest(counts: Counter[str]) -> tuple[str, ...]:
    top = max(counts.values())
    return tuple(sorted(r for r, n in counts.items() if n == top))[:MOST]


def _spelled(parts: Sequence[str], resource: Sequence[str]) -> bool:
    """Each part begins the resource's word in its place: ``cus`` customers, ``sub_sched`` subscription schedules."""
    return len(parts) == len(resource) and all(w.startswith(p) for p, w in zip(parts, resource, strict=True))


def _initials(parts: Sequence[str], resource: Sequence[str]) -> bool:
    """One part, the initials of a resource of two words or more: ``pm`` payment methods."""
    return len(parts) == 1 and len(resource) >= 2 and parts[0] == "".join(w[0] for w in resource)


def _abbreviated(parts: Sequence[str], resource: Sequence[str]) -> bool:
    """One part of three letters or more, the letters of a one-word resource in order from its first, and at
    least a third of them: ``acct`` accounts."""
    if len(parts) != 1 or len(resource) != 1:
        return False
    part, word = parts[0], resource[0]
    if len(part) < 3 or part[0] != word[0] or len(word) > 3 * len(part):
        return False
    letters = iter(word[1:])
    return all(c in letters for c in part[1:])
