"""A quick probe of the discovery ranker on the tuning split (issue 13, round 5) and the dev set (round 6).

Run: .venv/bin/python benchmarks/discovery_probe.py [--misses sibling,action] [--holdout] [--economy]
     [--dev] [--dev-misses] [--near] [--validation] [--set NAME=VALUE ...]

Loads the six API descriptions and the intents the way ``bench_discovery.py`` does, then
reports top-1 / top-5 / paraphrase top-5 on the tuning split (index % 3 != 2) only, and the
held-out split as two aggregate figures when ``--holdout`` is given (its rows are never
printed). ``--set`` overrides a constant of ``codemode_kernel.discovery.search`` for the run
(``--set VERB_FIRST=1.0``), or of another discovery module (``--set cooccurrence.TOP=3``); a collection
constant takes comma-separated words (``--set _HOW_MUCH=many,much``; an empty value empties it), so a signal
can be measured on and off without editing the code; with ``--moved`` (round 15) it lists the tuning
split's requests (and with ``--dev`` the dev set's) whose rank the overrides change, each with its new first
result: never the validation set's.
``--misses`` lists the tuning split's top-1 misses of the named causes (bench_discovery's
grouping) with the first five results, to study siblings and actions. ``--economy`` adds the
latency and the token figures (the discovery round over all the file's intents, as in
bench_discovery) and the build's CPU with the documents made too (bench_discovery's figure).
``--dev`` adds the dev set (``discovery_intents_fresh.json``, the first fresh set,
tuned on since round 6): top-1 / top-5 / MRR / paraphrase top-5 / top-5 with ``connector=`` given,
the same per connector, and each of its top-5 misses with the first five results. It never reads
the blind set, which only the lead measures (with bench_discovery). ``--near`` (round 8) lists the top-1
misses whose method is 2nd to 5th, of the tuning split and (with ``--dev``) the dev set, each with the results
above it: their scores, HTTP method and path, and the action the ranker reads from each.
``--validation`` (issue 13) adds the validation set (``discovery_intents_validation.json``) as aggregates
only: top-1 / top-5 / MRR / paraphrase top-5 / top-5 with ``connector=`` given, overall and per connector.
Tuners may measure it to keep or reject a change but never read it: this script never prints its
requests, rows or misses, and ``--near``/``--dev-misses`` never include it.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_discovery as bench

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.discovery import search

DEV_INTENTS = bench.FRESH_INTENTS  # the first fresh set, a dev set since round 6 (its "about" says so)


async def load(economy: bool = False, dev: bool = False) -> tuple[
        list[search.SearchDocument], list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """The catalog's documents, the tuning file's intents, with ``economy`` bench_discovery's token
    economy over them (the median discovery round: top-5 search plus one describe), and with ``dev``
    the dev set's intents."""
    connectors = bench.load_connectors(bench.fetch(lambda s: print(s, file=sys.stderr)))
    async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as rt:
        catalog = await rt.catalog()
        docs = [search.method_document(m) for m in catalog.all_methods()]
        intents = bench.load_intents(catalog, bench.INTENTS)
        dev_intents = bench.load_intents(catalog, DEV_INTENTS) if dev else []
        tokens = await bench.token_economy(rt, intents) if economy else {}
        METHODS[:] = catalog.all_methods()
    return docs, intents, tokens, dev_intents


METHODS: list[Any] = []  # the catalog's methods of the last load(), for the build figure with documents


def build_with_documents() -> float:
    """CPU ms, best of 3, of what bench_discovery times as the build: each method's document, then the index."""
    spent = []
    for _ in range(3):
        started = time.process_time()
        search.SearchIndex([search.method_document(m) for m in METHODS])
        spent.append((time.process_time() - started) * 1000)
    return min(spent)


def measure(index: search.SearchIndex, intents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for intent in intents:
        ranked = [k for k, _ in index.rank(intent["q"], limit=bench.TOP)[0]]
        given = [k for k, _ in index.rank(intent["q"], connector=intent["connector"], limit=bench.TOP)[0]]
        rows.append({**intent, "rank": bench.rank_of(ranked, intent["expect"]), "top": ranked[:5],
                     "given": bench.rank_of(given, intent["expect"])})
    return rows


def report_dev(index: search.SearchIndex, intents: list[dict[str, Any]], show_misses: bool) -> None:
    """The dev set's figures, overall and per connector, and (``show_misses``) its top-5 misses."""
    rows = measure(index, intents)

    def line(subset: list[dict[str, Any]]) -> str:
        s = bench.summarize(subset)
        p = bench.summarize([r for r in subset if r["paraphrase"]])
        g = bench.summarize([{**r, "rank": r["given"]} for r in subset])
        para = bench.pct(p["top5"]) if p["n"] else "-"
        return (f"n={s['n']:<3} top-1 {bench.pct(s['top1']):>6}  top-5 {bench.pct(s['top5']):>6}  "
                f"MRR {s['mrr']:.3f}  paraphrase top-5 {para:>6}  connector= given top-5 {bench.pct(g['top5']):>6}")

    print(f"dev {line(rows)}")
    for c in sorted({r["connector"] for r in rows}):
        print(f"  {c:<11}{line([r for r in rows if r['connector'] == c])}")
    if show_misses:
        for row in rows:
            if row["rank"] is not None and row["rank"] <= 5:
                continue
            cause, note = bench.miss_cause(row, index)
            print(f"[{cause}] [{row['rank'] or '-'}|given {row['given'] or '-'}] {row['q']!r} -> "
                  f"{' | '.join(row['expect'])}  {note}")
            for key in row["top"]:
                print(f"      {key}")


async def load_validation() -> list[dict[str, Any]]:
    """The validation set's intents, loaded the way bench_discovery loads them (never printed)."""
    connectors = bench.load_connectors(bench.fetch(lambda s: print(s, file=sys.stderr)))
    async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as rt:
        return bench.load_intents(await rt.catalog(), bench.VALIDATION_INTENTS)


def report_validation(index: search.SearchIndex, intents: list[dict[str, Any]]) -> None:
    """The validation set's aggregate figures, overall and per connector: never a request, a row or a miss."""
    rows = measure(index, intents)

    def line(subset: list[dict[str, Any]]) -> str:
        s = bench.summarize(subset)
        p = bench.summarize([r for r in subset if r["paraphrase"]])
        g = bench.summarize([{**r, "rank": r["given"]} for r in subset])
        para = f"{bench.pct(p['top5'])} (n={p['n']})" if p["n"] else "-"
        return (f"n={s['n']:<3} top-1 {bench.pct(s['top1']):>6}  top-5 {bench.pct(s['top5']):>6}  "
                f"MRR {s['mrr']:.3f}  paraphrase top-5 {para:>6}  connector= given top-5 {bench.pct(g['top5']):>6}")

    print(f"validation {line(rows)}")
    for c in sorted({r["connector"] for r in rows}):
        print(f"  {c:<11}{line([r for r in rows if r['connector'] == c])}")


def print_near(index: search.SearchIndex, rows: list[dict[str, Any]], label: str) -> None:
    """The top-1 misses whose method is in the top 5, each with the first results' scores, HTTP lines and
    actions: the siblings that beat it."""
    by_key = {d.key: d for d in index.docs}
    near = [r for r in rows if r["rank"] is not None and 1 < r["rank"] <= 5]
    print(f"{label}: {len(near)} top-1 misses with the method in the top 5")
    for row in near:
        print(f"[{row['rank']}] {row['q']!r} -> {row['expect'][0]}")
        for key, score in index.rank(row["q"], limit=row["rank"])[0]:
            d = by_key[key]
            mark = "*" if key in row["expect"] else " "
            print(f"    {mark} {score:8.3f} {key:<55} {d.http_method} {d.http_path}  [{search.method_action(d)}]")


def constant(item: str) -> tuple[Any, str, Any]:
    """``NAME=VALUE`` (a constant of search.py) or ``module.NAME=VALUE`` (of codemode_kernel.discovery.module): the
    module, the name and the value, of the constant's own type."""
    target, value = item.split("=", 1)
    module_name, _, name = target.rpartition(".")
    module = importlib.import_module(f"codemode_kernel.discovery.{module_name}") if module_name else search
    if not hasattr(module, name):
        raise SystemExit(f"{module.__name__} has no constant {name}")
    kind = type(getattr(module, name))
    if kind in (int, float, bool):
        return module, name, kind(float(value))
    if kind in (frozenset, set, tuple, list):
        # A collection of words: 'a,b,c' (an empty value empties it). kind(value) would make one of the
        # value's characters and silently switch the feature off (round 18).
        return module, name, kind(w.strip() for w in value.split(",") if w.strip())
    return module, name, kind(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--misses", default="", help="comma-separated causes to list (vocabulary,connector,...)")
    parser.add_argument("--holdout", action="store_true", help="also print the held-out split's aggregate figures")
    parser.add_argument("--economy", action="store_true",
                        help="also print latency p50/p95 over all the file's intents and the discovery round's tokens")
    parser.add_argument("--dev", action="store_true", help="also report the dev set (the first fresh set)")
    parser.add_argument("--dev-misses", action="store_true", help="with --dev, list the dev set's top-5 misses")
    parser.add_argument("--near", action="store_true",
                        help="list the top-1 misses whose method is 2nd-5th (tuning split, and the dev set with --dev)")
    parser.add_argument("--validation", action="store_true",
                        help="also report the validation set's aggregate figures (never its requests or misses)")
    parser.add_argument("--moved", action="store_true",
                        help="with --set, list the tuning split's (and with --dev the dev set's) requests whose "
                             "rank the overrides change (never the validation set's)")
    args = parser.parse_args()
    overrides = [constant(item) for item in args.set]
    docs, intents, tokens, dev_intents = asyncio.run(load(args.economy, args.dev))
    before: dict[str, list[dict[str, Any]]] = {}
    if args.moved:
        # The ranks with the code's own constants, before the overrides: only the tuning split and the dev set.
        index = search.SearchIndex(docs)
        before = {"tuning": measure(index, [i for i in intents if not i["holdout"]]),
                  "dev": measure(index, dev_intents)}
    for module, name, value in overrides:
        setattr(module, name, value)
    build_cpu = []
    for _ in range(3):
        started = time.process_time()
        index = search.SearchIndex(docs)
        build_cpu.append((time.process_time() - started) * 1000)
    build_ms = min(build_cpu)
    started = time.perf_counter()
    rows = measure(index, intents)
    per_query = (time.perf_counter() - started) * 1000 / len(intents)
    tuned = [r for r in rows if not r["holdout"]]
    t, p = bench.summarize(tuned), bench.summarize([r for r in tuned if r["paraphrase"]])
    print(f"tuning n={t['n']}: top-1 {bench.pct(t['top1'])}  top-5 {bench.pct(t['top5'])}  MRR {t['mrr']:.3f}  "
          f"paraphrase top-5 {bench.pct(p['top5'])}   build {build_ms:.0f} ms CPU, {per_query:.2f} ms/query mean")
    if args.holdout:
        held = [r for r in rows if r["holdout"]]
        h, hp = bench.summarize(held), bench.summarize([r for r in held if r["paraphrase"]])
        print(f"held-out n={h['n']}: top-1 {bench.pct(h['top1'])}  top-5 {bench.pct(h['top5'])}  "
              f"paraphrase top-5 {bench.pct(hp['top5'])}")
        a, ap = bench.summarize(rows), bench.summarize([r for r in rows if r["paraphrase"]])
        print(f"whole file n={a['n']}: top-1 {bench.pct(a['top1'])}  top-5 {bench.pct(a['top5'])}  "
              f"paraphrase top-5 {bench.pct(ap['top5'])}  MRR {a['mrr']:.3f}")
    if args.dev:
        report_dev(index, dev_intents, args.dev_misses)
    if args.validation:
        report_validation(index, asyncio.run(load_validation()))
    if args.near:
        print_near(index, tuned, "tuning")
        if args.dev:
            print_near(index, measure(index, dev_intents), "dev")
    if args.economy:
        times = []
        for intent in intents:
            started = time.perf_counter()
            index.rank(intent["q"], limit=bench.TOP)
            times.append((time.perf_counter() - started) * 1000)
        print(f"rank p50 {statistics.median(times):.2f} ms, p95 {bench.percentile(times, 0.95):.2f} ms over "
              f"{len(times)} intents; build {build_ms:.0f} ms CPU (best of 3; with the documents, as "
              f"bench_discovery times it, {build_with_documents():.0f} ms); discovery round median "
              f"~{tokens['round_tokens_p50']:.0f} tokens (search ~{tokens['search_tokens_p50']:.0f}, describe "
              f"~{tokens['describe_tokens_p50']:.0f}); tool description "
              f"~{tokens['tool_description_tokens']:.0f} tokens")
    if args.moved:
        after = {"tuning": tuned, "dev": measure(index, dev_intents)}
        for label, rows_before in before.items():
            for b, a in zip(rows_before, after[label], strict=True):
                if b["rank"] != a["rank"]:
                    print(f"moved {label}: {b['rank'] or '-'} -> {a['rank'] or '-'} {b['q']!r} -> {b['expect'][0]}  "
                          f"first now {a['top'][0] if a['top'] else '-'}")
    wanted = {c for c in args.misses.split(",") if c}
    if wanted:
        causes: dict[str, int] = {}
        for row in tuned:
            if row["rank"] == 1:
                continue
            cause, note = bench.miss_cause(row, index)
            causes[cause] = causes.get(cause, 0) + 1
            if cause in wanted:
                print(f"[{cause}] [{row['rank'] or '-'}] {row['q']!r} -> {row['expect'][0]}  {note}")
                for key in row["top"]:
                    print(f"      {key}")
        print(causes)


if __name__ == "__main__":
    main()
