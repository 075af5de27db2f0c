"""A word its context marks as a noun brings its noun relatives, not its verb ones (issue 13, round 11)."""

from __future__ import annotations

import pytest

from codemode_kernel.discovery import search
from codemode_kernel.discovery.lexicon import RELATED, VERB_GROUPS, expand
from codemode_kernel.discovery.roles import NOUN, VERB, word_roles
from codemode_kernel.discovery.search import SearchDocument, SearchIndex
from codemode_kernel.discovery.text import STOP, stem, words

_USER = "/gmail/v1/users/{userId}"
_REPO = "/repos/{owner}/{repo}"

# Slack's, Gmail's and GitHub's own names and summaries, beside a payments API's lists (so that the chat and mail words
# are rare, as in a real catalog).
CATALOG = [
    SearchDocument(key="slack.chat_postMessage", connector="slack", name="chat_postMessage",
                   summary="Sends a message to a channel.", http_method="POST", http_path="/chat.postMessage"),
    SearchDocument(key="slack.chat_delete", connector="slack", name="chat_delete", summary="Deletes a message.",
                   http_method="POST", http_path="/chat.delete"),
    SearchDocument(key="slack.stars_add", connector="slack", name="stars_add",
                   summary="Save an item for later. Formerly known as adding a star.", http_method="POST",
                   http_path="/stars.add"),
    SearchDocument(key="slack.reactions_add", connector="slack", name="reactions_add",
                   summary="Adds a reaction to an item.", http_method="POST", http_path="/reactions.add"),
    SearchDocument(key="gmail.gmail_users_messages_send", connector="gmail", name="gmail_users_messages_send",
                   summary="Sends the specified message to the recipients in the To, Cc, and Bcc headers.",
                   http_method="POST", http_path=f"{_USER}/messages/send"),
    SearchDocument(key="gmail.gmail_users_messages_modify", connector="gmail", name="gmail_users_messages_modify",
                   summary="Modifies the labels on the specified message.", http_method="POST",
                   http_path=f"{_USER}/messages/{{id}}/modify"),
    SearchDocument(key="gmail.gmail_users_messages_list", connector="gmail", name="gmail_users_messages_list",
                   summary="Lists the messages in the user's mailbox.", http_method="GET",
                   http_path=f"{_USER}/messages"),
    SearchDocument(key="github.checks_create", connector="github", name="checks_create", summary="Create a check run",
                   http_method="POST", http_path=f"{_REPO}/check-runs"),
    SearchDocument(key="github.actions_list_workflow_runs", connector="github", name="actions_list_workflow_runs",
                   summary="List workflow runs for a workflow", http_method="GET",
                   http_path=f"{_REPO}/actions/workflows/{{workflow_id}}/runs"),
    SearchDocument(key="github.repos_get_pages_build", connector="github", name="repos_get_pages_build",
                   summary="Get GitHub Pages build", http_method="GET", http_path=f"{_REPO}/pages/builds/{{build_id}}"),
    *(SearchDocument(key=f"stripe.Get{kind}", connector="stripe", name=f"Get{kind}",
                     summary=f"Returns a list of your {kind.lower()}.", http_method="GET",
                     http_path=f"/v1/{kind.lower()}")
      for kind in ("Coupons", "Payouts", "Disputes", "Refunds", "Products", "Invoices", "Customers", "Charges",
                   "Prices", "Plans", "Quotes", "Files", "Events", "Topups", "Transfers", "Reviews")),
]


# The same with a commit's checks and statuses and a channel's history.
WITH_CHECKS = [
    *CATALOG,
    SearchDocument(key="github.repos_get_combined_status_for_ref", connector="github",
                   name="repos_get_combined_status_for_ref", summary="Get the combined status for a specific reference",
                   http_method="GET", http_path=f"{_REPO}/commits/{{ref}}/status"),
    SearchDocument(key="github.checks_list_for_ref", connector="github", name="checks_list_for_ref",
                   summary="List check runs for a Git reference", http_method="GET",
                   http_path=f"{_REPO}/commits/{{ref}}/check-runs"),
    SearchDocument(key="slack.conversations_history", connector="slack", name="conversations_history",
                   summary="Fetches a conversation's history of messages and events.", http_method="GET",
                   http_path="/conversations.history"),
]


def _roles(request: str) -> dict[str, str]:
    tokens = words(request)
    return {w: r for w, r in zip(tokens, word_roles(tokens, STOP), strict=True) if r}


@pytest.mark.parametrize(("request_", "word", "role"), [
    ("star an important message", "message", NOUN),  # after a determiner and an adjective
    ("star an important message", "important", NOUN),
    ("read my unread mail", "mail", NOUN),  # after a possessive
    ("archive the last 5 texts", "texts", NOUN),  # after a number
    ("forward everything from support", "support", NOUN),  # after a preposition
    ("which channels am I in", "channels", NOUN),  # after an interrogative determiner
    ("message the team", "message", VERB),  # first in an imperative
    ("mail the report to finance", "mail", VERB),
    ("text Bob", "text", VERB),
    ("I want to email the team", "email", VERB),  # after an infinitive's "to"
])
def test_a_word_s_part_of_speech_is_read_from_its_context(request_: str, word: str, role: str) -> None:
    assert _roles(request_).get(word) == role


def test_to_before_a_noun_phrase_marks_no_verb() -> None:
    """'to the team': "to" is a preposition there, and "team" a noun; "forward" is the imperative's verb."""
    assert _roles("forward it to the team") == {"forward": VERB, "team": NOUN}


def test_a_noun_brings_its_noun_relatives_and_not_its_verb_ones() -> None:
    """'message' stands for mail, email and sms as a noun, and for send, deliver and dispatch as a verb (the lexicon's
    group "send deliver post dispatch mail email text notify message")."""
    as_noun = {t for t, _w, _src in expand([stem("message")], nouns={0})}
    as_verb = {t for t, _w, _src in expand([stem("message")])}
    assert {stem(w) for w in ("mail", "email", "sms")} <= as_noun
    assert as_noun.isdisjoint(stem(w) for w in ("send", "deliver", "dispatch"))
    assert {stem(w) for w in ("send", "deliver", "dispatch", "mail")} <= as_verb


def test_a_verb_group_s_own_nouns_keep_its_verb() -> None:
    """'the details of a charge' asks for its get: "detail" is a noun of the get group ("get fetch ... detail info"),
    and as a noun it still brings the get (else "which certificate details ..., id abc" found the list)."""
    assert stem("get") in {t for t, _w, _src in expand([stem("details")], nouns={0})}


def test_every_verb_group_names_a_group_of_the_lexicon() -> None:
    """A misspelt head would leave its group read as a noun group without a word of warning."""
    heads = {line.split()[0] for line in RELATED.strip().splitlines() if line.strip()}
    assert heads >= VERB_GROUPS


NOUN_REQUESTS = [
    ("star an important message", "slack.stars_add"),
    ("bookmark an important message", "slack.stars_add"),
    ("save this message for later", "slack.stars_add"),
    ("archive the last 5 texts", "gmail.gmail_users_messages_modify"),
    ("archive my unread mail", "gmail.gmail_users_messages_modify"),
]


@pytest.mark.parametrize(("request_", "expected"), NOUN_REQUESTS)
def test_a_noun_spelled_like_a_verb_does_not_bring_the_send(request_: str, expected: str) -> None:
    """'message' and 'texts' are nouns here: the request is about a message, not a sending of one, so the send methods
    (whose words fit through the verb group "send ... message") no longer come first."""
    ranked = SearchIndex(CATALOG).rank(request_, limit=1)[0]
    assert ranked[0][0] == expected


def test_the_noun_reading_is_what_finds_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the noun reading, Slack's send is first for each request above (the specs fail without the signal)."""
    monkeypatch.setattr(search, "NOUN_ROLES", False)
    index = SearchIndex(CATALOG)
    assert [index.rank(request, limit=1)[0][0][0] for request, _expected in NOUN_REQUESTS] == [
        "slack.chat_postMessage"] * len(NOUN_REQUESTS)


def test_a_noun_s_relative_spelled_as_an_action_verb_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The glossary's "chat message post say tell" gives the noun 'message' the word "post", a create in the action
    table and the verb of chat_postMessage's name: for a noun it is left out (NOUN_NOT_ACTION), else the send is
    first for 'bookmark an important message'."""
    monkeypatch.setattr(search, "NOUN_NOT_ACTION", False)
    ranked = SearchIndex(CATALOG).rank("bookmark an important message", limit=1)[0]
    assert ranked[0][0] == "slack.chat_postMessage"


def test_a_verb_first_in_an_imperative_still_brings_the_send() -> None:
    ranked = SearchIndex(CATALOG).rank("message the team", limit=1)[0]
    assert ranked[0][0] == "slack.chat_postMessage"


def test_a_request_that_says_no_action_keeps_a_noun_s_verb_senses() -> None:
    """'the build passed for this commit' has no verb of the action table and no mood: "build"'s verb sense (the
    create group's "build") is all it says of what to do, and the check run's create stays first."""
    ranked = SearchIndex(CATALOG).rank("the build passed for this commit", limit=2)[0]
    assert [key for key, _score in ranked] == ["github.checks_create", "github.actions_list_workflow_runs"]


def test_a_question_s_noun_brings_no_verb_sense() -> None:
    """'what checks': "checks" is a noun (the interrogative determiner before it), whose relatives are a commit's
    status, not the verb group "get fetch read ... check look" that finds Slack's history ("Fetches ...")."""
    ranked = SearchIndex(WITH_CHECKS).rank("what checks failed on this commit", limit=2)[0]
    assert [key for key, _score in ranked] == ["github.checks_list_for_ref",
                                               "github.repos_get_combined_status_for_ref"]
