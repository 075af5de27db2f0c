"""What the OpenAPI tags would do as the documents' "tags" field (issue 13, round 18): a measurement, not a feature.

Run: .venv/bin/python benchmarks/s11s_tags.py [--descriptions] [--weight 1.5]

The catalog's Tool carries no tags, so method_document never fills SearchDocument.tags and FIELDS' "tags" weighs
snippets only. This script reads each OpenAPI connector's operations after the catalog is built (the tags of each
method, and with ``--descriptions`` the first sentence of each tag's description in the document's top-level
``tags``), puts them in the documents and prints the tuning split's, the dev set's and the validation set's aggregate
figures (never a validation request) with and without them.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_discovery as bench
import discovery_probe as probe

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.discovery import search


async def load(descriptions: bool) -> tuple[list[search.SearchDocument], list[search.SearchDocument], list[Any],
                                            list[Any], list[Any]]:
    connectors = bench.load_connectors(bench.fetch(lambda s: print(s, file=sys.stderr)))
    async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as rt:
        catalog = await rt.catalog()
        tags: dict[str, tuple[str, ...]] = {}
        for c in connectors:
            operations = getattr(c, "_operations", None)
            if not isinstance(operations, Mapping):
                continue
            about: dict[str, str] = {}
            if descriptions:
                doc = await c.document()
                for t in doc.data.get("tags") or ():
                    if isinstance(t, Mapping) and isinstance(t.get("name"), str):
                        about[t["name"]] = search.first_sentence(str(t.get("description") or ""))
            for name, op in operations.items():
                tags[f"{c.name}.{name}"] = tuple(w for t in op.tags for w in (t, about.get(t, "")) if w)
        plain = [search.method_document(m) for m in catalog.all_methods()]
        tagged = [dataclasses.replace(d, tags=tags.get(d.key, ())) for d in plain]
        intents = bench.load_intents(catalog, bench.INTENTS)
        dev = bench.load_intents(catalog, probe.DEV_INTENTS)
        validation = bench.load_intents(catalog, bench.VALIDATION_INTENTS)
    return plain, tagged, intents, dev, validation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--descriptions", action="store_true")
    parser.add_argument("--weight", type=float, default=search.FIELDS["tags"][0])
    args = parser.parse_args()
    fields = dict(search.FIELDS)
    fields["tags"] = (args.weight, fields["tags"][1])
    search.FIELDS = fields
    plain, tagged, intents, dev, validation = asyncio.run(load(args.descriptions))
    print(f"{sum(1 for d in tagged if d.tags)} of {len(tagged)} methods tagged")
    for label, docs in (("without tags", plain), ("with tags", tagged)):
        index = search.SearchIndex(docs)
        t = bench.summarize(probe.measure(index, [i for i in intents if not i["holdout"]]))
        d = bench.summarize(probe.measure(index, dev))
        print(f"{label}: tuning {bench.pct(t['top1'])} / {bench.pct(t['top5'])} MRR {t['mrr']:.3f}; "
              f"dev {bench.pct(d['top1'])} / {bench.pct(d['top5'])} MRR {d['mrr']:.3f}")
        probe.report_validation(index, validation)


if __name__ == "__main__":
    main()
