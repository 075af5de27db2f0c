"""Review 15x: with the semantic extra, an empty search request returns methods as if they matched.

``codemode.search("")`` (a model that forgot the request, a variable that was empty) answers
nothing with the lexical ranker alone, but once the semantic extra's vectors are ready it
returns ``limit`` methods with scores 1.0, 0.98, 0.95, ... - on GitHub's description
``campaigns_update_campaign``, ``apps_redeliver_webhook_delivery``, ... - ranked by their
similarity to an empty string. The answer depends on whether the vectors happen to be ready,
and nothing tells the caller that the request was empty.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel.catalog import Catalog
from codemode_kernel.discovery import semantic
from codemode_kernel.discovery.service import Discovery
from tests.discovery.catalog import connectors


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_request_finds_nothing_with_or_without_the_extra(query: str, tmp_path: Path) -> None:
    folder = semantic.installed_model_dir()
    assert folder is not None, "the semantic extra is not installed: pip install -e '.[test]'"
    model = semantic.MiniLM.load(folder)
    catalog = Catalog.resolve_sync({c.name: c for c in connectors()})
    lexical = Discovery(semantic=None)
    assert lexical.search(catalog, [], query, limit=5).results == []
    blended = Discovery(semantic=semantic.Embedder(load=lambda: model, cache=tmp_path))
    blended.search(catalog, [], "warm up", limit=5)
    index = blended._index
    assert index is not None and isinstance(index.semantic, semantic.Signal)
    assert index.semantic.vectors.wait(60)
    found = [(r.path, r.score) for r in blended.search(catalog, [], query, limit=5).results]
    assert found == [], found
