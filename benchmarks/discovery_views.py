"""What the semantic extra embeds of each method (issue 13, s16d): one text or several views, best similarity.

Run: nice .venv/bin/python benchmarks/discovery_views.py [--views NAME,NAME...] [--validation]

Measurement only. It reads the six API descriptions, the tuning file (its tuning split and held-out third) and
the dev set the way ``bench_discovery.py`` does, embeds the catalog once per document *view* with the product's
:class:`~codemode_kernel.discovery.semantic.Embedder` (vectors cached in ``.bench-cache/discovery/semantic``) and
every request once, and scores each view's cosines (one view, or the best over several: max-over-views) two
ways: the model alone, and fused with the lexical ranking by the product's own :func:`semantic.fuse` (RRF k 40,
weight 0.2, the lexical first kept). ``--validation`` adds the validation set as aggregates only (top-1 /
top-5 / MRR / paraphrase top-5): never a request, a rank or a row. The blind set is never read.

Views (:data:`VIEWS`): ``product`` (the product's :func:`semantic.document_text`: connector, name words,
summary), ``first`` (that and the first sentence of the description's body), ``path`` (that and the path's
literal words), ``params`` (that and the parameter names' words, at most 12), ``summary`` (the summary alone),
``name`` (connector, name words and path words), ``body`` (the body's first sentence, or the summary when it has
none), ``imperative`` (the product's text, the summary's first word without its third-person -s, as a request
says it). A ``+`` joins views into one max-over-views signal (``product+body``).

``--gate`` (the product view): where the lexical first holds at most a share ``s`` of the request's words
(``SearchIndex.covered``) and the model's best cosine is at least ``c``, plain weighted RRF (weight ``w``, the
first not kept) instead of the product's fusion, over a grid (:data:`GATE_SHARES`, :data:`GATE_WEIGHTS`,
:data:`GATE_COSINES`). ``--product`` measures the product's own path (``SearchIndex.rank`` with the extra's
signal) with the first always kept and with its gate (search.SURE_SHARE, semantic.SURE_COSINE).

Results (s16d, 2026-12-07; top-1/top-5/MRR/paraphrase top-5; tuning split 190, held-out third 94, dev 96,
validation 96 requests, aggregates only):

| ranking | tuning | held-out third | dev | validation |
|---|---|---|---|---|
| lexical | 57.4/80.0/0.657/68.7 | 43.6/69.1/0.534/50.0 | 41.7/66.7/0.509/61.9 | 34.4/59.4/0.427/42.3 |
| product view, fused | 57.4/80.0/0.669/67.5 | 43.6/74.5/0.569/59.4 | 41.7/70.8/0.516/68.3 | 34.4/58.3/0.452/40.4 |
| first, fused | 57.4/80.5/0.668/67.5 | 43.6/74.5/0.569/62.5 | 41.7/69.8/0.515/68.3 | 34.4/58.3/0.451/40.4 |
| path, fused | 57.4/80.0/0.666/67.5 | 43.6/71.3/0.563/53.1 | 41.7/68.8/0.511/65.1 | 34.4/58.3/0.452/40.4 |
| params, fused | 57.4/78.4/0.659/63.9 | 43.6/73.4/0.556/56.2 | 41.7/68.8/0.511/66.7 | 34.4/57.3/0.453/38.5 |
| product+body, fused | 57.4/80.0/0.669/67.5 | 43.6/75.5/0.568/59.4 | 41.7/65.6/0.519/65.1 | 34.4/58.3/0.455/40.4 |
| product+summary+name | 57.4/80.0/0.669/67.5 | 43.6/73.4/0.565/56.2 | 41.7/65.6/0.511/63.5 | 34.4/58.3/0.451/40.4 |
| imperative, fused | 57.4/80.0/0.669/67.5 | 43.6/74.5/0.569/59.4 | 41.7/69.8/0.517/68.3 | 34.4/58.3/0.453/40.4 |
| product+imperative | 57.4/80.0/0.669/67.5 | 43.6/74.5/0.569/59.4 | 41.7/70.8/0.517/68.3 | 34.4/58.3/0.451/40.4 |
| gate .5 .2 .5, kept | 57.4/80.0/0.669/67.5 | 44.7/74.5/0.573/59.4 | 42.7/70.8/0.523/68.3 | 36.5/58.3/0.465/40.4 |
| gate .5 .2 0 | 57.4/80.0/0.668/67.5 | 46.8/74.5/0.584/59.4 | 37.5/69.8/0.495/66.7 | 38.5/58.3/0.474/40.4 |

The model alone (product view) reads 31.6 / 54.2 % of the tuning split, 12.5 / 34.4 % of the dev set and 24.0 / 45.8
% of the validation set; no view lifts it much (dev 11.5-18.8 / 30.2-36.5 %; imperative tuning 34.2 / 55.3 %).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import re
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
from codemode_kernel.discovery.text import words

GATE_SHARES = (0.34, 0.5)
GATE_WEIGHTS = (0.2, 0.5)
GATE_COSINES = (0.0, 0.4, 0.5, 0.6)
_PARAM = re.compile(r"\{[^}]*\}")


def _first(body: str) -> str:
    for stop in (". ", "? ", "! "):
        if stop in body:
            return body.split(stop, 1)[0] + stop.strip()
    return body


def _imperative(summary: str) -> str:
    """The summary as a request says it: its first word's third-person -s off ("Lists the ..." -> "List the ...")."""
    head, _, rest = summary.partition(" ")
    if len(head) > 3 and head.endswith("s") and not head.endswith(("ss", "us", "is")):
        head = head[:-1]
    return f"{head} {rest}".strip()


def _path_words(d: search.SearchDocument) -> str:
    return " ".join(words(_PARAM.sub(" ", d.http_path)))


VIEWS: dict[str, Callable[[search.SearchDocument], str]] = {
    "product": semantic.document_text,
    "first": lambda d: f"{semantic.document_text(d)} {_first(d.body)}".strip(),
    "path": lambda d: f"{semantic.document_text(d)} {_path_words(d)}".strip(),
    "params": lambda d: f"{semantic.document_text(d)} {' '.join(' '.join(words(p)) for p in d.params[:12])}".strip(),
    "summary": lambda d: d.summary or " ".join(words(d.name)),
    "name": lambda d: f"{d.connector}: {' '.join(words(d.name))}. {_path_words(d)}",
    "body": lambda d: _first(d.body) or d.summary or " ".join(words(d.name)),
    "imperative": lambda d: f"{d.connector}: {' '.join(words(d.name))}. {_imperative(d.summary)}",
}


async def load_sets(validation: bool) -> tuple[list[search.SearchDocument], dict[str, list[dict[str, Any]]]]:
    connectors = bench.load_connectors(bench.fetch(lambda s: print(s, file=sys.stderr)))
    async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as rt:
        catalog = await rt.catalog()
        docs = [search.method_document(m) for m in catalog.all_methods()]
        intents = bench.load_intents(catalog, bench.INTENTS)
        sets = {"tuning": [i for i in intents if not i["holdout"]],
                "third": [i for i in intents if i["holdout"]],
                "dev": bench.load_intents(catalog, bench.FRESH_INTENTS)}
        if validation:
            sets["validation"] = bench.load_intents(catalog, bench.VALIDATION_INTENTS)
    return docs, sets


def figures(intents: Sequence[dict[str, Any]], ranked: Sequence[Sequence[str]]) -> str:
    """Aggregates only: top-1 / top-5 / MRR / paraphrase top-5."""
    rows = [{**i, "rank": bench.rank_of(r, i["expect"])} for i, r in zip(intents, ranked, strict=True)]
    a = bench.summarize(rows)
    p = bench.summarize([r for r in rows if r["paraphrase"]])
    return f"{100 * a['top1']:4.1f} {100 * a['top5']:4.1f} {a['mrr']:.3f} p{100 * p.get('top5', 0):4.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--views", default="product,first,path,params,product+body,product+summary+name")
    parser.add_argument("--validation", action="store_true", help="also the validation set's aggregates")
    parser.add_argument("--product", action="store_true",
                        help="also the product's own path (SearchIndex.rank with the extra's signal), with and "
                             "without the gate (search.SURE_SHARE)")
    parser.add_argument("--gate", action="store_true",
                        help="also the gated fusion (product view): where the lexical first holds at most a share of "
                             "the request's words, the model's weight raised and the first no longer kept")
    args = parser.parse_args()
    docs, sets = asyncio.run(load_sets(args.validation))
    folder = semantic.installed_model_dir()
    if folder is None:
        raise SystemExit("the semantic extra is not installed")
    embedder = semantic.Embedder(folder=folder, cache=bench.CACHE / "semantic")
    model = embedder.model()
    assert model is not None
    keys = [d.key for d in docs]
    _KEYS[:] = keys
    position = {k: i for i, k in enumerate(keys)}
    wanted = [v.split("+") for v in args.views.split(",")]
    matrices: dict[str, Any] = {}
    for name in dict.fromkeys(n for combo in wanted for n in combo):
        started = time.perf_counter()
        texts = [VIEWS[name](d) for d in docs]
        matrices[name] = embedder.vectors(texts)
        tokens = np.median([len(model.tok.encode(t)) for t in texts[::7]])  # type: ignore[attr-defined]
        print(f"view {name}: {time.perf_counter() - started:.1f} s, median {tokens:.0f} tokens", file=sys.stderr)
    index = search.SearchIndex(docs)
    queries = {n: model.embed([i["q"] for i in intents]) for n, intents in sets.items()}
    lexical = {n: [index.lexical_rank(i["q"], limit=semantic.DEPTH)[0] for i in intents] for n, intents in sets.items()}
    head = f"{'':<28}" + "".join(f" | {n:<22}" for n in sets)
    print(head)
    print(f"{'lexical':<28}" + "".join(
        f" | {figures(sets[n], [[k for k, _ in r[:bench.TOP]] for r in lexical[n]]):<22}" for n in sets))
    for combo in wanted:
        label = "+".join(combo)
        alone, fused = [], []
        for n, intents in sets.items():
            sims = np.max(np.stack([matrices[v] @ queries[n].T for v in combo]), axis=0)  # docs x requests
            alone.append(figures(intents, [[keys[i] for i in np.argsort(-sims[:, j], kind="stable")[:bench.TOP]]
                                           for j in range(len(intents))]))
            fused.append(figures(intents, [[k for k, _ in semantic.fuse(lexical[n][j], sims[:, j], keys,
                                                                         limit=bench.TOP, position=position)]
                                           for j in range(len(intents))]))
        print(f"{label + ' alone':<28}" + "".join(f" | {f:<22}" for f in alone))
        print(f"{label + ' fused':<28}" + "".join(f" | {f:<22}" for f in fused))
    if args.product:
        product(docs, sets, embedder)
    if args.gate:
        gate(index, sets, lexical, {n: matrices["product"] @ queries[n].T for n in sets}, keys, position)


def product(docs: Sequence[search.SearchDocument], sets: dict[str, list[dict[str, Any]]],
            embedder: semantic.Embedder) -> None:
    """SearchIndex.rank as the product runs it with the extra: the first always kept, then the gate as set."""
    index = search.SearchIndex(docs)
    index.semantic = embedder.signal(docs)
    assert index.semantic.vectors.wait(600)
    shares = search.SURE_SHARE
    for label, share in (("product, first kept", -1.0), (f"product, gate {shares} / {semantic.SURE_COSINE}", shares)):
        search.SURE_SHARE = share
        row = [figures(intents, [[k for k, _ in index.rank(i["q"], limit=bench.TOP)[0]] for i in intents])
               for intents in sets.values()]
        print(f"{label:<28}" + "".join(f" | {f:<22}" for f in row), flush=True)
        given = [figures(intents, [[k for k, _ in index.rank(i["q"], connector=i["connector"], limit=bench.TOP)[0]]
                                   for i in intents]) for intents in sets.values()]
        print(f"{'  connector= given':<28}" + "".join(f" | {f:<22}" for f in given), flush=True)
    search.SURE_SHARE = shares


def gate(index: search.SearchIndex, sets: dict[str, list[dict[str, Any]]], lexical: dict[str, list[Any]],
         sims: dict[str, Any], keys: Sequence[str], position: dict[str, int]) -> None:
    """The gated fusion over a grid: share of the request the lexical first holds <= s -> weight w, first not kept."""
    shares = {}
    for n, intents in sets.items():
        out = []
        for i, lex in zip(intents, lexical[n], strict=True):
            have, lack = index.covered(i["q"], lex[0][0]) if lex else ([], [""])
            out.append(len(have) / max(len(have) + len(lack), 1))
        shares[n] = out
    for s_max, w, c_min in itertools.product(GATE_SHARES, GATE_WEIGHTS, GATE_COSINES):
        row = []
        for n, intents in sets.items():
            ranked = []
            for j in range(len(intents)):
                lex = lexical[n][j]
                if lex and shares[n][j] <= s_max and float(sims[n][:, j].max()) >= c_min:
                    ranked.append(_rrf(lex, sims[n][:, j], w))
                else:
                    ranked.append([k for k, _ in semantic.fuse(lex, sims[n][:, j], keys, limit=bench.TOP,
                                                               position=position)])
            row.append(figures(intents, ranked))
        print(f"{f'gate s<={s_max} w={w} c>={c_min}':<28}" + "".join(f" | {f:<22}" for f in row), flush=True)


_KEYS: list[str] = []


def _rrf(lex: Sequence[tuple[str, float]], sims: Any, w: float, k: float = semantic.RRF_K) -> list[str]:
    """Plain weighted RRF over the whole catalog (no first kept)."""
    score = w / (k + np.argsort(np.argsort(-sims, kind="stable"), kind="stable") + 1)
    pos = {key: i for i, key in enumerate(_KEYS)}
    for r, (key, _s) in enumerate(lex[:semantic.DEPTH]):
        score[pos[key]] += 1 / (k + r + 1)
    return [_KEYS[i] for i in np.argsort(-score, kind="stable")[:bench.TOP]]


if __name__ == "__main__":
    main()
