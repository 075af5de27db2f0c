"""Ranking connector methods and snippets for a natural-language query.

A small BM25 over tokens of the method path, its description and its parameter names,
with light stemming and a handful of verb synonyms, so "open pull requests" finds
``github.list_pull_requests`` and "delete a pet" finds ``petstore.deletePet``. No model,
no network: deterministic and fast over thousands of methods.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

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


def stem(word: str) -> str:
    w = word.lower()
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + keep
            break
    return w


def tokens(text: str) -> list[str]:
    out = []
    for raw in _WORD.findall(text or ""):
        low = raw.lower()
        if low in _STOP:
            continue
        out.append(_SYNONYMS.get(low, stem(low)))
    return out


@dataclass(frozen=True)
class Document:
    key: str
    name_text: str
    body_text: str


class SearchIndex:
    """BM25 with the name field weighted above the description."""

    def __init__(self, docs: Sequence[Document]) -> None:
        self.docs = list(docs)
        self.name_tf = [Counter(tokens(d.name_text)) for d in self.docs]
        self.body_tf = [Counter(tokens(d.body_text)) for d in self.docs]
        n = max(len(self.docs), 1)
        df: Counter[str] = Counter()
        for a, b in zip(self.name_tf, self.body_tf, strict=True):
            df.update(set(a) | set(b))
        self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        lengths = [sum(b.values()) for b in self.body_tf]
        self.avg_len = (sum(lengths) / n) or 1.0
        self.lengths = lengths

    def rank(self, query: str) -> list[tuple[str, float]]:
        q = tokens(query)
        if not q:
            return []
        scored = []
        raw_q = query.strip().lower()
        for i, doc in enumerate(self.docs):
            score = 0.0
            for t in set(q):
                idf = self.idf.get(t)
                if idf is None:
                    continue
                nf = self.name_tf[i].get(t, 0)
                bf = self.body_tf[i].get(t, 0)
                if nf:
                    score += 2.0 * idf
                if bf:
                    k1, b = 1.2, 0.75
                    score += idf * bf * (k1 + 1) / (bf + k1 * (1 - b + b * self.lengths[i] / self.avg_len))
            if raw_q and raw_q in doc.key.lower():
                score += 3.0
            if score > 0:
                scored.append((doc.key, round(score, 4)))
        scored.sort(key=lambda kv: (-kv[1], kv[0]))
        return scored
