"""Paired A/B of clean trees, round by round (issue 12, s11w): the order of the trees alternates.

Run: .venv/bin/python benchmarks/s11w_ab.py --trees /tmp/a,/tmp/b --what round,journal [--rounds 6] [--reps 3]

Each round runs, for each tree in turn (reversed every other round), ``<tree>/benchmarks/<script>``
with ``PYTHONPATH=<tree>`` once per figure, and records its median and its rate with the 1-minute
load average. ``--script s10w_worker.py`` (the default) takes ``round`` (worker CPU per call with a host
that answers at once; rate = calls/s), ``journal`` / ``jsync`` (journaled calls through the runtime),
``b2b`` and ``pass``; ``--script s11w_pass.py`` takes what that script takes. At the end: per figure, the
median over rounds of each tree's figure and in how many rounds each tree was the lowest (for
``rate``: the highest).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path


def run(tree: str, script: str, what: str, reps: int, n: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": tree}
    cmd = [sys.executable, str(Path(tree) / "benchmarks" / script), what, "--reps", str(reps)]
    if n:
        cmd += ["--n", str(n)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, timeout=600)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    assert str(result.get("tree", tree)).startswith(tree), (result, tree)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--trees", required=True)
    ap.add_argument("--what", default="round")
    ap.add_argument("--script", default="s10w_worker.py")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=0)
    args = ap.parse_args()
    trees = args.trees.split(",")
    whats = args.what.split(",")
    rows: dict[str, dict[str, list[dict[str, float]]]] = {w: {t: [] for t in trees} for w in whats}
    loads = []
    for r in range(args.rounds):
        order = trees if r % 2 == 0 else list(reversed(trees))
        loads.append(os.getloadavg()[0])
        for what in whats:
            for tree in order:
                res = run(tree, args.script, what, args.reps, args.n)
                rows[what][tree].append(res)
                print(json.dumps({"round": r, "what": what, "tree": tree, "median_us": res["median_us"],
                                  "rate": res.get("rate"), "load": loads[-1]}), flush=True)
    for what in whats:
        for key, best in (("median_us", min), ("rate", max)):
            if any(x.get(key) is None for t in trees for x in rows[what][t]):
                continue
            wins = {t: 0 for t in trees}
            for r in range(args.rounds):
                values = {t: rows[what][t][r][key] for t in trees}
                wins[best(values, key=values.__getitem__)] += 1
            print(json.dumps({"what": what, "figure": key, "load": [round(min(loads), 1), round(max(loads), 1)],
                              **{t: {"median": round(statistics.median(x[key] for x in rows[what][t]), 2),
                                     "rounds_best": wins[t]} for t in trees}}), flush=True)


if __name__ == "__main__":
    main()
