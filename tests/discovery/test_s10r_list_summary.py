"""A name that is only "get" and its resource is a list when its summary says it returns one (issue 13, round 16).

Stripe names its methods by HTTP method and path (GetCustomers, GetCustomersCustomer): the name's "get" says
nothing of one or many, the summary does ("Returns a list of your customers.").
"""

from __future__ import annotations

from codemode_kernel.discovery.search import SearchDocument, SearchIndex, method_action


def _doc(name: str, summary: str, path: str, http_method: str = "GET") -> SearchDocument:
    return SearchDocument(key=f"shop.{name}", connector="shop", name=name, summary=summary, http_method=http_method,
                          http_path=path)


def test_a_get_name_whose_summary_returns_a_list_is_a_list() -> None:
    assert method_action(_doc("GetWidgets", "Returns a list of your widgets.", "/v1/widgets")) == "list"
    assert method_action(_doc("GetWidgetsPlain", "Lists all widgets.", "/v1/widgets/plain")) == "list"


def test_a_get_name_that_retrieves_one_stays_a_get() -> None:
    assert method_action(_doc("GetWidgetsWidget", "Retrieves a widget.", "/v1/widgets/{widget}")) == "get"
    assert method_action(_doc("GetBalance", "Retrieves the current account balance.", "/v1/balance")) == "get"


def test_only_a_name_that_is_its_http_method_reads_the_summary() -> None:
    # A name whose own verb says the action keeps it, whatever its summary says.
    assert method_action(_doc("widgets_get", "Returns a list of parts.", "/widgets/{id}")) == "get"
    assert method_action(_doc("PostWidgets", "Returns a list once created.", "/v1/widgets", "POST")) == "create"


def test_a_list_request_ranks_the_listing_get_name_first() -> None:
    index = SearchIndex([_doc("GetWidgets", "Returns a list of your widgets.", "/v1/widgets"),
                         _doc("GetWidgetsWidget", "Retrieves a widget.", "/v1/widgets/{widget}"),
                         _doc("GetGadgets", "Returns a list of gadgets.", "/v1/gadgets")])
    ranked, _ = index.rank("list widgets", limit=2)
    assert ranked[0][0] == "shop.GetWidgets"
