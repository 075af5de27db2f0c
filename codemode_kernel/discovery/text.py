"""Words of method names, paths and prose, reduced to comparable stems.

``listCoreV1NamespacedPod``, ``pulls_list``, ``/repos/{owner}/{repo}/pulls`` and "Lists the
open pull requests" all become lists of lower-case stems (``list``, ``pod``, ``pull``, …):
identifiers are split at case changes, digits, underscores and punctuation; HTML tags and
Markdown link targets are dropped; a small suffix stripper folds plurals and verb endings.

Rejected: a full Porter stemmer (it conflates more than API words need, e.g. "organization"
and "organ") and a dictionary lemmatizer (a dependency and a data file for little gain on
identifiers, which are mostly plain nouns and verbs).
"""

from __future__ import annotations

import re

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")  # [text](target) -> text
_TAGS = re.compile(r"<[^>]*>|\]\([^)]*\)|https?://\S+|`")
# A space the removals left before punctuation that ends a phrase ("``tag``, only": review 14x L2). Only
# the space goes: the words (and so the search index) stay as they were.
_SPACED_PUNCTUATION = re.compile(r" ([,.;:!?)])(?=\s|$)")
_IDENT = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_SPACE = re.compile(r"\s+")

_STOP_WORDS = """
a an the of to for in on by with and or from into onto at as via per than then so if it its this that these those
is are was were be been being am do does did can could should would will shall may might must
i me my mine we us our you your he she him her his they them their there here which who whom whose what
how when where why any some each one ones no not also just only very too about over under
up out off please want need like let get's i'm don't
"""
STOP = frozenset(_STOP_WORDS.split())

_VOWEL = re.compile(r"[aeiouy]")
_cache: dict[str, str] = {}
_stems_cache: dict[str, tuple[str, ...]] = {}


def stem(word: str) -> str:
    """A light English stem: ``policies`` → ``policy``, ``merged``/``merges`` → ``merg``.

    ``-ing`` is kept: in API names it is mostly a noun (Issuing, Billing, Settings,
    Recording) that must not meet the verb (issue, bill, set, record).
    """
    cached = _cache.get(word)
    if cached is not None:
        return cached
    w = word.lower()
    if len(w) > 3 and not w.isdigit():
        if w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith("sses"):
            w = w[:-2]
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        if w.endswith("ation") and len(w) > 7:
            w = w[:-5] + "ate"
        elif w.endswith(("tion", "sion")) and len(w) > 6:
            w = w[:-3]  # deletion/delete, eviction/evict, protection/protect
        elif w.endswith("ed") and len(w) > 4 and _VOWEL.search(w[:-2]):
            w = w[:-2]
        if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]  # running -> runn -> run
        if len(w) > 3 and w.endswith("e"):
            w = w[:-1]  # create/created/creation all meet at "creat"
    if len(_cache) < 200_000:
        _cache[word] = w
    return w


def plain(text: str, *, tidy: bool = True) -> str:
    """Prose without HTML tags, link targets, URLs and backquotes, on one line.

    ``tidy=False`` keeps a space the removals left before punctuation: the search index counts a
    body's first words by spaces, and its figures were tuned on that count.
    """
    text = _SPACE.sub(" ", _TAGS.sub(" ", _LINK.sub(r"\1", text or "")))
    return (_SPACED_PUNCTUATION.sub(r"\1", text) if tidy else text).strip()


def words(text: str) -> list[str]:
    """Lower-case words of ``text`` with identifiers split (``getPullRequest`` → get, pull, request).

    Digits and single letters are left out: ``v1``, ``2010-04-01`` and ``{id}`` tell nothing
    about what a method does.
    """
    # One comprehension (the index splits every method's text: a loop with appends cost ~15 % of a build).
    return [(w[:-1] if w[-1] == "s" and len(w) > 2 and w[:-1].isupper() else w).lower()  # PRs, APIs, URLs
            for w in _IDENT.findall(text or "") if len(w) > 1]


def stem_run(text: str) -> tuple[str, ...]:
    """:func:`stems` as a tuple, not copied out of the cache: for the index, which reads each field once."""
    if not text:
        return ()
    cached = _stems_cache.get(text)
    if cached is not None:
        return cached
    cache = _cache
    out = tuple([cache.get(w) or stem(w) for w in words(text) if w not in STOP])
    if len(text) <= 64 and len(_stems_cache) < 100_000:
        _stems_cache[text] = out
    return out


def stems(text: str, *, keep_stop: bool = False) -> list[str]:
    """The stems of ``text``'s words, stop words left out unless ``keep_stop``."""
    cached = _stems_cache.get(text) if not keep_stop else None
    if cached is not None:
        return list(cached)
    cache = _cache
    out = [cache.get(w) or stem(w) for w in words(text) if keep_stop or w not in STOP]
    if not keep_stop and len(text) <= 64 and len(_stems_cache) < 100_000:
        _stems_cache[text] = tuple(out)  # names, paths and parameter lists repeat across methods
    return out
