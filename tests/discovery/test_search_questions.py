"""What a 'which …' or 'what …' question asks for (issue 13, round 9)."""

from __future__ import annotations

import pytest

from codemode_kernel.discovery.search import SearchDocument, SearchIndex

# Slack's own names and summaries.
CHANNELS = [
    SearchDocument(key="s.conversations_members", connector="s", name="conversations_members",
                   summary="Retrieve members of a conversation.", http_method="GET",
                   http_path="/conversations.members", params=("channel", "cursor", "limit")),
    SearchDocument(key="s.users_conversations", connector="s", name="users_conversations",
                   summary="List conversations the calling user may access.", http_method="GET",
                   http_path="/users.conversations", params=("cursor", "exclude_archived", "limit", "types", "user")),
    SearchDocument(key="s.conversations_list", connector="s", name="conversations_list",
                   summary="Lists all channels in a Slack team.", http_method="GET", http_path="/conversations.list",
                   params=("cursor", "exclude_archived", "limit", "types")),
    SearchDocument(key="s.users_list", connector="s", name="users_list", summary="Lists all users in a Slack team.",
                   http_method="GET", http_path="/users.list", params=("cursor", "include_locale", "limit")),
    *(SearchDocument(key=f"s.{name}", connector="s", name=name, summary=summary, http_method="POST",
                     http_path=f"/{name.replace('_', '.')}")
      for name, summary in (("chat_postMessage", "Sends a message to a channel."),
                            ("reactions_add", "Adds a reaction to an item."),
                            ("files_upload", "Uploads or creates a file."),
                            ("reminders_add", "Creates a reminder."),
                            ("stars_add", "Adds a star to an item."),
                            ("pins_add", "Pins an item to a channel."),
                            ("dnd_setSnooze", "Turns on Do Not Disturb mode."),
                            ("emoji_list", "Lists custom emoji for a team."),
                            ("team_info", "Gets information about the current team."))),
]


def test_which_channels_finds_the_method_whose_name_ends_with_them() -> None:
    """'which channels am I a member of?' asks for channels (Slack's conversations): of two methods that say the same,
    the one whose name ends with them answers it, not the one that ends with members (which sorts first)."""
    docs = [SearchDocument(key=f"s.{name}", connector="s", name=name, summary="Members and their conversations.",
                           http_method="GET", http_path=f"/{name.replace('_', '.')}")
            for name in ("conversations_members", "members_conversations")]
    ranked = SearchIndex([*CHANNELS[2:], *docs]).rank("which channels am I a member of?", limit=2)[0]
    assert ranked[0][0] == "s.members_conversations"


@pytest.mark.parametrize(("query", "head"), [
    ("which channels am I a member of?", "channel"),
    ("what container images has octocat published?", "imag"),
    ("which resource claim templates exist in the ml-training namespace?", "exist"),
    ("what version is the API server", "vers"),
])
def test_the_head_of_a_question_is_the_last_word_before_its_verb_or_a_stop_word(query: str, head: str) -> None:
    assert head in SearchIndex(CHANNELS)._asked_head(query)


@pytest.mark.parametrize("query", ["list the channels I am in", "what is a channel?"])
def test_only_which_or_what_before_a_noun_has_a_head(query: str) -> None:
    assert SearchIndex(CHANNELS)._asked_head(query) == set()


def test_a_who_question_asks_for_people() -> None:
    """Round 17 (WHO_PEOPLE): "who ..." has the words the APIs use for a person as its head, not a noun run."""
    assert {"user", "member", "person"} <= SearchIndex(CHANNELS)._asked_head("who is in the channel?")
