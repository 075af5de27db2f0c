"""Review 14x: README's own examples of search, on the real GitHub description.

Before the fix, README ("Discovery", "The semantic extra"): ``codemode.search("open pull requests", limit=5,
connector="github")`` is the example request, and with the semantic extra "a request that shares no
word with a method can still reach it ("fold a branch into main" for ``github.pulls_merge``)". On
GitHub's real description (1,223 methods, the one ``make bench`` measures) with the real MiniLM
extra installed and its vectors ready: "open pull requests" ranks ``pulls_create`` first and
``pulls_list`` 13th (17th lexically), outside the example's ``limit=5``; "fold a branch into main"
does not put ``pulls_merge`` in the top 50 at all. The only spec of the paraphrase
(test_s13d_fusion) uses an 11-method stand-in catalog, where it holds.

Uses ``.bench-cache/discovery/github.json`` (``make bench`` / ``bench_discovery.fetch``); skipped without it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from codemode_kernel import OpenApiConnector
from codemode_kernel.catalog import Catalog
from codemode_kernel.discovery import semantic
from codemode_kernel.discovery.service import Discovery

GITHUB = Path(__file__).resolve().parents[2] / ".bench-cache" / "discovery" / "github.json"


@pytest.fixture(scope="module")
def ready() -> tuple[Discovery, Catalog]:
    if not GITHUB.is_file():
        pytest.skip("the GitHub description is not in .bench-cache/discovery/ (make bench fetches it)")
    if semantic.installed_model_dir() is None:
        pytest.skip("the semantic extra is not installed")
    connector = OpenApiConnector("github", json.loads(GITHUB.read_text(encoding="utf-8")),
                                 base_url="http://127.0.0.1:9")
    catalog = asyncio.run(Catalog.resolve({"github": connector}))
    discovery = Discovery(semantic=semantic.Embedder(cache=semantic.cache_dir()))
    discovery.search(catalog, [], "warm up")
    index = discovery._index
    assert index is not None and isinstance(index.semantic, semantic.Signal)
    assert index.semantic.vectors.wait(300) and index.semantic.ready()
    return discovery, catalog


def _paths(ready: tuple[Discovery, Catalog], query: str, limit: int) -> list[str]:
    discovery, catalog = ready
    return [r.path for r in discovery.search(catalog, [], query, limit=limit, connector="github").results]


def test_the_readme_paraphrase_reaches_its_method(ready: tuple[Discovery, Catalog]) -> None:
    """README (fixed after review 14x) says "land a pull request" finds pulls_merge (and no longer claims
    that "fold a branch into main" does)."""
    assert "github.pulls_merge" in _paths(ready, "land a pull request", 5)


def test_the_readme_example_request_finds_the_listing(ready: tuple[Discovery, Catalog]) -> None:
    found = _paths(ready, "list open pull requests", 5)
    assert found[0] == "github.pulls_list", found
