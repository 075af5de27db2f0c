"""The ranker's walk over raw scores ends only when no later method can still enter the results (issue 13, round 16).

``SearchIndex.rank`` walks methods by raw score, best first, and stops once a raw score times the most the
reordering can multiply it by (the ceiling) is below the worst score kept. The ceiling took the action's
factor as ACTION_MATCH (1.3), but a question multiplies a read by READ_MOOD (2.25): a read whose raw score
was well below the writes' could be left unvisited by a search for one result and ranked first by a search
for many. Here 60 writes hold both of the request's words and one read holds only "widgets", by name.
"""

from __future__ import annotations

from codemode_kernel.discovery.search import SearchDocument, SearchIndex


def _catalog() -> SearchIndex:
    writes = [SearchDocument(key=f"shop.w{k:02d}", connector="shop", name="widgets", summary="Widgets in the depot.",
                             http_method="POST", http_path=f"/widgets{k}") for k in range(60)]
    read = SearchDocument(key="shop.stock", connector="shop", name="widgets", http_method="GET", http_path="/stock")
    others = [SearchDocument(key=f"other.thing_{k}", connector="other", name=f"thing_{k}",
                             summary="Nothing related." + (" A depot." if k < 30 else ""),
                             http_method="GET", http_path=f"/things/{k}") for k in range(40)]
    return SearchIndex([*writes, read, *others])


def test_a_question_finds_the_read_that_its_mood_puts_first_whatever_the_limit() -> None:
    index = _catalog()
    query = "what widgets are in the depot?"
    many, _ = index.rank(query, limit=500)
    assert many[0][0] == "shop.stock"
    one, _ = index.rank(query, limit=1)
    assert one == many[:1]  # fails with ACTION_MATCH as the ceiling's action factor: shop.w00 first
    five, _ = index.rank(query, limit=5)
    assert five == many[:5]


def test_a_request_that_says_no_action_ranks_as_with_a_wider_walk() -> None:
    index = _catalog()
    for query in ("widgets in the depot", "depot widgets", "widgets"):
        many, _ = index.rank(query, limit=500)
        one, _ = index.rank(query, limit=1)
        assert one == many[:1], query
