"""The semantic extra may move the lexical first where the words hold little of the request (issue 13, s16d).

The fusion keeps the lexical ranking's first result first, unless that result holds at most
search.SURE_SHARE of the request's words in any spelling and the model finds a close match (a cosine of at
least semantic.SURE_COSINE): then the fused order stands. The stand-in model (test_s13d_fusion's) says that
"fold" means "merge".
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from codemode_kernel.catalog import Catalog
from codemode_kernel.discovery import semantic
from codemode_kernel.discovery.results import build_index
from tests.discovery.catalog import connectors
from tests.discovery.test_s13d_fusion import StandIn, paths, ready_discovery

# Holds "branch", "pull" and "request" of the catalog's words, not "fold" or "main": github.pulls_create (which
# holds "pull" and "request", 2 of its 5 words) is the lexical first, github.pulls_merge third.
UNSURE = "fold a branch into main via pull request"
# The same meaning, but the lexical first (github.pulls_create) holds 3 of its 4 words.
SURE = "create a pull request to fold"


class NothingClose(StandIn):
    """Noise only: no text is close to any other (cosines far below SURE_COSINE)."""

    def embed(self, texts: Sequence[str], batch: int = semantic.BATCH) -> semantic.Vectors:
        self.texts += texts
        out = np.zeros((len(texts), semantic.DIMENSIONS), dtype=np.float32)
        for r, text in enumerate(texts):
            v = np.random.default_rng(zlib.crc32(text.encode())).normal(0, 1.0, semantic.DIMENSIONS)
            out[r] = v / np.linalg.norm(v)
        return out


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.resolve_sync({c.name: c for c in connectors()})


def test_the_requests_are_what_the_specs_say(catalog: Catalog) -> None:
    """The lexical ranker alone: UNSURE's first holds at most SURE_SHARE of it, SURE's first more."""
    index = build_index(catalog, {})
    unsure = [k for k, _ in index.lexical_rank(UNSURE, limit=5)[0]]
    assert unsure[0] == "github.pulls_create" and "github.pulls_merge" in unsure
    assert index.share_held(UNSURE, unsure[0]) <= 0.5
    sure = [k for k, _ in index.lexical_rank(SURE, limit=5)[0]]
    assert sure[0] == "github.pulls_create" and index.share_held(SURE, sure[0]) > 0.5


def test_a_first_that_holds_little_of_the_request_gives_way_to_the_models_close_match(catalog: Catalog) -> None:
    """Where the lexical first holds little of the request, the method the model finds close may come first."""
    found = paths(ready_discovery(catalog, StandIn()), catalog, UNSURE)
    assert found[0] == "github.pulls_merge", found


def test_a_model_that_finds_nothing_close_leaves_the_first_in_place(catalog: Catalog) -> None:
    """No cosine reaches SURE_COSINE: the lexical first stays first, as for any request."""
    found = paths(ready_discovery(catalog, NothingClose()), catalog, UNSURE)
    assert found[0] == "github.pulls_create", found


def test_a_first_that_holds_most_of_the_request_stays_first(catalog: Catalog) -> None:
    """Where the lexical first holds more than SURE_SHARE of the request, the model never moves it."""
    found = paths(ready_discovery(catalog, StandIn()), catalog, SURE)
    assert found[0] == "github.pulls_create", found


def test_an_unkept_first_is_ranked_by_its_fused_score() -> None:
    """fuse(keep_first=False): the order is the fused scores' alone, each shown over the best's."""
    keys = ["a", "b", "c", "d"]
    sims = np.array([0.0, 0.5, 0.9, 0.8], dtype=np.float32)  # the model: c, d, b, a
    out = semantic.fuse([("a", 9.0), ("b", 5.0)], sims, keys, limit=4, k=1, weight=5.0, keep_first=False)
    # a: 1/2 + 5/5 = 1.5; b: 1/3 + 5/4 = 1.583; c: 5/2 = 2.5; d: 5/3 = 1.667.
    assert [key for key, _ in out] == ["c", "d", "b", "a"]
    assert np.allclose([s for _, s in out], [1.0, (5 / 3) / 2.5, (1 / 3 + 5 / 4) / 2.5, 1.5 / 2.5])
