"""Measure several settings of the lexical ranker in one process (issue 13, s16d).

Run: nice .venv/bin/python benchmarks/discovery_sweep.py [--validation] SETTING [SETTING ...]

Each SETTING is ``NAME=VALUE[;NAME=VALUE...]`` as discovery_probe.py's ``--set`` reads it, or
``FIELDS.field=weight,b`` for one field of search.FIELDS; ``base`` is the code as it is. The catalog and the
intents are read once; each setting builds its own index and prints one line of aggregates: the tuning split,
the tuning file's held-out third, the dev set, and with ``--validation`` the validation set (aggregates only,
never a request or a row), each as top-1 / top-5 / MRR / paraphrase top-5. The blind set is never read.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_discovery as bench
import discovery_probe as probe

from codemode_kernel.discovery import search


def figures(index: search.SearchIndex, intents: list[dict[str, Any]]) -> str:
    rows = [{**i, "rank": bench.rank_of([k for k, _ in index.rank(i["q"], limit=bench.TOP)[0]], i["expect"])}
            for i in intents]
    a = bench.summarize(rows)
    p = bench.summarize([r for r in rows if r["paraphrase"]])
    return f"{100 * a['top1']:4.1f} {100 * a['top5']:4.1f} {a['mrr']:.3f} p{100 * p.get('top5', 0):4.1f}"


def apply(setting: str) -> list[tuple[Any, str, Any]]:
    """Set each NAME=VALUE of ``setting``; the old values, to restore."""
    undo: list[tuple[Any, str, Any]] = []
    if setting == "base":
        return undo
    for item in setting.split(";"):
        target, value = item.split("=", 1)
        if target.startswith("FIELDS."):
            field = target.split(".", 1)[1]
            weight, b = (float(x) for x in value.split(","))
            undo.append((search, "FIELDS", search.FIELDS))
            search.FIELDS = {**search.FIELDS, field: (weight, b)}
            continue
        module, name, new = probe.constant(item)
        undo.append((module, name, getattr(module, name)))
        setattr(module, name, new)
    return undo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--validation", action="store_true")
    parser.add_argument("settings", nargs="+")
    args = parser.parse_args()
    docs, intents, _tokens, dev = asyncio.run(probe.load(dev=True))
    sets = {"tuning": [i for i in intents if not i["holdout"]], "third": [i for i in intents if i["holdout"]],
            "dev": dev}
    if args.validation:
        sets["validation"] = asyncio.run(probe.load_validation())
    print(f"{'':<40}" + "".join(f" | {n:<22}" for n in sets), flush=True)
    for setting in args.settings:
        undo = apply(setting)
        try:
            index = search.SearchIndex(docs)
            print(f"{setting:<40}" + "".join(f" | {figures(index, s):<22}" for s in sets.values()), flush=True)
        finally:
            for module, name, old in reversed(undo):
                setattr(module, name, old)


if __name__ == "__main__":
    main()
