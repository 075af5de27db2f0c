"""Request words that stand side by side in a method's text too (issue 13, round 15).

Two words next to each other in a request ("order items", "list labels", "scale a deployment";
its stop words left out) usually name one thing or one act; a method whose name, summary or
path holds the same two words next to each other or one word apart (in either order, with no
stop word between: ``gmail_users_labels_list``, "Order items grouped by status", "order gift
items") says that thing, where another that
holds both words apart ("Items grouped by order status", "Lists the comments on an issue" for
"comment on an issue") may be about something else. Each request pair counts by the rarer
word's idf; a result of the ranker's best ranks x (1 + weight x the share of the request's pairs
it holds adjacent). It only reorders what the request's words found.

A stop word parts two words of a method's text (round 15): read across stop words, "Lists the
comments on an issue" held "comment issue" and the list of comments beat their create for
"comment on an issue" (tests/discovery/test_search_siblings.py); the tuning, held-out, dev and
validation figures are the same either way. In the request, a stop word between two words does
not part them ("tag an issue with labels" pairs with the path /issues/{issue_number}/labels,
"scale a deployment" with the name ``patchAppsV1NamespacedDeploymentScale``): parting them there
too, tuning 56.8 / 79.5 % -> 56.3 / 79.5 %, MRR 0.653 -> 0.650, validation paraphrase top-5
36.5 -> 34.6 %; parting them at every stop word but an article or a possessive ("comment | on an
issue", "tag an issue"): tuning 56.3 / 79.5 %, MRR 0.649, validation unchanged, held-out top-5
67.0 -> 66.0 %.

One word apart counts as next to each other (round 15, after the rest): tuning 56.8 / 79.5 % ->
57.4 / 79.5 %, MRR 0.653 -> 0.656 ("charge a credit card" 3rd -> 1st, "list deployments" 2nd ->
3rd), validation 33.3 / 56.2 %, MRR 0.411 -> 0.412; held out and dev unchanged (41.5 / 67.0 %;
40.6 / 66.7 %, MRR 0.499). At half weight (0.5) the tuning figures are the same and validation
is unchanged (MRR 0.411), at 0.75 as at 1.0; full weight is kept as the simpler rule, the
tuning split having no preference. Read across stop words (before that rule), one word apart
had cost validation top-1 33.3 -> 32.3 % (search.py's docstring). With it, search.ADJACENT 0.2 /
0.5: tuning 57.4 / 78.9 %, MRR 0.654 / 57.4 / 79.5 %, MRR 0.654 (validation top-5 56.2 -> 55.2 % at
0.5): 0.3 stays.

Nothing is written per API: the pairs come from the request and the catalog's own text. Each
method's adjacent pairs are read on the first request that ranks it among the best, and kept;
building the index costs nothing more.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence

from codemode_kernel.discovery.text import STOP, stem, words


def runs(text: str) -> list[tuple[str, ...]]:
    """The stems of ``text`` in runs a stop word ends ("comments on an issue": comment | issue)."""
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    for w in words(text):
        if w in STOP:
            if len(run) > 1:
                out.append(tuple(run))
            run = []
        else:
            run.append(stem(w))
    if len(run) > 1:
        out.append(tuple(run))
    return out


class AdjacentPairs:
    """Per method, the pairs of stems its name, summary or path holds next to each other or one word apart (both
    orders, no stop word between)."""

    def __init__(self, texts: Callable[[int], Sequence[str]]) -> None:
        """``texts(i)``: method ``i``'s name, summary and path (its parameters left out)."""
        self._texts = texts
        self._known: dict[int, frozenset[tuple[str, str]]] = {}

    def __call__(self, i: int) -> frozenset[tuple[str, str]]:
        known = self._known.get(i)
        if known is None:
            out: set[tuple[str, str]] = set()
            for text in self._texts(i):
                for run in runs(text):
                    for a, b in (*itertools.pairwise(run), *zip(run, run[2:], strict=False)):
                        if a != b:
                            out.add((a, b))
                            out.add((b, a))
            known = self._known[i] = frozenset(out)
        return known


def request_pairs(q: Sequence[str], idf: Mapping[str, float]) -> list[tuple[tuple[str, str], float]]:
    """The request's adjacent stems (stop words left out: "scale a deployment" is scale, deployment) that the
    catalog holds both of, each pair weighted by the rarer word's idf."""
    out = []
    for a, b in itertools.pairwise(q):
        if a != b and a in idf and b in idf:
            out.append(((a, b), min(idf[a], idf[b])))
    return out


def reorder(found: list[tuple[float, int]], pairs: Sequence[tuple[tuple[str, str], float]],
            adjacent: Callable[[int], frozenset[tuple[str, str]]], weight: float) -> list[tuple[float, int]]:
    """``found`` (score, method index), each score x (1 + ``weight`` x the share, by weight, of ``pairs``
    the method holds adjacent)."""
    total = sum(w for _p, w in pairs)
    if total <= 0:
        return found
    out = []
    for score, i in found:
        have = adjacent(i)
        gain = sum(w for p, w in pairs if p in have)
        out.append((score * (1 + weight * gain / total), i) if gain else (score, i))
    return out
