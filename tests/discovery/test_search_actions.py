"""The action a request asks for, read from its verbs (issue 13, round 8)."""

from __future__ import annotations

import pytest

from codemode_kernel.discovery.search import SearchDocument, SearchIndex, query_action, request_mood
from codemode_kernel.discovery.text import stems


def _doc(name: str, summary: str, verb: str, path: str) -> SearchDocument:
    return SearchDocument(key=f"s.{name}", connector="s", name=name, summary=summary, http_method=verb,
                          http_path=path)


# Stripe's own names, summaries and parameters (abridged): the create takes cancel_at, the cancel says "cancels".
SUBSCRIPTIONS = [
    SearchDocument(key="s.PostSubscriptions", connector="s", name="PostSubscriptions",
                   summary="Creates a new subscription on an existing customer. Each customer can have up to 500 "
                           "active or scheduled subscriptions.",
                   body="When you create a subscription with collection_method=charge_automatically, the first "
                        "invoice is finalized as part of the request.",
                   http_method="POST", http_path="/v1/subscriptions",
                   params=("add_invoice_items", "billing_cycle_anchor", "cancel_at", "cancel_at_period_end",
                           "collection_method", "customer", "items"),
                   returns="subscription Subscription Subscriptions allow you to charge a customer on a recurring "
                           "basis."),
    SearchDocument(key="s.DeleteSubscriptionsSubscriptionExposedId", connector="s",
                   name="DeleteSubscriptionsSubscriptionExposedId",
                   summary="Cancels a customer's subscription immediately. The customer will not be charged again "
                           "for the subscription.",
                   body="Note, however, that any pending invoice items that you've created will still be charged for "
                        "at the end of the period, unless manually deleted.",
                   http_method="DELETE", http_path="/v1/subscriptions/{subscription_exposed_id}",
                   params=("subscription_exposed_id", "cancellation_details", "expand", "invoice_now", "prorate"),
                   returns="subscription Subscription Subscriptions allow you to charge a customer on a recurring "
                           "basis."),
    *(_doc(f"Get{kind}", f"Returns a list of your {kind.lower()}.", "GET", f"/v1/{kind.lower()}")
      for kind in ("Coupons", "Payouts", "Disputes", "Refunds", "Products", "Invoices", "Customers", "Charges")),
]


@pytest.mark.parametrize("verb", ["stop", "halt", "cancel", "terminate", "abort", "kill"])
def test_a_verb_that_ends_something_asks_for_a_delete(verb: str) -> None:
    """'stop', 'halt', 'cancel' … end a thing: a delete, not an unknown verb read as a write."""
    assert query_action(stems(f"{verb} my subscription")) == "delete"
    assert request_mood(f"{verb} my subscription") == ""


def test_stopping_a_subscription_finds_its_cancellation_not_its_creation() -> None:
    """'stop my subscription' is the DELETE that cancels it, not the create (which was read as the write asked for)."""
    ranked = SearchIndex(SUBSCRIPTIONS).rank("stop my subscription", limit=2)[0]
    assert [key for key, _score in ranked] == ["s.DeleteSubscriptionsSubscriptionExposedId", "s.PostSubscriptions"]


@pytest.mark.parametrize("request_text", ["am I following torvalds?", "do I follow torvalds?",
                                          "does torvalds follow me?"])
def test_am_do_and_does_open_a_question(request_text: str) -> None:
    """A request that opens with 'am', 'do' or 'does' asks to be told something, like one opening with 'is'."""
    assert request_mood(request_text) == "read"


def test_a_question_about_following_someone_is_the_check_not_the_follow() -> None:
    """'am I following torvalds?' reads whether the user follows them; it does not follow them."""
    docs = [SearchDocument(key="s.users_follow", connector="s", name="users_follow", summary="Follow a user",
                           body="Following a user makes their activity show in your feed.", http_method="PUT",
                           http_path="/user/following/{username}"),
            _doc("users_check_person_is_followed_by_authenticated",
                 "Check if a person is followed by the authenticated user", "GET", "/user/following/{username}"),
            *(_doc(f"list_{kind}", f"List {kind}", "GET", f"/{kind}") for kind in ("gists", "emojis", "events"))]
    assert SearchIndex(docs).rank("am I following torvalds?", limit=1)[0][0][0] == \
        "s.users_check_person_is_followed_by_authenticated"


@pytest.mark.parametrize("verb", ["pause", "resume", "suspend"])
def test_a_verb_that_changes_the_state_of_something_ongoing_asks_for_an_update(verb: str) -> None:
    """'pause the recording' changes a recording that goes on: an update, not a write read as a create."""
    assert query_action(stems(f"{verb} the recording")) == "update"


@pytest.mark.parametrize("request_text", ["what's our workspace's name?", "who's on call this week?",
                                          "where's the latest release?", "what\u2019s our workspace's name?"])
def test_a_question_word_before_a_contraction_opens_a_question(request_text: str) -> None:
    """'what's our …' asks to be told something: read as 'what is', not as an unknown verb 'what's' before its
    object 'our …' (a write)."""
    assert request_mood(request_text) == "read"


def test_a_contracted_question_finds_the_read_not_the_write() -> None:
    """'what's our workspace's name?' reads the workspace's information; the admin's setName changes it."""
    docs = [_doc("team_info", "Gets information about the workspace: its name, domain and icon.", "GET",
                 "/team.info"),
            _doc("admin_teams_settings_setName", "Set the name of a given workspace.", "POST",
                 "/admin.teams.settings.setName")]
    ranked = SearchIndex(docs).rank("what's our workspace's name?", limit=2)[0]
    assert ranked[0][0] == "s.team_info"


@pytest.mark.parametrize(("verb", "action"), [("connect", "create"), ("link", "create"), ("revoke", "delete"),
                                              ("disconnect", "delete"), ("detach", "delete"), ("unlink", "delete")])
def test_a_verb_that_makes_or_undoes_a_link_has_its_action(verb: str, action: str) -> None:
    """'connect' and 'link' make a link (a create); 'revoke', 'disconnect', 'detach', 'unlink' end a link or a grant
    (a delete), in the request and in a name."""
    assert query_action(stems(f"{verb} the shared channel")) == action
    doc = _doc(f"admin_conversations_{verb}Shared", "A shared channel.", "POST", f"/admin.conversations.{verb}")
    assert SearchIndex([doc]).actions == [action]


def test_stopping_a_share_finds_the_disconnect_not_its_opposite() -> None:
    """'stop sharing the channel': of two POSTs with the same text, the one whose name says disconnect (read as a
    create by its HTTP method before, like its opposite, which sorts first)."""
    docs = [_doc(f"admin_conversations_{verb}Shared", "A channel shared with other workspaces.", "POST",
                 f"/admin.conversations.{verb}Shared") for verb in ("connect", "disconnect")]
    ranked = SearchIndex(docs).rank("stop sharing the channel", limit=1)[0]
    assert ranked[0][0] == "s.admin_conversations_disconnectShared"
