"""Search and describe over one runtime's catalog and saved snippets (issue 11: discovery's glue lives here).

The runtime hands over what it knows (the catalog, and how to read its snippets from the
journal); :class:`Discovery` keeps the ranking index between queries and rebuilds it when the
methods or the snippets change. With the ``semantic`` extra installed (and ``CODEMODE_SEMANTIC``
not ``0``) each index also gets the semantic signal, computed in the background
(:mod:`codemode_kernel.discovery.semantic`); without it nothing of that module, nor numpy, is imported.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from codemode_kernel.catalog import Catalog
from codemode_kernel.discovery.describe import describe_snippet, describe_target, snippet_approvals
from codemode_kernel.discovery.results import (
    SnippetLike,
    build_index,
    clamp_limit,
    index_keys,
    search_output,
    unknown_connector,
)
from codemode_kernel.discovery.search import SearchIndex
from codemode_kernel.models import DescribeOutput, SearchOutput

if TYPE_CHECKING:
    from codemode_kernel.discovery.semantic import Embedder


class SavedSnippet(SnippetLike, Protocol):
    """A snippet as the journal keeps it (what ``describe`` shows of it)."""

    @property
    def connectors(self) -> Sequence[str]: ...


#: Indexes kept at once (a runtime's whole catalog, and the narrower ones of approved executions).
_KEPT_INDEXES = 3


class Discovery:
    """``search`` and ``describe`` for one runtime, with the ranking index cached."""

    def __init__(self, *, semantic: Embedder | Literal["default"] | None = "default") -> None:
        """``semantic``: the signal's embedder; by default the process's when the extra is installed and on."""
        # The last few indexes, newest first, with what each was built from: an approved pass of a model's
        # execution searches its own connectors only (Catalog.only), and must not evict the notebook's index.
        self._indexes: list[tuple[list[str], SearchIndex]] = []
        # "default" is looked up when the first index is built: numpy's import (~60 ms) is not a runtime start's.
        self._semantic = semantic

    @property
    def _index(self) -> SearchIndex | None:
        """The index the last search used (None before the first, or after :meth:`invalidate`)."""
        return self._indexes[0][1] if self._indexes else None

    def invalidate(self) -> None:
        """Forget the index (the catalog or the snippets changed)."""
        self._indexes = []

    def search(self, catalog: Catalog, snippets: Sequence[SnippetLike], query: str, *, limit: Any = None,
               connector: str | None = None) -> SearchOutput:
        """Rank methods and snippets; an unknown ``connector`` raises ``ValueError`` naming the configured ones."""
        problem = unknown_connector(catalog, connector) if connector is not None else None
        if problem:
            raise ValueError(problem)
        if not any(ch.isalnum() for ch in str(query)):
            # No word to rank by: nothing, whether or not the semantic vectors are ready (review 15x, M9).
            return SearchOutput([], 0, False)
        by_name = {s.name: s for s in snippets}
        keys = index_keys(catalog, by_name)
        index = next((built for built_keys, built in self._indexes if built_keys == keys), None)
        if index is None:
            index = build_index(catalog, by_name)
            if self._semantic == "default":
                self._semantic = default_embedder()
            if self._semantic is not None:
                index.semantic = self._semantic.signal(index.docs)
        self._indexes = [(keys, index), *((k, i) for k, i in self._indexes if i is not index)][:_KEPT_INDEXES]
        return search_output(index, catalog, by_name, query, limit=clamp_limit(limit), connector=connector)

    def describe(self, catalog: Catalog, target: str, *, snippet: Callable[[str], SavedSnippet | None],
                 snippets: Callable[[], Sequence[SnippetLike]], page: Any = 1, full: Any = False) -> DescribeOutput:
        """Declarations for a connector, a method (or one of its arguments), a snippet or a bare method name."""

        def described(name: str) -> DescribeOutput | None:
            row = snippet(name)
            if row is None:
                return None
            return describe_snippet(row.name, row.description, row.code,
                                    json.loads(row.input_schema) if row.input_schema else None, list(row.connectors),
                                    snippet_approvals(row.code, catalog))

        def rank(words: str) -> list[str]:
            return [r.path for r in self.search(catalog, snippets(), words, limit=3).results if r.kind == "method"]

        return describe_target(catalog, str(target), snippet=described, rank=rank,
                               page=page if isinstance(page, int) and not isinstance(page, bool) else 1,
                               full=full is True)


def default_embedder() -> Embedder | None:
    """The process's semantic embedder, or None: ``CODEMODE_SEMANTIC=0``, or the extra (numpy, the model) missing."""
    if os.environ.get("CODEMODE_SEMANTIC", "").strip() == "0":
        return None
    try:
        from codemode_kernel.discovery import semantic  # the extra's numpy: imported only when it may be used
    except ImportError:
        return None
    return semantic.shared()
