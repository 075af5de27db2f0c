"""To fire off a message is to send it (issue 13, round 18).

The dictionaries give the phrasal verb "fire off" (a letter, an e-mail, a reply) as sending it quickly. Read word by
word, "fire" and "off" meet nothing of the six APIs but "off" in names like Gmail's out-of-office settings; read as
the phrase, the request says "send". Gmail's, Slack's and GitHub's own names, summaries and paths below.
"""

from __future__ import annotations

from codemode_kernel.discovery.lexicon import rewrite
from codemode_kernel.discovery.search import SearchDocument, SearchIndex


def _doc(key: str, verb: str, path: str, summary: str) -> SearchDocument:
    connector, _sep, name = key.partition(".")
    return SearchDocument(key=key, connector=connector, name=name, summary=summary, http_method=verb, http_path=path)


DOCS = [
    _doc("gmail.gmail_users_messages_send", "POST", "/gmail/v1/users/{userId}/messages/send",
         "Sends the specified message to the recipients in the `To`, `Cc`, and `Bcc` headers."),
    _doc("gmail.gmail_users_messages_get", "GET", "/gmail/v1/users/{userId}/messages/{id}",
         "Gets the specified message."),
    _doc("gmail.gmail_users_settings_updateVacation", "PUT", "/gmail/v1/users/{userId}/settings/vacation",
         "Updates vacation responder settings."),
    _doc("slack.chat_postMessage", "POST", "/chat.postMessage", "Sends a message to a channel."),
    _doc("github.repos_create_dispatch_event", "POST", "/repos/{owner}/{repo}/dispatches",
         "Create a repository dispatch event"),
]


def test_fire_off_is_read_as_send() -> None:
    assert rewrite(["fire", "off", "a", "quick", "message"]) == ["send", "a", "quick", "message"]
    assert rewrite(["the", "alert", "fires", "when", "we", "pass"]) == ["the", "alert", "fires", "when", "we", "pass"]


def test_firing_off_a_message_finds_a_send() -> None:
    ranked = [key for key, _score in SearchIndex(DOCS).rank("fire off a quick message to the team", limit=10)[0]]
    assert ranked[0] in ("gmail.gmail_users_messages_send", "slack.chat_postMessage")
    assert ranked.index("gmail.gmail_users_messages_send") < ranked.index("gmail.gmail_users_messages_get")
