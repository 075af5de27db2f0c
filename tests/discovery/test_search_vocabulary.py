"""Everyday words for what chat and code-hosting APIs name otherwise (issue 13, round 10).

The dictionaries' synonyms of an API's word, or the common name of its concept: a request that says
"quit the channel" or "change my avatar" shares no word with Slack's conversations_leave or users_setPhoto.
"""

from __future__ import annotations

import pytest

from codemode_kernel.discovery.lexicon import rewrite
from codemode_kernel.discovery.search import SearchDocument, SearchIndex, query_action
from codemode_kernel.discovery.text import stems


def _doc(name: str, summary: str) -> SearchDocument:
    # Slack's Web API: every method is a POST or GET on /family.method, no path parameter.
    family, _sep, method = name.partition("_")
    verb = "GET" if method.split("_")[-1] in ("list", "info", "history", "replies", "getPermalink") else "POST"
    return SearchDocument(key=f"slack.{name}", connector="slack", name=name, summary=summary, http_method=verb,
                          http_path=f"/{family}.{method}")


# Slack's own names and summaries.
SLACK = [
    _doc("conversations_leave", "Leaves a conversation."),
    _doc("conversations_join", "Joins an existing conversation."),
    _doc("conversations_invite", "Invites users to a channel."),
    _doc("conversations_kick", "Removes a user from a conversation."),
    _doc("conversations_list", "Lists all channels in a Slack team."),
    _doc("conversations_history", "Fetches a conversation's history of messages and events."),
    _doc("conversations_replies", "Retrieve a thread of messages posted to a conversation"),
    _doc("chat_postMessage", "Sends a message to a channel."),
    _doc("chat_update", "Updates a message."),
    _doc("chat_getPermalink", "Retrieve a permalink URL for a specific extant message"),
    _doc("chat_unfurl", "Provide custom unfurl behavior for user-posted URLs"),
    _doc("users_setPhoto", "Set the user profile photo"),
    _doc("users_profile_set", "Set the profile information for a user."),
    _doc("users_list", "Lists all users in a Slack team."),
    _doc("usergroups_list", "List all User Groups for a team"),
    _doc("emoji_list", "Lists custom emoji for a team."),
    _doc("apps_uninstall", "Uninstalls your app from a workspace."),
    _doc("admin_teams_settings_setIcon", "Sets the icon of a workspace."),
    _doc("admin_teams_settings_setName", "Set the name of a given workspace."),
]


@pytest.mark.parametrize(("request_text", "expected"), [
    ("quit the random channel", "slack.conversations_leave"),
    ("change my avatar", "slack.users_setPhoto"),
    ("put our logo on it", "slack.admin_teams_settings_setIcon"),
    ("a link to that message I can share", "slack.chat_getPermalink"),
    ("preview the links in messages", "slack.chat_unfurl"),
    ("which emoticons can we use?", "slack.emoji_list"),
    ("read the answers people gave", "slack.conversations_replies"),
])
def test_an_everyday_word_finds_the_method_the_api_names_otherwise(request_text: str, expected: str) -> None:
    """A dictionary synonym (quit: leave; emoticon: emoji; answer: reply), a common name of the concept (an
    avatar is a profile photo, a logo an icon, a link to a message its permalink, a link's preview its unfurl)
    ranks the method first."""
    assert SearchIndex(SLACK).rank(request_text, limit=1)[0][0][0] == expected


@pytest.mark.parametrize(("verb", "action"), [
    ("amend", "update"), ("correct", "update"), ("tweak", "update"),
    ("compose", "create"), ("publish", "create"), ("provision", "create"),
    ("uninstall", "delete"), ("unsubscribe", "delete"), ("unfollow", "delete"), ("unstar", "delete"),
    ("unpin", "delete"), ("kick", "delete"), ("eject", "delete"), ("expel", "delete"),
])
def test_a_verb_the_dictionaries_group_with_an_action_says_it(verb: str, action: str) -> None:
    """'amend', 'correct' and 'tweak' change a thing; 'compose', 'publish' and 'provision' make one; 'uninstall',
    the un-verbs and 'kick', 'eject', 'expel' take one away."""
    assert query_action(stems(f"{verb} the thing")) == action


def test_kicking_someone_out_of_a_channel_is_the_removal_not_the_invitation() -> None:
    """'eject' (like 'kick', a delete in a request and in a name) takes a user away: Slack's conversations_kick, a
    POST, was read as a create."""
    ranked = SearchIndex(SLACK).rank("eject a user from the channel", limit=1)[0]
    assert ranked[0][0] == "slack.conversations_kick"


def test_a_user_group_is_the_apis_usergroup() -> None:
    """Slack spells its user groups as one word (usergroups_list): the request's two words are read as it."""
    assert rewrite(["list", "the", "user", "groups"]) == ["list", "the", "usergroup"]


def test_correcting_a_message_is_its_update() -> None:
    """'correct' asks to change the message, not to send one."""
    assert SearchIndex(SLACK).rank("correct a message", limit=1)[0][0][0] == "slack.chat_update"
