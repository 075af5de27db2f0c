"""Request words said side by side, held side by side by a method, rank it first (issue 13, round 15).

Of two methods whose text holds the same words, equally often and in texts of equal length, the one that
holds two words the request says next to each other next to each other too ("order items") ranks first.
"""

from __future__ import annotations

from codemode_kernel.discovery.search import SearchDocument, SearchIndex

# The same stems in both summaries (order, item, group, status), in another order; names that say nothing.
# shop.apart sorts before shop.beside, so a tie would go to it.
SHOP = [
    SearchDocument(key="shop.apart", connector="shop", name="lines_one", summary="Items grouped by order status."),
    SearchDocument(key="shop.beside", connector="shop", name="lines_two", summary="Order items grouped by status."),
    SearchDocument(key="shop.refund", connector="shop", name="refund_charge", summary="Refund a charge."),
    # The same name words, in another order; shop.labels_apart sorts first.
    SearchDocument(key="shop.labels_apart", connector="shop", name="labels_users_box_mail", summary="For a mailbox."),
    SearchDocument(key="shop.labels_beside", connector="shop", name="users_labels_mail_box", summary="For a mailbox."),
]


def keys(query: str) -> list[str]:
    return [k for k, _ in SearchIndex(SHOP).rank(query, limit=10)[0]]


def test_a_method_holding_the_request_s_adjacent_words_adjacent_ranks_above_one_holding_them_apart() -> None:
    """'order items': "Order items grouped by status" ranks above "Items grouped by order status"."""
    ranked = keys("order items")
    assert ranked.index("shop.beside") < ranked.index("shop.apart")


def test_the_pair_counts_in_either_order() -> None:
    """'mail labels': users_labels_mail_box (labels, mail) ranks above labels_users_box_mail (two words between)."""
    ranked = keys("mail labels")
    assert ranked.index("shop.labels_beside") < ranked.index("shop.labels_apart")


def test_a_stop_word_parts_two_words_of_a_method_s_text() -> None:
    """'issue comments': "Issue comments here." ranks above "Comments on an issue." (comment | issue)."""
    docs = [SearchDocument(key="t.apart", connector="t", name="one", summary="Comments on an issue."),
            SearchDocument(key="t.beside", connector="t", name="two", summary="Issue comments here."),
            SearchDocument(key="t.other", connector="t", name="three", summary="Something else.")]
    ranked = [k for k, _ in SearchIndex(docs).rank("issue comments", limit=10)[0]]
    assert ranked.index("t.beside") < ranked.index("t.apart")


def test_one_word_apart_counts_as_side_by_side() -> None:
    """'order items': "Order gift items status." (one word between) ranks above "Items gift status order."."""
    docs = [SearchDocument(key="u.far", connector="u", name="one", summary="Items gift status order."),
            SearchDocument(key="u.near", connector="u", name="two", summary="Order gift items status."),
            SearchDocument(key="u.other", connector="u", name="three", summary="Something else.")]
    ranked = [k for k, _ in SearchIndex(docs).rank("order items", limit=10)[0]]
    assert ranked.index("u.near") < ranked.index("u.far")
