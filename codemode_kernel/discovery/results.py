"""Search results as a model reads them: the catalog and the saved snippets, ranked.

The runtime keeps one :class:`~codemode_kernel.discovery.search.SearchIndex` per catalog
and snippet set (:func:`index_keys` says when it is stale) and turns ranked keys into
:class:`~codemode_kernel.models.SearchResult` rows that carry what a caller needs to decide
without a describe: path, one-line summary, required arguments, approval flag.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from codemode_kernel.catalog import Catalog
from codemode_kernel.discovery.describe import inferred_input_schema, snippet_approvals
from codemode_kernel.discovery.search import (
    SearchIndex,
    first_sentence,
    method_document,
    snippet_document,
)
from codemode_kernel.models import SearchOutput, SearchResult

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
HEADLINE = 100


class SnippetLike(Protocol):
    """The fields of a saved snippet that discovery reads."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def code(self) -> str: ...
    @property
    def input_schema(self) -> Any: ...
    @property
    def saved_at(self) -> int: ...


_PATHS: weakref.WeakKeyDictionary[Catalog, list[str]] = weakref.WeakKeyDictionary()


def index_keys(catalog: Catalog, snippets: Mapping[str, SnippetLike]) -> list[str]:
    """What an index was built from: every method path and every snippet version."""
    paths = _PATHS.get(catalog)
    if paths is None:  # a catalog does not change once resolved; listing 3,000 paths per search did show
        paths = _PATHS[catalog] = [m.path for m in catalog.all_methods()]
    return [*paths, *(f"snippet:{n}:{s.saved_at}" for n, s in snippets.items())]


def build_index(catalog: Catalog, snippets: Mapping[str, SnippetLike]) -> SearchIndex:
    docs = [method_document(m) for m in catalog.all_methods()]
    docs += [snippet_document(s.name, s.description, s.code) for s in snippets.values()]
    return SearchIndex(docs)


def clamp_limit(limit: Any) -> int:
    """``limit`` as an int in 1..MAX_LIMIT (None → the default); anything else is refused."""
    if limit is None:
        return DEFAULT_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ValueError(f"limit must be a whole number from 1 to {MAX_LIMIT}, not {limit!r}")
    return max(1, min(MAX_LIMIT, limit))


def search_output(index: SearchIndex, catalog: Catalog, snippets: Mapping[str, SnippetLike], query: str, *,
                  limit: int = DEFAULT_LIMIT, connector: str | None = None) -> SearchOutput:
    """The best ``limit`` methods and snippets for ``query`` (``connector`` keeps one namespace)."""
    ranked, total = index.rank(query, connector=connector, limit=limit)
    results: list[SearchResult] = []
    for key, score in ranked:
        if key.startswith("snippet:"):
            s = snippets[key.split(":", 1)[1]]
            results.append(SearchResult(s.name, "codemode", "run", _snippet_headline(s),
                                        bool(snippet_approvals(s.code, catalog)), "snippet", round(score, 2),
                                        _snippet_required(s)))
            continue
        name, method = key.split(".", 1)
        m = catalog.methods[name][method]
        results.append(SearchResult(m.path, name, method, _headline(m.tool.description),
                                    m.tool.requires_approval, "method", round(score, 2),
                                    _required(m.tool.input_schema)))
    return SearchOutput(results, total, total > len(results))


def unknown_connector(catalog: Catalog, connector: str) -> str | None:
    """An error message when ``connector`` names no namespace search can filter on."""
    if connector in catalog.methods or connector == "codemode":
        return None
    names = ", ".join(sorted(catalog.methods)) or "(none)"
    return f"connector={connector!r} is not configured; use one of: {names} (or 'codemode' for snippets)"


def _headline(description: str) -> str:
    """The first sentence of a description, at most ``HEADLINE`` characters: five results cost ~300 tokens."""
    line = first_sentence(description)
    return line if len(line) <= HEADLINE else line[: HEADLINE - 1].rstrip() + "…"


def _snippet_headline(s: SnippetLike) -> str:
    """A snippet's description, or (saved without one) what its code starts with: never an empty line."""
    lines = [line.strip() for line in s.code.splitlines() if line.strip()]
    first = next((line for line in lines if not line.startswith("#")), lines[0] if lines else "")
    return _headline(s.description) or _headline(f"A saved program without a description; its code: {first}")


def _schema(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return None
    return raw


def _snippet_required(s: SnippetLike) -> list[str]:
    """What a snippet needs in its input: its schema's required keys, or (saved without one) the keys its code
    reads as ``input["key"]``, or ``["input"]`` when it reads ``input`` otherwise (review 15x, M3)."""
    schema = _schema(s.input_schema)
    if isinstance(schema, Mapping):
        return _required(schema)
    inferred = inferred_input_schema(s.code)
    if inferred is None:
        return []
    return _required(inferred) or ["input"]


def _required(schema: Any) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    required = schema.get("required")
    if not isinstance(required, Sequence) or isinstance(required, str):
        return []
    return [str(r) for r in required]
