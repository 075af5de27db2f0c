"""Associations learned from the catalog's own text reorder the best results (issue 13, round 14).

A request word few methods hold ("bookkeeping") is read beside the catalog words it shares methods with
("journal"): of two methods the request's other words fit equally, the one holding that word ranks first.
"""

from __future__ import annotations

from codemode_kernel.discovery.cooccurrence import MAX_HOLDERS
from codemode_kernel.discovery.search import SearchDocument, SearchIndex
from codemode_kernel.discovery.text import stem

# A made-up ledger API: nothing in the lexicon connects "bookkeeping" to "journal"; only two methods of
# the catalog say both. list_lines_a sorts before list_lines_b, so a tie would go to it.
LEDGER = [
    SearchDocument(key="ledger.list_lines_b", connector="ledger", name="list_lines_b",
                   summary="List journal lines."),
    SearchDocument(key="ledger.list_lines_a", connector="ledger", name="list_lines_a", summary="List memo lines."),
    SearchDocument(key="ledger.export_journal", connector="ledger", name="export_journal",
                   summary="Export a journal.", body="Used for bookkeeping."),
    SearchDocument(key="ledger.close_journal", connector="ledger", name="close_journal",
                   summary="Close a journal.", body="Ends the bookkeeping period."),
    SearchDocument(key="ledger.journal_settings", connector="ledger", name="journal_settings",
                   summary="Journal settings."),
    *(SearchDocument(key=f"ledger.other_{i}", connector="ledger", name=f"other_{i}", summary="Other record.")
      for i in range(MAX_HOLDERS + 5)),
]


def keys(index: SearchIndex, query: str) -> list[str]:
    return [k for k, _ in index.rank(query, limit=10)[0]]


def test_a_method_holding_what_a_rare_request_word_co_occurs_with_ranks_above_its_equal() -> None:
    """'list bookkeeping lines': list_lines_b (journal lines) ranks above list_lines_a (memo lines)."""
    ranked = keys(SearchIndex(LEDGER), "list bookkeeping lines")
    assert ranked.index("ledger.list_lines_b") < ranked.index("ledger.list_lines_a")


def test_an_association_reorders_only_what_the_request_s_own_words_found() -> None:
    """A method that holds the associated word but none of the request's is not among the results."""
    assert "ledger.journal_settings" not in keys(SearchIndex(LEDGER), "list bookkeeping lines")


def test_the_table_pairs_a_rare_word_with_the_commoner_word_it_shares_methods_with() -> None:
    """'bookkeeping' (two methods) stands beside 'journal' (four methods, both of its own among them)."""
    learned = SearchIndex(LEDGER).learned(stem("bookkeeping"))
    assert learned[0] == (stem("journal"), 1.0)


def test_a_word_no_method_holds_or_every_method_holds_has_no_association() -> None:
    """Nothing is learned of a word the catalog lacks, nor of one more than MAX_HOLDERS methods hold."""
    index = SearchIndex(LEDGER)
    assert index.learned(stem("paycheck")) == ()
    assert index.learned(stem("other")) == ()


def test_an_empty_catalog_builds_and_finds_nothing() -> None:
    """An index over no method answers any request with no result."""
    index = SearchIndex([])
    assert index.rank("list bookkeeping lines") == ([], 0)
    assert index.learned(stem("journal")) == ()


def test_a_one_method_catalog_builds_and_finds_its_method() -> None:
    """An index over one method finds it, and learns nothing from it (no word is commoner than another)."""
    index = SearchIndex(LEDGER[:1])
    assert keys(index, "list journal lines") == ["ledger.list_lines_b"]
    assert index.learned(stem("journal")) == ()
