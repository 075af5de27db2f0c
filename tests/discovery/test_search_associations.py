"""Learned word associations widen a query below its own words, and only when given (issue 13, round 2)."""

from __future__ import annotations

from collections.abc import Sequence

from codemode_kernel.discovery.search import SearchDocument, SearchIndex

# A made-up payroll API: nothing in the lexicon connects "paycheck" to "salary".
DOCS = [
    SearchDocument(key="payroll.list_salaries", connector="payroll", name="list_salaries",
                   summary="List the salaries of employees."),
    SearchDocument(key="payroll.list_holidays", connector="payroll", name="list_holidays",
                   summary="List public holidays."),
    *(SearchDocument(key=f"payroll.other_{i}", connector="payroll", name=f"other_{i}", summary="Other record.")
      for i in range(20)),
]
PAYCHECK = {"paycheck": (("salary", 1.0),)}


def table(word: str) -> Sequence[tuple[str, float]]:
    return PAYCHECK.get(word, ())


def test_an_association_connects_a_request_that_shares_no_word_with_the_method() -> None:
    """'show my paychecks' finds list_salaries only through the association paycheck -> salary."""
    without, _ = SearchIndex(DOCS).rank("show my paychecks", limit=5)
    with_table, _ = SearchIndex(DOCS, associations=table).rank("show my paychecks", limit=5)
    assert "payroll.list_salaries" not in [k for k, _ in without]
    assert with_table[0][0] == "payroll.list_salaries"


def test_an_associated_word_never_outranks_the_word_itself() -> None:
    """A method naming the request's own word ranks above one reached through its strongest association."""
    docs = [*DOCS, SearchDocument(key="payroll.list_paychecks", connector="payroll", name="list_paychecks",
                                  summary="List the paychecks of employees.")]
    ranked, _ = SearchIndex(docs, associations=table).rank("list paychecks", limit=5)
    keys = [k for k, _ in ranked]
    assert keys[:2] == ["payroll.list_paychecks", "payroll.list_salaries"]
    assert ranked[0][1] > ranked[1][1]


def test_without_a_table_the_ranker_expands_only_by_its_lexicon() -> None:
    """The default index uses no learned table: the same request and documents rank as before."""
    plain, _ = SearchIndex(DOCS).rank("list salaries", limit=3)
    off, _ = SearchIndex(DOCS, associations=table, learned_weight=0.0).rank("list salaries", limit=3)
    assert plain == off
    assert plain[0][0] == "payroll.list_salaries"
