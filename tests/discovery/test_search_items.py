"""An item or its collection: what the request's verb and the identifiers it gives say (issue 13, round 8)."""

from __future__ import annotations

from codemode_kernel.discovery.search import SearchDocument, SearchIndex


def _doc(name: str, summary: str, verb: str, path: str, body: str = "") -> SearchDocument:
    return SearchDocument(key=f"s.{name}", connector="s", name=name, summary=summary, body=body,
                          http_method=verb, http_path=path)


# Stripe names each method after its HTTP method: PostPlansPlan reads as a create like PostPlans. The
# update's text says more of what a request for a new plan says ("monthly", "billing").
PLANS = [
    _doc("PostPlans", "Creates a plan.", "POST", "/v1/plans",
         "Plans define the base price, currency, and interval for recurring purchases of products."),
    _doc("PostPlansPlan", "Updates the specified plan by setting the values of the parameters passed.", "POST",
         "/v1/plans/{plan}", "A plan's monthly billing amount or interval cannot be changed; its nickname can."),
    *(_doc(f"Get{kind}", f"Returns a list of your {kind.lower()}.", "GET", f"/v1/{kind.lower()}")
      for kind in ("Coupons", "Payouts", "Disputes", "Refunds", "Products")),
]


def _order(query: str) -> list[str]:
    return [key for key, _score in SearchIndex(PLANS).rank(query, limit=2)[0]]


def test_a_request_to_create_that_names_no_item_wants_the_collection_s_method() -> None:
    """'add a monthly billing plan' names no plan: the POST on the collection beats the one on {plan}."""
    assert _order("add a monthly billing plan") == ["s.PostPlans", "s.PostPlansPlan"]


def test_a_create_that_names_an_item_is_left_to_the_identifier() -> None:
    """'add a note to plan_123' and 'add metadata to plan 42' name an existing plan: its method is not lowered."""
    assert _order("add a note to plan_123")[0] == "s.PostPlansPlan"
    assert _order("add metadata to plan 42")[0] == "s.PostPlansPlan"


# GitHub's variables of an organization: a new one, and the repositories an existing one is shared with.
VARIABLES = [
    _doc("actions_create_org_variable", "Create an organization variable", "POST", "/orgs/{org}/actions/variables",
         "Creates an organization variable that you can reference in a GitHub Actions workflow; it can be limited "
         "to the repositories you choose."),
    _doc("actions_set_selected_repos_for_org_variable", "Set selected repositories for an organization variable",
         "PUT", "/orgs/{org}/actions/variables/{name}/repositories"),
    *(_doc(f"actions_list_{kind}", f"List {kind}", "GET", f"/orgs/{{org}}/actions/{kind}")
      for kind in ("runners", "secrets", "caches")),
]


def test_a_name_spelled_as_a_constant_after_its_noun_names_an_item() -> None:
    """'variable MODEL_NAME' is an existing variable: what is done to its repositories, not a new variable."""
    ranked = SearchIndex(VARIABLES).rank("limit the org variable MODEL_NAME to the api and web repositories", limit=2)
    assert [key for key, _score in ranked[0]] == ["s.actions_set_selected_repos_for_org_variable",
                                                  "s.actions_create_org_variable"]



# Gmail's S/MIME configurations of a send-as alias: the list, and one by its id. The list's text says more.
SMIME = [
    _doc("smimeInfo_list", "Lists S/MIME configs for the specified send-as alias.", "GET",
         "/gmail/v1/users/{userId}/settings/sendAs/{sendAsEmail}/smimeInfo",
         "Each config holds the certificate details used to sign and encrypt mail."),
    _doc("smimeInfo_get", "Gets the specified S/MIME config for the specified send-as alias.", "GET",
         "/gmail/v1/users/{userId}/settings/sendAs/{sendAsEmail}/smimeInfo/{id}"),
    *(_doc(f"{kind}_list", f"Lists the {kind} in the user's mailbox.", "GET", f"/gmail/v1/users/{{userId}}/{kind}")
      for kind in ("labels", "threads", "drafts")),
]


def test_an_id_after_no_resource_still_names_one_item() -> None:
    """'…, id abc' names one configuration: the method on one item beats the list, whose text fits the words better."""
    ranked = SearchIndex(SMIME).rank("which certificate details do I sign with, id abc?", limit=2)[0]
    assert [key for key, _score in ranked] == ["s.smimeInfo_get", "s.smimeInfo_list"]


def test_the_word_id_followed_by_a_stop_word_names_nothing() -> None:
    """'the id of …' asks about ids, it gives none: the list keeps its place."""
    ranked = SearchIndex(SMIME).rank("which certificate details do I sign with, and the id of each?", limit=1)[0]
    assert ranked[0][0] == "s.smimeInfo_list"
