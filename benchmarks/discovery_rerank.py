"""Fit the linear re-ranker of ``codemode_kernel.discovery.rerank`` on the tuning split (issue 13, round 13).

Run: .venv/bin/python benchmarks/discovery_rerank.py [--l2 0.1,1,10] [--top 30] [--validation]

For each request of the tuning split (the tuning file's index % 3 != 2; never the held-out split, the
dev set or the validation set) the ranker's first ``--top`` results are traced with their feature
vectors (search.SearchIndex._reranked: the ranker's own signals). A pairwise logistic loss (RankNet:
each right method against each wrong one above or below it) is minimised in numpy, with an L2 pull
towards the ranker as it is (weight 1 on its final score, 0 on the rest) of strength ``--l2``. Each fit's
weights are then set in ``rerank.WEIGHTS`` and measured: tuning, held out and dev figures, and with
``--validation`` the validation set's aggregates only (never a request, a row or a miss). Prints the
weights so that the shipped ranker can carry them as plain constants; nothing is written.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_discovery as bench
import discovery_probe as probe

from codemode_kernel.discovery import rerank, search

Trace = tuple[np.ndarray, np.ndarray]
"""One request's traced results: their feature rows and which of them are a right method."""


def traces(index: search.SearchIndex, intents: list[dict[str, Any]]) -> list[Trace]:
    """The re-ranker's features of the first results of each of the ``intents`` (a request the re-ranker leaves
    alone, as one that quotes an identifier, has none)."""
    out: list[Trace] = []
    for intent in intents:
        trace: list[tuple[list[int], list[list[float]]]] = []
        search.RERANK_TRACE = trace
        try:
            index.rank(intent["q"], limit=bench.TOP)
        finally:
            search.RERANK_TRACE = None
        if trace:
            heads, rows = trace[-1]
            right = np.asarray([index.docs[i].key in intent["expect"] for i in heads])
            out.append((np.asarray(rows, dtype=float), right))
    return out


def pairs(traced: list[Trace]) -> np.ndarray:
    """The feature differences (right method minus wrong method) of every pair within one request."""
    diffs = [x[r] - x[w] for x, right in traced for r in np.flatnonzero(right) for w in np.flatnonzero(~right)]
    return np.asarray(diffs) if diffs else np.zeros((0, len(rerank.FEATURES)))


def cross_validated(traced: list[Trace], l2: float, folds: int = 5) -> tuple[float, float, float]:
    """Top-1, top-5 and MRR (over the first ``bench.TOP``) of the re-ranked heads, each fold's requests ordered by
    weights fitted on the other folds: how well a pull of strength ``l2`` carries to requests not fitted on."""
    ranks: list[int | None] = []
    for k in range(folds):
        w = fit(pairs([t for j, t in enumerate(traced) if j % folds != k]), l2)
        for x, right in (t for j, t in enumerate(traced) if j % folds == k):
            order = np.argsort(-(x @ w), kind="stable")
            hits = np.flatnonzero(right[order])
            ranks.append(int(hits[0]) + 1 if len(hits) else None)
    n = len(ranks) or 1
    return (sum(r == 1 for r in ranks) / n, sum(r is not None and r <= 5 for r in ranks) / n,
            sum(1 / r for r in ranks if r is not None and r <= bench.TOP) / n)


def fit(diffs: np.ndarray, l2: float, steps: int = 50) -> np.ndarray:
    """Weights minimising the mean pairwise logistic loss plus ``l2`` * |w - w0|^2 (w0: the ranker as it is), each
    feature scaled by its largest difference (so that the pull weighs every feature alike); Newton's method."""
    prior = np.zeros(diffs.shape[1])
    prior[0] = 1.0
    scale = np.maximum(np.abs(diffs).max(axis=0), 1e-6)
    z = diffs / scale
    pz = prior * scale
    wz = pz.copy()
    ridge = 2 * max(l2, 1e-6) * np.eye(len(wz))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(z @ wz, -50, 50)))
        grad = -(z * (1 - p)[:, None]).mean(axis=0) + 2 * l2 * (wz - pz)
        hessian = (z * (p * (1 - p))[:, None]).T @ z / len(z) + ridge
        step = np.linalg.solve(hessian, grad)
        wz -= step
        if np.abs(step).max() < 1e-9:
            break
    out: np.ndarray = wz / scale
    return out


def figures(index: search.SearchIndex, intents: list[dict[str, Any]], dev: list[dict[str, Any]],
            validation: list[dict[str, Any]]) -> str:
    rows = probe.measure(index, intents)

    def f(subset: list[dict[str, Any]]) -> str:
        s = bench.summarize(subset)
        return f"{bench.pct(s['top1'])} / {bench.pct(s['top5'])}, MRR {s['mrr']:.3f}"

    out = (f"tuning {f([r for r in rows if not r['holdout']])}; held out {f([r for r in rows if r['holdout']])}; "
           f"dev {f(probe.measure(index, dev))}")
    if validation:
        out += f"; validation {f(probe.measure(index, validation))}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--l2", default="0.01,0.1,1", help="comma-separated strengths of the pull to the ranker")
    parser.add_argument("--top", type=float, default=search.RERANK_TOP, help="results re-ranked per request")
    parser.add_argument("--drop", default="", help="comma-separated features held at weight 0")
    parser.add_argument("--cv", action="store_true",
                        help="only the 5-fold cross-validated figures of each --l2 on the tuning split")
    parser.add_argument("--validation", action="store_true", help="also measure the validation set's aggregates")
    args = parser.parse_args()
    search.RERANK_TOP = args.top
    docs, intents, _tokens, dev = asyncio.run(probe.load(False, True))
    validation = asyncio.run(probe.load_validation()) if args.validation else []
    index = search.SearchIndex(docs)
    shipped = rerank.WEIGHTS
    rerank.WEIGHTS = ()
    print(f"as it is: {figures(index, intents, dev, validation)}")
    traced = traces(index, [i for i in intents if not i["holdout"]])
    dropped = [rerank.FEATURES.index(name) for name in args.drop.split(",") if name]
    for x, _right in traced:
        x[:, dropped] = 0.0
    diffs = pairs(traced)
    print(f"{len(diffs)} pairs from {len(traced)} requests of the tuning split")
    for l2 in (float(x) for x in args.l2.split(",")):
        if args.cv:
            top1, top5, mrr = cross_validated(traced, l2)
            print(f"l2 {l2}: 5-fold cross-validated on the tuning split: top-1 {bench.pct(top1)}, top-5 "
                  f"{bench.pct(top5)}, MRR {mrr:.3f}")
            continue
        w = fit(diffs, l2)
        w[dropped] = 0.0
        rerank.WEIGHTS = tuple(round(float(v), 4) for v in w)
        print(f"l2 {l2}: {figures(index, intents, dev, validation)}")
        print("   " + ", ".join(f"{n} {v:+.4f}" for n, v in zip(rerank.FEATURES, rerank.WEIGHTS, strict=True)))
    rerank.WEIGHTS = shipped


if __name__ == "__main__":
    main()
