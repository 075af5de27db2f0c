"""The semantic extra (issue 13): all-MiniLM-L6-v2 from the installed package, blended with the lexical ranking.

Real model, real files: these specs need ``codemode-kernel[semantic]`` (the ``test`` extra installs it).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from codemode_kernel.catalog import Catalog
from codemode_kernel.discovery import semantic
from codemode_kernel.discovery.search import SearchDocument
from codemode_kernel.discovery.service import Discovery, default_embedder
from tests.discovery.catalog import connectors

SENTENCE = "Get the weather in Paris today"
# The first dimensions of its embedding (benchmarks/discovery_minilm.py's MiniLM on the same bytes gives these).
PINNED = [0.01903747, 0.07143591, 0.0988238, -0.02710626, 0.0539025, -0.04551046]
# Shares no word with "Merge a pull request" (github.pulls_merge); the lexical ranker finds nothing for it.
PARAPHRASE = "fold a branch into main"
QUERY = "kill a pod"


@pytest.fixture(scope="module")
def model() -> semantic.MiniLM:
    folder = semantic.installed_model_dir()
    assert folder is not None, "the semantic extra is not installed: pip install -e '.[test]'"
    return semantic.MiniLM.load(folder)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.resolve_sync({c.name: c for c in connectors()})


class Counting:
    """The real model, counting the texts it embeds, optionally held until ``gate`` is set."""

    def __init__(self, model: semantic.MiniLM, gate: threading.Event | None = None) -> None:
        self.model, self.gate = model, gate
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], batch: int = semantic.BATCH) -> semantic.Vectors:
        if self.gate is not None:
            assert self.gate.wait(30)
        self.texts += texts
        return self.model.embed(texts, batch)


def documents(model: Counting) -> list[str]:
    """The document texts the model embedded (a search that finds the vectors ready embeds its request too)."""
    return [t for t in model.texts if t != QUERY]


def paths(discovery: Discovery, catalog: Catalog, query: str) -> list[str]:
    return [r.path for r in discovery.search(catalog, [], query, limit=5).results]


def ready(discovery: Discovery) -> semantic.CatalogVectors:
    index = discovery._index
    assert index is not None and isinstance(index.semantic, semantic.Signal)
    assert index.semantic.vectors.wait(60)
    return index.semantic.vectors


def test_the_embedding_of_a_fixed_sentence_is_the_pinned_one(model: semantic.MiniLM) -> None:
    """The model read from the package's files gives all-MiniLM-L6-v2's vector (first dimensions, 1e-4), unit length."""
    v = model.embed([SENTENCE])[0]
    assert np.allclose(v[:6], PINNED, atol=1e-4), v[:6]
    assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-5


def test_the_model_computes_in_float32(model: semantic.MiniLM) -> None:
    """Every layer stays float32 (numpy 2 promotes float32 arrays divided by a numpy float64 scalar to float64:
    twice the memory and time of the catalog's build)."""
    ids = np.array([[model.tok.cls, 2000, model.tok.sep]])
    assert model._forward(ids, np.ones(ids.shape, dtype=np.float32)).dtype == np.float32


def test_the_blend_is_the_measured_formula() -> None:
    """Lexical score over the best, plus 0.6 x max(0, (cosine - mean) / (max - mean)), over both pools."""
    keys = ["a", "b", "c", "d"]
    sims = np.array([0.2, 0.6, 0.4, 0.0], dtype=np.float32)  # mean 0.3, max 0.6: scale 0.3
    out = semantic.blend([("a", 4.0), ("c", 2.0)], sims, keys, pool=2)
    # a: 1 + 0; c: 0.5 + 0.6 * (0.1 / 0.3) = 0.7; b (the model's first, not lexical): 0 + 0.6 * 1 = 0.6
    assert [k for k, _ in out] == ["a", "c", "b"]
    assert [round(s, 6) for _, s in out] == [1.0, 0.7, 0.6]
    # Candidates limit what the model may add (one connector's documents), not the mean and max.
    only = semantic.blend([("a", 4.0)], sims, keys, candidates=[2, 3], pool=2)
    assert [(k, round(s, 6)) for k, s in only] == [("a", 1.0), ("c", 0.2), ("d", 0.0)]


def test_a_paraphrase_with_no_shared_word_is_found_with_the_extra_only(model: semantic.MiniLM, catalog: Catalog,
                                                                         tmp_path: Path) -> None:
    """With the extra the paraphrase ranks its method first; the lexical ranker alone does not find it."""
    lexical = Discovery(semantic=None)
    assert "github.pulls_merge" not in paths(lexical, catalog, PARAPHRASE)
    blended = Discovery(semantic=semantic.Embedder(load=lambda: model, cache=tmp_path))
    paths(blended, catalog, PARAPHRASE)
    ready(blended)
    out = blended.search(catalog, [], PARAPHRASE, limit=5)
    assert out.results[0].path == "github.pulls_merge"
    assert out.results[0].kind == "method" and out.results[0].requires_approval  # the same result rows


def test_search_answers_lexically_while_the_vectors_are_computed(model: semantic.MiniLM, catalog: Catalog,
                                                                 tmp_path: Path) -> None:
    """The background build never blocks a search: until it ends, the lexical ranking is the answer."""
    gate = threading.Event()
    counting = Counting(model, gate)
    discovery = Discovery(semantic=semantic.Embedder(load=lambda: counting, cache=tmp_path))
    lexical = Discovery(semantic=None)
    try:
        for query in ("kill a pod", PARAPHRASE, "sign up a new buyer"):
            assert discovery.search(catalog, [], query) == lexical.search(catalog, [], query)
        assert not ready_now(discovery)
    finally:
        gate.set()
    ready(discovery)
    assert paths(discovery, catalog, PARAPHRASE)[0] == "github.pulls_merge"


def ready_now(discovery: Discovery) -> bool:
    index = discovery._index
    assert index is not None and isinstance(index.semantic, semantic.Signal)
    return index.semantic.ready()


def test_a_second_index_reads_the_cache_file(model: semantic.MiniLM, catalog: Catalog, tmp_path: Path) -> None:
    """A second start (a new process's embedder, the same cache folder) embeds no document."""
    first = Counting(model)
    ready(_searched(Discovery(semantic=semantic.Embedder(load=lambda: first, cache=tmp_path)), catalog))
    assert len(documents(first)) == len(catalog.all_methods())
    files = list(tmp_path.glob("*.npy"))
    assert len(files) == 1 and files[0].name.startswith(semantic.PINNED["model.safetensors"][:16])
    second = Counting(model)
    vectors = ready(_searched(Discovery(semantic=semantic.Embedder(load=lambda: second, cache=tmp_path)), catalog))
    assert documents(second) == [] and vectors.ready()


def test_a_corrupt_cache_file_is_rebuilt(model: semantic.MiniLM, catalog: Catalog, tmp_path: Path) -> None:
    """A cache file that is not what the build writes (garbage, another shape) is ignored and written anew."""
    ready(_searched(Discovery(semantic=semantic.Embedder(load=lambda: model, cache=tmp_path)), catalog))
    (file,) = tmp_path.glob("*.npy")
    for bad in (b"\x93NUMPY garbage", None):
        if bad is None:
            np.save(file, np.ones((3, semantic.DIMENSIONS), dtype=np.float32))
        else:
            file.write_bytes(bad)
        counting = Counting(model)
        vectors = ready(_searched(Discovery(semantic=semantic.Embedder(load=lambda c=counting: c, cache=tmp_path)),
                                  catalog))
        assert vectors.ready() and len(documents(counting)) == len(catalog.all_methods())
        assert np.load(file).shape == (len(catalog.all_methods()), semantic.DIMENSIONS)


def test_a_snippet_added_later_embeds_only_its_own_document(model: semantic.MiniLM, catalog: Catalog) -> None:
    """The embedder keeps each document's vector: a new index over one more document embeds that one."""
    counting = Counting(model)
    embedder = semantic.Embedder(load=lambda: counting, cache=None)
    docs = [SearchDocument(key=m.path, connector=m.connector, name=m.name, summary=m.tool.description)
            for m in catalog.all_methods()]
    assert embedder.signal(docs).vectors.wait(60)
    before = len(counting.texts)
    more = [*docs, SearchDocument(key="snippet:weekly", connector="codemode", name="weekly_report",
                                  summary="Mail the weekly sales figures", kind="snippet")]
    vectors = embedder.signal(more).vectors
    assert vectors.wait(60) and vectors.ready()
    assert counting.texts[before:] == ["codemode: weekly report. Mail the weekly sales figures"]


def test_an_index_rebuilt_during_a_build_embeds_only_its_new_document(model: semantic.MiniLM,
                                                                       catalog: Catalog) -> None:
    """A snippet saved while the catalog is still being embedded costs one document, not the catalog again."""
    gate = threading.Event()
    counting = Counting(model, gate)
    embedder = semantic.Embedder(load=lambda: counting, cache=None)
    docs = [SearchDocument(key=m.path, connector=m.connector, name=m.name, summary=m.tool.description)
            for m in catalog.all_methods()]
    first = embedder.signal(docs).vectors
    second = embedder.signal([*docs, SearchDocument(key="snippet:weekly", connector="codemode", name="weekly",
                                                    summary="Mail the weekly figures", kind="snippet")]).vectors
    gate.set()
    assert first.wait(60) and second.wait(60) and first.ready() and second.ready()
    assert sorted(counting.texts) == sorted([semantic.document_text(d) for d in docs]
                                            + ["codemode: weekly. Mail the weekly figures"])


def test_tampered_weights_leave_search_lexical_with_one_warning(catalog: Catalog, tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """A weights file whose bytes differ from the pinned ones is never used: one warning, lexical answers."""
    folder = semantic.installed_model_dir()
    assert folder is not None
    copy = tmp_path / "model"
    copy.mkdir()
    for name in semantic.PINNED:
        shutil.copyfile(folder / name, copy / name)
    data = bytearray((copy / "model.safetensors").read_bytes())
    data[len(data) // 2] ^= 0x01
    (copy / "model.safetensors").write_bytes(bytes(data))
    embedder = semantic.Embedder(folder=copy, cache=tmp_path / "cache")
    discovery, lexical = Discovery(semantic=embedder), Discovery(semantic=None)
    with caplog.at_level(logging.WARNING, logger=semantic.__name__):
        vectors = ready(_searched(discovery, catalog))
        assert vectors.failed and not vectors.ready() and embedder.broken
        assert discovery.search(catalog, [], PARAPHRASE) == lexical.search(catalog, [], PARAPHRASE)
        discovery.invalidate()
        ready(_searched(discovery, catalog))  # a second index: no second warning
    warned = [r for r in caplog.records if r.name == semantic.__name__]
    assert len(warned) == 1 and "sha256" in warned[0].getMessage() and "lexically" in warned[0].getMessage()


def test_codemode_semantic_0_loads_nothing(monkeypatch: pytest.MonkeyPatch, catalog: Catalog) -> None:
    """CODEMODE_SEMANTIC=0: no embedder, no signal on the index, and (in a fresh process) the module not imported."""
    monkeypatch.setenv("CODEMODE_SEMANTIC", "0")
    assert default_embedder() is None and semantic.shared() is None
    discovery = Discovery()
    discovery.search(catalog, [], "kill a pod")
    assert discovery._index is not None and discovery._index.semantic is None
    script = ("import sys\nfrom codemode_kernel.catalog import Catalog\n"
              "from codemode_kernel.discovery.service import Discovery\n"
              "from tests.discovery.catalog import connectors\n"
              "c = Catalog.resolve_sync({x.name: x for x in connectors()})\n"
              "print(Discovery().search(c, [], 'kill a pod').results[0].path)\n"
              "print('codemode_kernel.discovery.semantic' in sys.modules, 'numpy' in sys.modules)\n")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "CODEMODE_SEMANTIC": "0", "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=root,
                         timeout=120, check=True)
    assert out.stdout.split() == ["kubernetes.deleteCoreV1NamespacedPod", "False", "False"], out.stderr


def _searched(discovery: Discovery, catalog: Catalog) -> Discovery:
    discovery.search(catalog, [], QUERY)
    return discovery


def test_a_runtime_start_does_not_import_the_model(tmp_path: Path) -> None:
    """Discovery() imports neither numpy nor the semantic module; the first search (its index) does."""
    script = ("import sys\nfrom codemode_kernel.catalog import Catalog\n"
              "from codemode_kernel.discovery.service import Discovery\n"
              "from tests.discovery.catalog import connectors\n"
              "d = Discovery()\n"
              "print('numpy' in sys.modules, 'codemode_kernel.discovery.semantic' in sys.modules)\n"
              "d.search(Catalog.resolve_sync({x.name: x for x in connectors()}), [], 'kill a pod')\n"
              "print('codemode_kernel.discovery.semantic' in sys.modules)\n")
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "CODEMODE_SEMANTIC"}
    env.update(PYTHONPATH=str(root), XDG_CACHE_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=root,
                         timeout=120, check=True)
    assert out.stdout.split() == ["False", "False", "True"], out.stderr
