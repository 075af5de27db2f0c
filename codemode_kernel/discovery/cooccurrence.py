"""Word associations learned from the catalog's own text, without supervision (issue 13, round 14).

A request word that few methods hold ("merged", "replicas", "muted") is read beside the catalog
words that share methods with it more often than chance: over the methods that hold it (every
field but the connector's name), each other word ``t`` scores ``p * log(p / p_t)``, ``p`` the
share of those methods that hold ``t`` and ``p_t`` its share of the whole catalog (a pointwise
mutual information weighted by how often the pair occurs, so one shared method is not evidence).
Only words more methods hold than the request word are kept (the commoner word is the catalog's
usual one for the thing), seen together in at least ``MIN_PAIR`` methods; the best ``TOP`` of
them, each weighted by its score over the best's. Nothing is written per API: the table comes from
whatever connectors the catalog has, so it generalises to any of them.

Computed per word on first use and kept (a word's methods are at most ``MAX_HOLDERS``, so one
look-up reads a few thousand stems); building the index costs nothing more. The ranker uses the
table to reorder its best results (search.LEARNED_RERANK), not to reach methods the request's own
words do not: widening the request itself with these words (through ``SearchIndex``'s
``associations``, at weights 0.1-0.4) brought in methods that hold only the association and cost
the tuning split 1-3 points of top-5 at every setting (search.py's docstring, round 14).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

# A word more methods hold than this is the catalog's own vocabulary: it needs no stand-in.
MAX_HOLDERS = 30
MIN_PAIR = 2
TOP = 5


class CatalogAssociations:
    """A stem -> the catalog stems that share its methods most, each with a weight in (0, 1], best first."""

    def __init__(self, holders: Callable[[str], Sequence[int]], terms: Callable[[int], frozenset[str]],
                 size: int) -> None:
        """``holders(stem)``: the methods (indices) that hold a stem; ``terms(i)``: every stem of method ``i``
        (the connector's name aside); ``size``: how many methods there are."""
        self._holders = holders
        self._terms = terms
        self._size = size
        self._known: dict[str, tuple[tuple[str, float], ...]] = {}

    def __call__(self, word: str) -> Sequence[tuple[str, float]]:
        known = self._known.get(word)
        if known is None:
            known = self._known[word] = self._learn(word)
        return known

    def _learn(self, word: str) -> tuple[tuple[str, float], ...]:
        mine = self._holders(word)
        n = len(mine)
        if not 0 < n <= MAX_HOLDERS:
            return ()
        together: dict[str, int] = {}
        for i in mine:
            for t in self._terms(i):
                if t != word:
                    together[t] = together.get(t, 0) + 1
        scored = []
        for t, m in together.items():
            held = len(self._holders(t))
            if m < MIN_PAIR or held <= n:
                continue
            p = m / n
            score = p * math.log(p * self._size / held)
            if score > 0:
                scored.append((score, t))
        best = sorted(scored, key=lambda st: (-st[0], st[1]))[:TOP]
        if not best:
            return ()
        top = best[0][0]
        return tuple((t, score / top) for score, t in best)
