"""Baseline rankers for bench_discovery.py: what search was before issue 13, and plain BM25.

``SeedIndex`` is the project's own ranker as it stood before issue 13 (kept here, frozen,
so the benchmark can show the change side by side). ``PlainBm25`` is the textbook BM25
over the method path and the first line of its description, nothing else.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

# -- the ranker before issue 13 ------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])|\d+")
_STOP = frozenset([
    "a", "an", "the", "of", "to", "for", "in", "on", "by", "with", "and", "or", "from", "my", "me", "all", "any",
    "some", "this", "that", "is", "are", "be", "it",
])
_SYNONYMS = {
    "delete": "remove", "remove": "remove", "destroy": "remove", "drop": "remove", "erase": "remove",
    "create": "add", "add": "add", "new": "add", "make": "add", "insert": "add", "post": "add",
    "list": "list", "show": "list", "all": "list", "enumerate": "list", "browse": "list",
    "get": "get", "fetch": "get", "read": "get", "retrieve": "get", "find": "get", "lookup": "get",
    "update": "update", "edit": "update", "change": "update", "modify": "update", "patch": "update",
    "set": "update", "rename": "update",
    "search": "search", "query": "search",
}


def _stem(word: str) -> str:
    w = word.lower()
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + keep
            break
    return w


def _tokens(text: str) -> list[str]:
    out = []
    for raw in _WORD.findall(text or ""):
        low = raw.lower()
        if low in _STOP:
            continue
        out.append(_SYNONYMS.get(low, _stem(low)))
    return out


class SeedIndex:
    """BM25 with the name field weighted above the description (name, body) per document."""

    def __init__(self, docs: Sequence[tuple[str, str, str]]) -> None:
        self.keys = [d[0] for d in docs]
        self.name_tf = [Counter(_tokens(d[1])) for d in docs]
        self.body_tf = [Counter(_tokens(d[2])) for d in docs]
        n = max(len(docs), 1)
        df: Counter[str] = Counter()
        for a, b in zip(self.name_tf, self.body_tf, strict=True):
            df.update(set(a) | set(b))
        self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self.lengths = [sum(b.values()) for b in self.body_tf]
        self.avg_len = (sum(self.lengths) / n) or 1.0

    def rank(self, query: str) -> list[str]:
        q = _tokens(query)
        raw_q = query.strip().lower()
        scored = []
        for i, key in enumerate(self.keys):
            score = 0.0
            for t in set(q):
                idf = self.idf.get(t)
                if idf is None:
                    continue
                if self.name_tf[i].get(t, 0):
                    score += 2.0 * idf
                bf = self.body_tf[i].get(t, 0)
                if bf:
                    k1, b = 1.2, 0.75
                    score += idf * bf * (k1 + 1) / (bf + k1 * (1 - b + b * self.lengths[i] / self.avg_len))
            if raw_q and raw_q in key.lower():
                score += 3.0
            if score > 0:
                scored.append((key, score))
        scored.sort(key=lambda kv: (-kv[1], kv[0]))
        return [k for k, _ in scored]


# -- plain BM25 over path + summary --------------------------------------------------------------

_PLAIN = re.compile(r"[a-z0-9]+")


def _plain_tokens(text: str) -> list[str]:
    return _PLAIN.findall(re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower())


class PlainBm25:
    """Okapi BM25 (k1=1.2, b=0.75) over ``path + summary``; no stemming, no synonyms."""

    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        self.keys = [k for k, _ in docs]
        self.tf = [Counter(_plain_tokens(f"{k} {text}")) for k, text in docs]
        self.len = [sum(c.values()) for c in self.tf]
        n = len(docs)
        self.avg = sum(self.len) / max(n, 1)
        df: Counter[str] = Counter()
        for c in self.tf:
            df.update(c.keys())
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.postings: dict[str, list[int]] = {}
        for i, c in enumerate(self.tf):
            for t in c:
                self.postings.setdefault(t, []).append(i)

    def rank(self, query: str) -> list[str]:
        scores: dict[int, float] = {}
        for t in set(_plain_tokens(query)):
            idf = self.idf.get(t, 0.0)
            for i in self.postings.get(t, ()):
                f = self.tf[i][t]
                scores[i] = scores.get(i, 0.0) + idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * self.len[i] / self.avg))
        return [self.keys[i] for i in sorted(scores, key=lambda i: (-scores[i], self.keys[i]))]
