"""A second lexical pass where the first result holds little of the request (issue 13, s16d; measurement only).

Run: nice .venv/bin/python benchmarks/discovery_second_pass.py [--validation]

Where the lexical first holds at most a share ``s`` of the request's words (``SearchIndex.share_held``), the
request is ranked again with the catalog's learned associations widening it (cooccurrence.py, through
``SearchIndex``'s ``associations`` hook at weight ``w``; round 14 measured that widening on every request), and
the answer is the second ranking (``replace``) or both fused by reciprocal rank (``rrf``, k 40). Aggregates only:
the tuning split, the tuning file's held-out third, the dev set and with ``--validation`` the validation set (never
a request or a row); the blind set is never read.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_discovery as bench
import discovery_probe as probe

from codemode_kernel.discovery import search

SHARES = (0.34, 0.5)
WEIGHTS = (0.2, 0.4)
MODES = ("replace", "rrf")


def line(intents: list[dict[str, Any]], ranked: list[list[str]]) -> str:
    rows = [{**i, "rank": bench.rank_of(r, i["expect"])} for i, r in zip(intents, ranked, strict=True)]
    a = bench.summarize(rows)
    p = bench.summarize([r for r in rows if r["paraphrase"]])
    return f"{100 * a['top1']:4.1f} {100 * a['top5']:4.1f} {a['mrr']:.3f} p{100 * p.get('top5', 0):4.1f}"


def rrf(a: list[str], b: list[str], k: float = 40.0) -> list[str]:
    score: dict[str, float] = {}
    for ranking in (a, b):
        for r, key in enumerate(ranking):
            score[key] = score.get(key, 0.0) + 1 / (k + r + 1)
    return sorted(score, key=lambda key: -score[key])[:bench.TOP]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--validation", action="store_true")
    args = parser.parse_args()
    docs, intents, _tokens, dev = asyncio.run(probe.load(dev=True))
    sets = {"tuning": [i for i in intents if not i["holdout"]], "third": [i for i in intents if i["holdout"]],
            "dev": dev}
    if args.validation:
        sets["validation"] = asyncio.run(probe.load_validation())
    index = search.SearchIndex(docs)
    first = {n: [[k for k, _ in index.rank(i["q"], limit=50)[0]] for i in s] for n, s in sets.items()}
    shares = {n: [index.share_held(i["q"], r[0]) if r else 1.0 for i, r in zip(s, first[n], strict=True)]
              for n, s in sets.items()}
    print(f"{'':<28}" + "".join(f" | {n:<22}" for n in sets))
    print(f"{'lexical':<28}" + "".join(f" | {line(s, [r[:bench.TOP] for r in first[n]]):<22}"
                                       for n, s in sets.items()))
    for w in WEIGHTS:
        widened = search.SearchIndex(docs, associations=index.learned, learned_weight=w)
        second = {n: [[k for k, _ in widened.rank(i["q"], limit=50)[0]] for i in s] for n, s in sets.items()}
        print(f"{f'widened always w={w}':<28}" + "".join(f" | {line(s, [r[:bench.TOP] for r in second[n]]):<22}"
                                                       for n, s in sets.items()), flush=True)
        for s_max, mode in itertools.product(SHARES, MODES):
            row = []
            for n, s in sets.items():
                ranked = []
                for j in range(len(s)):
                    if shares[n][j] > s_max:
                        ranked.append(first[n][j][:bench.TOP])
                    elif mode == "replace":
                        ranked.append(second[n][j][:bench.TOP])
                    else:
                        ranked.append(rrf(first[n][j], second[n][j]))
                row.append(line(s, ranked))
            print(f"{f'{mode} s<={s_max} w={w}':<28}" + "".join(f" | {f:<22}" for f in row), flush=True)


if __name__ == "__main__":
    main()
