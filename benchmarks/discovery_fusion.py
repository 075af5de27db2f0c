"""Choose how the semantic extra's cosines are fused with the lexical ranking (issue 13, s13d).

Run: nice .venv/bin/python benchmarks/discovery_fusion.py [--held-out]

Measurement only. It reads the six API descriptions, the tuning file and the dev set the way
``bench_discovery.py`` does, embeds the catalog with the product's :class:`~codemode_kernel.discovery.
semantic.Embedder` (its disk cache in ``.bench-cache/discovery/semantic``) and every request once, takes
each request's lexical ranking (the best :data:`DEPTH`, with scores, ``SearchIndex.lexical_rank``), and
then scores fusions of the two over the whole catalog (retrieval: a method only the model finds can
enter), each over a grid of parameters, on the tuning file (its tuning split and its held-out third) and
the dev set. Parameters are chosen on the tuning split + dev set together (by top-5, then MRR); the
held-out third is printed beside them. ``--held-out`` also prints the blind and validation sets'
aggregates for the fusions named in :data:`FINAL` (never a request or a row; never used to choose).

Query variants (``QUERIES``): ``raw`` (the request as written), ``nostop`` (the lexical ranker's stop words cut:
fewer tokens, so a cheaper embedding), ``static`` and ``static2`` (MiniLM distilled to one vector per word piece,
``discovery_minilm.StaticMiniLM``, its table cached by ``bench_discovery.py --minilm``: the request's vector
against the model's document vectors, or against the documents' static vectors too).

Results (s13d, 2026-12-07; top-1 / top-5 / MRR, tuning split 190, held-out third 94, dev set 96 requests):

| ranking | tuning | held-out third | dev |
|---|---|---|---|
| lexical | 57.4 / 80.0 / 0.657 | 43.6 / 69.1 / 0.534 | 41.7 / 66.7 / 0.509 |
| model alone (raw) | 31.6 / 54.2 / 0.423 | 39.4 / 63.8 / 0.495 | 12.5 / 34.4 / 0.226 |
| model alone (static; static2) | 26.8 / 49.5; 20.5 / 40.0 | 30.9 / 55.3; 22.3 / 45.7 | 6.2 / 18.8; 2.1 / 6.2 |
| blend, best (a 0.5, cosine^0.5) | 57.4 / 80.5 / 0.666 | 44.7 / 75.5 / 0.573 | 38.5 / 67.7 / 0.500 |
| RRF k 40 w 0.15 | 57.4 / 80.0 / 0.664 | 46.8 / 73.4 / 0.582 | 39.6 / 70.8 / 0.497 |
| **RRF k 40 w 0.2, first kept** | 57.4 / 80.0 / 0.669 | 43.6 / 74.5 / 0.569 | 41.7 / 70.8 / 0.516 |
| the same, lexical depth 30 | 57.4 / 80.0 / 0.669 | 42.6 / 74.5 / 0.559 | 41.7 / 69.8 / 0.514 |
| nostop requests, best fusion | 57.4 / 80.0 / 0.666 | 44.7 / 76.6 / 0.581 | 37.5 / 69.8 / 0.494 |
| static requests, best fusion | 56.8 / 81.1 / 0.661 | 44.7 / 71.3 / 0.569 | 37.5 / 67.7 / 0.490 |

Lexical depth 100 and the model over every document unless said. z-scored cosines, a convex mix and a
weight raised where the lexical ranking is unsure did no better. The model's pool (its best 100, 300 or every
document) changed no figure. With the model's request vectors, the best rows of every fusion that may move
the lexical first lost dev top-1 (41.7 -> 35.4-40.6 %); keeping it cost nothing on the tuning split. Held out
(bench_discovery's run after the choice): blind 28.1 / 57.3 / 0.407 -> 28.1 / 57.3 / 0.429, validation 34.4 /
59.4 / 0.428 -> 34.4 / 58.3 / 0.452.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_discovery as bench

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.discovery import search, semantic
from codemode_kernel.discovery.text import STOP

DEPTH = 100
DEPTHS = (100,)
QUERIES = ("raw", "static", "static2")
SHOW = 5


def query_text(query: str, variant: str) -> str:
    """The request as the model reads it: as written, or without the lexical ranker's stop words."""
    if variant == "raw":
        return query
    return " ".join(w for w in query.split() if w.lower().strip("?,.!'\"") not in STOP) or query


class Case:
    """One request: its lexical ranking (key, score), its cosines with every document, what it expects."""

    def __init__(self, intent: dict[str, Any], lexical: list[tuple[str, float]], sims: Any,
                 pos: dict[str, int]) -> None:
        self.intent = intent
        self.lexical = lexical
        self.sims = sims
        n = len(sims)
        best = (lexical[0][1] if lexical else 1.0) or 1.0
        self.lex = np.zeros(n)
        self.lex_rank = np.full(n, np.inf)
        self.in_lexical = np.zeros(n, dtype=bool)
        for r, (key, s) in enumerate(lexical):
            i = pos[key]
            self.lex[i], self.lex_rank[i], self.in_lexical[i] = s / best, r + 1, True
        self.sem_rank = np.empty(n)
        self.sem_rank[np.argsort(-sims, kind="stable")] = np.arange(1, n + 1)
        # Ties keep the lexical order, then the model's (as the product's stable sort does).
        self.tie = -1e-9 * np.where(self.in_lexical, self.lex_rank, n + self.sem_rank)


def top_of(scores: Any, allowed: Any, n: int = bench.TOP) -> list[int]:
    """The best ``n`` documents by ``scores`` among ``allowed`` (ties: the lexical order, then the model's)."""
    s = np.where(allowed, scores, -np.inf)
    cut = np.argpartition(-s, n)[:n]
    return [int(i) for i in cut[np.argsort(-s[cut], kind="stable")] if np.isfinite(s[i])]


def pool_of(c: Case, p: dict[str, float]) -> Any:
    """The documents a fusion may return: the lexical ranking's and the model's best P."""
    pool = min(int(p.get("P", 100)), len(c.sims))
    allowed = c.in_lexical.copy()
    if pool >= len(c.sims):
        allowed[:] = True
    else:
        allowed[np.argpartition(-c.sims, pool - 1)[:pool]] = True
    return allowed


def near(c: Case) -> Any:
    mean, top = float(c.sims.mean()), float(c.sims.max())
    return np.maximum(0.0, (c.sims - mean) / ((top - mean) or 1.0))


def fuse_blend(c: Case, p: dict[str, float]) -> list[int]:
    """lexical / best + a x max(0, (cos - mean) / (max - mean)) ** g, over the lexical top and the model's top P."""
    return top_of(c.lex + p["a"] * near(c) ** p.get("g", 1.0) + c.tie, pool_of(c, p))


def fuse_rrf(c: Case, p: dict[str, float]) -> list[int]:
    """Weighted reciprocal rank fusion: 1 / (k + lexical rank) + w / (k + the model's rank), the model's top P."""
    k, w = p["k"], p["w"]
    lex = np.where(c.in_lexical, 1 / (k + c.lex_rank), 0.0)
    allowed = pool_of(c, p)
    model = np.where(c.sem_rank <= p.get("P", 100), w / (k + c.sem_rank), 0.0)
    return top_of(lex + model + c.tie, allowed)


def fuse_rrf_first(c: Case, p: dict[str, float]) -> list[int]:
    """RRF, the lexical first kept first when its score leads the second's by more than ``m`` (0: always kept)."""
    out = fuse_rrf(c, p)
    if c.lexical:
        lead = 1 - (c.lexical[1][1] / (c.lexical[0][1] or 1.0) if len(c.lexical) > 1 else 0.0)
        first = int(np.argmax(c.in_lexical & (c.lex_rank == 1)))
        if lead >= p["m"] and out and out[0] != first:
            out = [first, *(i for i in out if i != first)][:bench.TOP]
    return out


def fuse_z(c: Case, p: dict[str, float]) -> list[int]:
    """lexical / best + a x max(0, z - t) / (zmax - t), z the cosine's z-score over the catalog."""
    z = (c.sims - c.sims.mean()) / (float(c.sims.std()) or 1.0)
    t = p.get("t", 0.0)
    return top_of(c.lex + p["a"] * np.maximum(0.0, z - t) / max(float(z.max()) - t, 1e-6) + c.tie, pool_of(c, p))


def fuse_gap(c: Case, p: dict[str, float]) -> list[int]:
    """The blend, with the model's weight grown where the lexical ranking is unsure (its second close to its first)."""
    gap = 1 - c.lexical[1][1] / (c.lexical[0][1] or 1.0) if len(c.lexical) >= 2 else 0.0 if c.lexical else -1.0
    a = p["a"] * (p["u"] if gap < p["m"] else 1.0)
    return fuse_blend(c, {**p, "a": a})


def fuse_convex(c: Case, p: dict[str, float]) -> list[int]:
    """(1 - b) x lexical / best + b x cosine min-max normalised over the catalog (a convex combination)."""
    lo, hi = float(c.sims.min()), float(c.sims.max())
    sem = (c.sims - lo) / ((hi - lo) or 1.0)
    return top_of((1 - p["b"]) * c.lex + p["b"] * sem ** p.get("g", 1.0) + c.tie, pool_of(c, p))


FUSIONS: dict[str, tuple[Callable[[Case, dict[str, float]], list[int]], dict[str, list[float]]]] = {
    "blend": (fuse_blend, {"a": [0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.2], "P": [100, 3000],
                           "g": [0.5, 1.0, 2.0, 3.0]}),
    "rrf": (fuse_rrf, {"k": [1, 5, 10, 15, 20, 30, 40, 60], "w": [0.15, 0.2, 0.25, 0.3, 0.35, 0.5, 0.75, 1.0],
                       "P": [100, 3000]}),
    "rrf_first": (fuse_rrf_first, {"k": [10, 20, 30, 40, 60], "w": [0.1, 0.15, 0.2, 0.25, 0.35, 0.5],
                                   "m": [0.0, 0.05, 0.1, 0.2],
                                   "P": [3000]}),
    "z": (fuse_z, {"a": [0.3, 0.5, 0.8, 1.2], "t": [0.0, 1.0, 2.0, 3.0], "P": [100, 300]}),
    "gap": (fuse_gap, {"a": [0.3, 0.6], "u": [1.5, 2.0, 3.0], "m": [0.05, 0.1, 0.2], "g": [1.0, 2.0],
                       "P": [300]}),
    "convex": (fuse_convex, {"b": [0.1, 0.2, 0.3, 0.4, 0.5], "g": [1.0, 2.0, 4.0], "P": [100, 300, 3000]}),
}
# What --held-out measures (set once the grid has chosen; never changed after seeing the held-out sets).
# "fusion query depth" -> parameters: the product's (semantic.fuse), chosen on the tuning split + dev set (s13d).
FINAL: dict[str, dict[str, float]] = {"rrf_first raw 100": {"k": 40, "w": 0.2, "m": 0.0, "P": 3000}}


def evaluate(cases: Sequence[Case], keys: Sequence[str], rank: Callable[[Case], list[int]] | None) -> dict[str, Any]:
    rows = []
    for c in cases:
        ranked = [k for k, _s in c.lexical[:bench.TOP]] if rank is None else [keys[i] for i in rank(c)]
        rows.append({**c.intent, "rank": bench.rank_of(ranked, c.intent["expect"])})
    return {"all": bench.summarize(rows), "para": bench.summarize([r for r in rows if r["paraphrase"]]),
            "rows": rows}


def line(label: str, figures: dict[str, dict[str, Any]]) -> str:
    out = f"{label:<44}"
    for name, f in figures.items():
        a = f["all"]
        out += f" | {name} {100 * a['top1']:4.1f} {100 * a['top5']:4.1f} {a['mrr']:.3f} p{100 * f['para']['top5']:4.1f}"
    return out


async def load_sets(held_out: bool) -> tuple[list[search.SearchDocument], dict[str, list[dict[str, Any]]]]:
    connectors = bench.load_connectors(bench.fetch(lambda s: print(s, file=sys.stderr)))
    async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as rt:
        catalog = await rt.catalog()
        docs = [search.method_document(m) for m in catalog.all_methods()]
        intents = bench.load_intents(catalog, bench.INTENTS)
        sets = {"tuning": [i for i in intents if not i["holdout"]],
                "third": [i for i in intents if i["holdout"]],
                "dev": bench.load_intents(catalog, bench.FRESH_INTENTS)}
        if held_out:
            sets["blind"] = bench.load_intents(catalog, bench.BLIND_INTENTS)
            sets["validation"] = bench.load_intents(catalog, bench.VALIDATION_INTENTS)
    return docs, sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--held-out", action="store_true", help="also the blind and validation sets (FINAL only)")
    args = parser.parse_args()
    docs, sets = asyncio.run(load_sets(args.held_out))
    folder = semantic.installed_model_dir()
    if folder is None:
        raise SystemExit("the semantic extra is not installed")
    embedder = semantic.Embedder(folder=folder, cache=bench.CACHE / "semantic")
    started = time.perf_counter()
    matrix = embedder.vectors([semantic.document_text(d) for d in docs])
    assert matrix is not None
    print(f"catalog vectors: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    index = search.SearchIndex(docs)
    keys = [d.key for d in docs]
    pos = {k: i for i, k in enumerate(keys)}
    model = embedder.model()
    assert model is not None
    # As the product asks it: the lexical ranking's first max(10, depth) (its scope pool depends on the limit).
    lexical = {(name, depth): [index.lexical_rank(i["q"], limit=max(bench.TOP, depth))[0] for i in intents]
               for name, intents in sets.items() for depth in {*DEPTHS, DEPTH}}
    sims = {(name, v): matrix @ model.embed([query_text(i["q"], v) for i in intents]).T
            for name, intents in sets.items() for v in QUERIES if v in ("raw", "nostop")}
    table = bench.CACHE / "minilm-static-table.npy"
    if table.is_file() and {"static", "static2"} & set(QUERIES):
        # MiniLM distilled to one vector per word piece (discovery_minilm.StaticMiniLM, cached by bench_discovery
        # --minilm): a request's vector in microseconds; "static" against the model's document vectors,
        # "static2" against the documents' static vectors too.
        from discovery_minilm import StaticMiniLM

        static = StaticMiniLM(model, np.load(table))  # type: ignore[arg-type]
        static_docs = static.embed([semantic.document_text(d) for d in docs])
        for name, intents in sets.items():
            q = static.embed([i["q"] for i in intents])
            sims[name, "static"] = matrix @ q.T
            sims[name, "static2"] = static_docs @ q.T

    def make(name: str, v: str, depth: int) -> list[Case]:
        return [Case(i, lex[:depth], sims[name, v][:, j], pos)
                for j, (i, lex) in enumerate(zip(sets[name], lexical[name, depth], strict=True))]

    chosen = ("tuning", "dev")
    shown = ("tuning", "third", "dev")
    base = {n: make(n, "raw", DEPTH) for n in shown}
    print(line("lexical", {n: evaluate(base[n], keys, None) for n in shown}))
    for v in QUERIES:
        alone = {n: make(n, v, DEPTH) for n in shown}
        every = np.ones(len(keys), dtype=bool)
        print(line(f"model alone, {v}", {n: evaluate(alone[n], keys, lambda c, every=every: top_of(c.sims, every))
                                         for n in shown}))
    for v, depth in itertools.product(QUERIES, DEPTHS):
        cases = {n: make(n, v, depth) for n in shown}
        for name, (fuse, grid) in FUSIONS.items():
            scored = []
            for values in itertools.product(*grid.values()):
                p = dict(zip(grid, values, strict=True))
                figs = {n: evaluate(cases[n], keys, lambda c, p=p, fuse=fuse: fuse(c, p)) for n in shown}
                key = (sum(figs[n]["all"]["top5"] * figs[n]["all"]["n"] for n in chosen),
                       sum(figs[n]["all"]["mrr"] * figs[n]["all"]["n"] for n in chosen))
                scored.append((key, p, figs))
            scored.sort(key=lambda s: s[0], reverse=True)
            for _key, p, figs in scored[:SHOW]:
                print(line(f"{v} D={depth} {name} {p}", figs))
    if args.held_out:
        for label, p in FINAL.items():
            fuse = FUSIONS[label.split()[0]][0]
            v, depth = label.split()[1], int(label.split()[2])
            print(line(f"{label} {p}", {n: evaluate(make(n, v, depth), keys, lambda c, p=p, f=fuse: f(c, p))
                                        for n in ("blind", "validation")}))
        print(line("lexical", {n: evaluate(make(n, "raw", DEPTH), keys, None) for n in ("blind", "validation")}))
    times = []
    for i in sets["dev"][:40]:
        started = time.perf_counter()
        model.embed([i["q"]])
        times.append((time.perf_counter() - started) * 1000)
    print(f"query embedding p50 {statistics.median(times):.2f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
