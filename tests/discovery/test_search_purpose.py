"""A purpose clause says why, not what (issue 13, round 9)."""

from __future__ import annotations

import pytest

from codemode_kernel.discovery.search import SearchDocument, SearchIndex

# Slack's own names and summaries.
SLACK = [
    SearchDocument(key=f"s.{name}", connector="s", name=name, summary=summary, http_method=verb,
                   http_path=f"/{name.replace('_', '.')}")
    for name, summary, verb in (
        ("conversations_archive", "Archives a conversation.", "POST"),
        ("chat_postMessage", "Sends a message to a channel.", "POST"),
        ("chat_update", "Updates a message.", "POST"),
        ("stars_add", "Adds a star to an item.", "POST"),
        ("reactions_add", "Adds a reaction to an item.", "POST"),
        ("files_upload", "Uploads or creates a file.", "POST"),
        ("users_list", "Lists all users in a Slack team.", "GET"),
        ("conversations_history", "Fetches a conversation's history of messages and events.", "GET"),
    )
]


@pytest.mark.parametrize("query", ["archive the channel so nobody can post messages in it any more",
                                   "archive the channel so that people stop posting messages to it",
                                   "archive the channel in order to keep anyone from sending messages to it"])
def test_the_main_clause_says_what_to_do(query: str) -> None:
    """'archive the channel so nobody can post messages in it': the archive, though the words of the purpose clause
    ('post', 'messages') are all chat_postMessage's."""
    assert SearchIndex(SLACK).rank(query, limit=1)[0][0][0] == "s.conversations_archive"


@pytest.mark.parametrize(("query", "start"), [
    ("bookmark this message so I can come back to it", 2),
    ("cordon a node so nothing new is scheduled on it", 2),
    ("so I can post", 4),          # nothing before it: no main clause to prefer
    ("post a message so", 4),      # 'so' alone opens no clause
])
def test_where_a_purpose_clause_starts(query: str, start: int) -> None:
    assert SearchIndex(SLACK)._purpose_start(query, 4) == start


def test_a_request_that_is_all_purpose_clause_is_read_whole() -> None:
    """'so I can post a message' has no main clause before it: its words are what it asks for."""
    assert SearchIndex(SLACK).rank("so I can post a message", limit=1)[0][0][0] == "s.chat_postMessage"


GMAIL = [
    SearchDocument(key="g.gmail_users_settings_updateVacation", connector="g",
                   name="gmail_users_settings_updateVacation",
                   summary="Updates vacation responder settings.", http_method="PUT",
                   http_path="/gmail/v1/users/{userId}/settings/vacation",
                   returns="VacationSettings Vacation auto-reply settings for an account. These settings correspond to "
                           "the away message feature."),
    SearchDocument(key="g.gmail_users_labels_list", connector="g", name="gmail_users_labels_list",
                   summary="Lists all labels in the user's mailbox.", http_method="GET",
                   http_path="/gmail/v1/users/{userId}/labels"),
    SearchDocument(key="g.gmail_users_messages_trash", connector="g", name="gmail_users_messages_trash",
                   summary="Moves the specified message to the trash.", http_method="POST",
                   http_path="/gmail/v1/users/{userId}/messages/{id}/trash"),
]


@pytest.mark.parametrize("query", ["throw away that newsletter", "throw out the newsletter from last week"])
def test_throwing_away_is_trashing_not_being_away(query: str) -> None:
    """'throw away' (to discard) moves a message to the trash; 'away' alone is the vacation responder's word."""
    assert SearchIndex(GMAIL).rank(query, limit=1)[0][0][0] == "g.gmail_users_messages_trash"


def test_forever_is_permanently() -> None:
    """'erase it forever': the method that deletes permanently, not the one that moves it to the trash."""
    docs = [SearchDocument(key="g.gmail_users_threads_trash", connector="g", name="gmail_users_threads_trash",
                           summary="Moves the specified thread to the trash.", http_method="POST",
                           http_path="/gmail/v1/users/{userId}/threads/{id}/trash"),
            SearchDocument(key="g.gmail_users_threads_delete", connector="g", name="gmail_users_threads_delete",
                           summary="Immediately and permanently deletes the specified thread.", http_method="DELETE",
                           http_path="/gmail/v1/users/{userId}/threads/{id}"),
            *GMAIL]
    ranked = SearchIndex(docs).rank("bin the thread with the recruiter forever", limit=1)[0]
    assert ranked[0][0] == "g.gmail_users_threads_delete"
