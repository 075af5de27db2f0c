"""Identifiers a request quotes ("CF123", "pm_123") name their resource (issue 13, round 6)."""

from __future__ import annotations

from codemode_kernel.discovery.identifiers import IdReader, pair_resources, path_resources, pattern_prefixes, taken_ids
from codemode_kernel.discovery.search import SearchDocument, SearchIndex


def _doc(connector: str, name: str, summary: str, path: str, sids: tuple[tuple[str, str], ...] = ()) -> SearchDocument:
    verb = "GET" if name.startswith(("Fetch", "Get", "List")) else "POST"
    return SearchDocument(key=f"{connector}.{name}", connector=connector, name=name, summary=summary,
                          http_method=verb, http_path=path, id_prefixes=sids)


TELEPHONY = [
    _doc("phone", "FetchConference", "Fetch an instance of a conference",
         "/Accounts/{AccountSid}/Conferences/{Sid}.json", (("AC", "account"), ("CF", "conferences"))),
    _doc("phone", "FetchCall", "Fetch the call specified by the provided Call SID",
         "/Accounts/{AccountSid}/Calls/{Sid}.json", (("AC", "account"), ("CA", "calls"))),
    _doc("phone", "FetchQueue", "Fetch an instance of a queue identified by the QueueSid",
         "/Accounts/{AccountSid}/Queues/{Sid}.json", (("AC", "account"), ("QU", "queues"))),
    _doc("phone", "FetchMessage", "Fetch a message belonging to the account used to make the request",
         "/Accounts/{AccountSid}/Messages/{Sid}.json", (("AC", "account"), ("SM", "message"), ("MM", "message"))),
]

PAYMENTS = [
    _doc("pay", "GetPaymentMethodsPaymentMethod", "Retrieves a PaymentMethod object.",
         "/v1/payment_methods/{payment_method}"),
    _doc("pay", "PostPaymentMethodsPaymentMethodAttach", "Attaches a PaymentMethod object to a Customer.",
         "/v1/payment_methods/{payment_method}/attach"),
    _doc("pay", "GetIssuingCardsCard", "Retrieves an Issuing Card object.", "/v1/issuing/cards/{card}"),
    _doc("pay", "GetCustomersCustomerCardsId", "You can always see the 10 most recent cards directly on a customer.",
         "/v1/customers/{customer}/cards/{id}"),
    _doc("pay", "GetCustomersCustomer", "Retrieves a Customer object.", "/v1/customers/{customer}"),
    _doc("pay", "GetInvoicesInvoice", "Retrieves the invoice with the given ID.", "/v1/invoices/{invoice}"),
    _doc("pay", "GetPaymentIntentsIntent", "Retrieves the details of a PaymentIntent.", "/v1/payment_intents/{intent}"),
    _doc("pay", "GetSetupIntentsIntent", "Retrieves the details of a SetupIntent.", "/v1/setup_intents/{intent}"),
    _doc("pay", "GetAccountsAccount", "Retrieves the details of an account.", "/v1/accounts/{account}"),
    _doc("code", "orgs_get_public_member", "Check public organization membership for a user",
         "/orgs/{org}/public_members/{username}"),
]


def _first(docs: list[SearchDocument], query: str) -> str:
    return SearchIndex(docs).rank(query, limit=1)[0][0][0]


def test_a_pattern_fixes_the_prefix_of_an_identifier_and_names_its_resource() -> None:
    """A parameter's pattern (Twilio's SIDs) gives the prefix; its name without "Sid", or the path before a bare
    Sid, the resource."""
    props = {
        "AccountSid": {"type": "string", "pattern": "^AC[0-9a-fA-F]{32}$"},
        "Sid": {"type": "string", "pattern": "^(SM|MM)[0-9a-fA-F]{32}$"},
        "ConferenceSid": {"type": "string", "pattern": "^CF[0-9a-fA-F]{32}$"},
        "Body": {"type": "string"},
        "Version": {"type": "string", "pattern": r"^\d+\.\d+$"},
    }
    found = pattern_prefixes(props, "/Accounts/{AccountSid}/Usage/Messages/{Sid}.json")
    assert found == [("AC", "account"), ("SM", "usage messages"), ("MM", "usage messages"), ("CF", "conference")]


def test_the_resources_of_a_path_are_the_literal_segments_before_each_parameter() -> None:
    assert path_resources("/v1/test_helpers/issuing/cards/{card}/shipping/deliver") == [
        "test helpers issuing cards", "helpers issuing cards", "issuing cards", "cards"]
    assert path_resources("/2010-04-01/Accounts/{AccountSid}/AuthorizedConnectApps/{ConnectAppSid}.json") == [
        "accounts", "authorized connect apps", "connect apps", "apps"]


def test_a_quoted_sid_finds_the_method_of_its_resource() -> None:
    """Nothing but the SID says which resource is meant: "CF123" is a conference, "QU9" a queue."""
    assert _first(TELEPHONY, "is CF123 still going?") == "phone.FetchConference"
    assert _first(TELEPHONY, "show me QU9") == "phone.FetchQueue"
    assert _first(TELEPHONY, "what happened to SM1f") == "phone.FetchMessage"


def test_a_prefixed_identifier_finds_the_resource_its_prefix_abbreviates() -> None:
    """``pm_`` is the initials of payment methods, ``cus_`` spells the start of customers, ``acct_`` abbreviates
    accounts: each finds its resource's method over those that share the request's other words."""
    assert _first(PAYMENTS, "what card brand is pm_123?") == "pay.GetPaymentMethodsPaymentMethod"
    assert _first(PAYMENTS, "retrieve cus_9") == "pay.GetCustomersCustomer"
    assert _first(PAYMENTS, "retrieve acct_9") == "pay.GetAccountsAccount"


def test_the_request_s_other_words_choose_between_resources_a_prefix_fits() -> None:
    """``in`` begins both invoices and intents: beside "invoice" it is the invoice; ``pm`` fits payment methods
    and public members, and more paths identify payment methods."""
    reader = IdReader([], ["/v1/invoices/{invoice}", "/v1/payment_intents/{intent}", "/v1/setup_intents/{intent}"])
    assert reader.named("in", {"invoic"}) == (("invoices",),)
    assert reader.named("in") == (("intents",),)
    index = SearchIndex(PAYMENTS)
    assert index.ids.read("what is pm_123") == "what is payment methods"


def test_what_is_not_an_identifier_is_left_as_it_is() -> None:
    """Words, versions, and identifiers whose prefix names nothing stay as written."""
    index = SearchIndex(PAYMENTS + TELEPHONY)
    for query in ("upgrade to v1.2", "label bug_2 and NPM_TOKEN", "zz_123 and ZZ77",
                  "deploy nginx:1.27", "call CA"):
        assert index.ids.read(query) == query


def test_a_resource_the_request_already_names_is_not_said_twice() -> None:
    index = SearchIndex(TELEPHONY)
    assert index.ids.read("end conference CF123 now") == "end conference  now"


QUEUES = [
    _doc("phone", "UpdateQueue", "Update the queue with the new parameters",
         "/2010-04-01/Accounts/{AccountSid}/Queues/{Sid}.json", (("AC", "account"), ("QU", "queues"))),
    _doc("phone", "CreateQueue", "Create a queue", "/2010-04-01/Accounts/{AccountSid}/Queues.json",
         (("AC", "account"),)),
]

def test_a_method_that_takes_the_quoted_identifier_comes_first() -> None:
    """A quoted identifier names an object that exists: a change of that queue, not a new queue."""
    assert _first(QUEUES, "raise the max size of QU123 to 200") == "phone.UpdateQueue"


def _alike(first_path: str, second_path: str = "/v1/invoices/{invoice}") -> list[SearchDocument]:
    """Two methods alike in every word, of two connectors alike; the first (by key, on a tie) is at ``first_path``."""
    return [_doc("a", "retrieve_invoice", "Retrieves an invoice.", first_path),
            _doc("b", "retrieve_invoice", "Retrieves an invoice.", second_path)]


def test_of_two_methods_alike_the_one_that_takes_the_identifier_wins() -> None:
    assert _first(_alike("/v1/invoices"), "get the invoice") == "a.retrieve_invoice"
    assert _first(_alike("/v1/invoices"), "get in_123") == "b.retrieve_invoice"
    # Taken as a scope only, it still beats a method that does not take it.
    scoped = _alike("/v1/invoices", "/v1/invoices/{invoice}/lines/{line}")
    assert _first(scoped, "get the invoice") == "a.retrieve_invoice"
    assert _first(scoped, "get in_123") == "b.retrieve_invoice"


def test_of_two_methods_that_take_it_the_one_whose_item_it_is_wins() -> None:
    """``/v1/invoices/{invoice}/lines/{line}`` takes the invoice as a scope; ``/v1/billing/invoices/{invoice}`` is it
    (paths of as many words)."""
    alike = _alike("/v1/invoices/{invoice}/lines/{line}", "/v1/billing/invoices/{invoice}")
    assert _first(alike, "get the invoice") == "a.retrieve_invoice"
    assert _first(alike, "get in_123") == "b.retrieve_invoice"


def test_the_resources_a_path_takes_are_read_in_order() -> None:
    assert taken_ids("/Accounts/{AccountSid}/Conferences/{ConferenceSid}/Recordings/{Sid}.json") == (
        ("account",), ("conferenc",), ("recording",))
    assert taken_ids("/v1/issuing/cards/{card}/shipping/deliver") == (("issuing", "card"),)
    assert taken_ids("/v1/invoices") == ()


CODE_HOST = [
    _doc("code", "repos_list_activities", "List repository activities", "/repos/{owner}/{repo}/activity"),
    _doc("code", "activity_list_events_for_authenticated_user", "List events for the authenticated user",
         "/users/{username}/events"),
    _doc("code", "activity_list_public_events", "List public events", "/events"),
]


def test_an_owner_and_name_joined_by_a_slash_name_what_paths_take_by_two_parameters() -> None:
    """``acme/api`` is what ``/repos/{owner}/{repo}`` takes: the request is about a repository."""
    assert pair_resources("/repos/{owner}/{repo}/activity") == ["repos"]
    assert pair_resources("/users/{username}/events") == []
    assert SearchIndex(CODE_HOST).ids.read("who pushed to acme/api last week?") == "who pushed to repos last week?"
    assert _first(CODE_HOST, "recent events on acme/api") == "code.repos_list_activities"


def test_versions_paths_and_words_joined_by_a_slash_are_not_owner_and_name() -> None:
    index = SearchIndex(CODE_HOST)
    for query in ("list the kinds served by batch/v1", "networking.k8s.io/v1alpha1 kinds", "grant read and/or write",
                  "GET /repos/{owner}/{repo}", "see https://example.com/a/b"):
        assert index.ids.read(query) == query


def test_an_identifier_only_one_connector_defines_says_which_service_is_meant() -> None:
    """"MM123" is of a kind only the telephony connector's patterns define: its media, not the mail's attachments."""
    docs = [
        _doc("mail", "users_messages_attachments_get", "Gets the specified message attachment.",
             "/gmail/v1/users/{userId}/messages/{messageId}/attachments/{id}"),
        _doc("mail", "users_messages_get", "Gets the specified message.", "/gmail/v1/users/{userId}/messages/{id}"),
        _doc("phone", "ListMedia", "Retrieve a list of Media resources belonging to the account used to make the "
                                   "request", "/Accounts/{AccountSid}/Messages/{MessageSid}/Media.json",
             (("AC", "account"), ("SM", "message"), ("MM", "message"))),
        _doc("phone", "FetchMessage", "Fetch a message belonging to the account used to make the request",
             "/Accounts/{AccountSid}/Messages/{Sid}.json", (("AC", "account"), ("SM", "messages"), ("MM", "messages"))),
    ]
    assert _first(docs, "get the attachments of MM123") == "phone.ListMedia"


def test_an_email_address_names_what_a_parameter_named_for_one_identifies() -> None:
    """Only the alias methods take an address in their path ({sendAsEmail}): "settings for sales@acme.com" is the
    alias's, and the address's own words (sales, acme, com) are not read."""
    docs = [
        _doc("mail", "settings_sendAs_get", "Gets the specified send-as alias.",
             "/gmail/v1/users/{userId}/settings/sendAs/{sendAsEmail}"),
        _doc("mail", "settings_getVacation", "Gets vacation responder settings.",
             "/gmail/v1/users/{userId}/settings/vacation"),
        _doc("mail", "settings_getImap", "Gets IMAP settings.", "/gmail/v1/users/{userId}/settings/imap"),
        _doc("shop", "GetCustomersSearch", "Search for customers, by email or name, from the sales team.",
             "/v1/customers/search"),
    ]
    index = SearchIndex(docs)
    assert index.ids.parse("show the settings for sales@acme.com") == ("show the settings for  ", (("#email",),))
    assert _first(docs, "show the settings for sales@acme.com") == "mail.settings_sendAs_get"


def test_a_noun_followed_by_a_number_names_an_item_of_that_resource() -> None:
    """"hook 42", "hook number 42": the resource named just before a number (or "id"/"number" and one) is
    identified, so the method that takes that resource's item rises against the list; a number after a word no
    path takes ("the last 10 hooks") identifies nothing."""
    def doc(name: str, verb: str, path: str, summary: str) -> SearchDocument:
        return SearchDocument(key=f"code.{name}", connector="code", name=name, summary=summary, http_method=verb,
                              http_path=path)

    index = SearchIndex([
        doc("repos_list_webhooks", "GET", "/repos/{owner}/{repo}/hooks", "List the hooks of a repository"),
        doc("repos_get_webhook", "GET", "/repos/{owner}/{repo}/hooks/{hook_id}", "Get a hook of a repository"),
        doc("repos_list_commits", "GET", "/repos/{owner}/{repo}/commits", "List commits"),
    ])

    def lead(query: str) -> float:
        scores = dict(index.rank(query, limit=3)[0])
        return scores["code.repos_get_webhook"] / scores["code.repos_list_webhooks"]

    unnumbered = lead("the last 10 hooks of the repository")
    assert lead("hook 42 of the repository") > 2 * unnumbered
    assert lead("hook number 42 of the repository") > 2 * unnumbered
    assert lead("the hooks of the repository") == unnumbered


def test_a_numbered_noun_is_read_in_the_api_s_own_word() -> None:
    """"email 18c2f0": no path takes an email, but the lexicon's word for it (a message) is what the paths take, so
    the message's own method rises against the list."""
    def doc(name: str, path: str, summary: str) -> SearchDocument:
        return SearchDocument(key=f"mail.{name}", connector="mail", name=name, summary=summary, http_method="GET",
                              http_path=path)

    index = SearchIndex([
        doc("messages_list", "/users/{userId}/messages", "Lists the messages in the mailbox, with their text"),
        doc("messages_get", "/users/{userId}/messages/{id}", "Gets the specified message"),
        *(doc(f"{kind}_list", f"/users/{{userId}}/{kind}", f"Lists all {kind}")
          for kind in ("labels", "filters", "delegates", "forwardingAddresses", "identities", "keypairs")),
    ])

    def lead(query: str) -> float:
        scores = dict(index.rank(query, limit=3)[0])
        return scores["mail.messages_get"] / scores["mail.messages_list"]

    assert lead("the text of email 18c2f0") > 2 * lead("the text of the last 10 emails")


PAYMENT_METHODS = [
    SearchDocument(key="s.GetIssuingCards", connector="s", name="GetIssuingCards",
                   summary="Returns a list of Issuing Card objects.",
                   body="Each card has a brand and the last four digits of its number.",
                   http_method="GET", http_path="/v1/issuing/cards"),
    _doc("s", "GetPaymentMethodsPaymentMethod", "Retrieves a PaymentMethod object attached to the StripeAccount.",
         "/v1/payment_methods/{payment_method}"),
    _doc("s", "GetPaymentMethods", "Returns a list of PaymentMethods.", "/v1/payment_methods"),
    *(_doc("s", f"Get{kind}", f"Returns a list of your {kind.lower()}.", f"/v1/{kind.lower()}")
      for kind in ("Coupons", "Payouts", "Disputes", "Refunds")),
]


def test_a_method_that_takes_none_of_the_quoted_identifiers_ranks_below_one_that_does() -> None:
    """'what card brand … is pm_123?' asks about that payment method, though the issuing cards' text says 'card brand'
    and 'last four digits'."""
    assert _first(PAYMENT_METHODS, "what card brand and last four digits is pm_123?") == \
        "s.GetPaymentMethodsPaymentMethod"
    assert _first(PAYMENT_METHODS, "what card brand and last four digits are on file?") == "s.GetIssuingCards"
