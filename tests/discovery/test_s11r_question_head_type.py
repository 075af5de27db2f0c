"""A "which …" question is answered by a method that returns what it asks for, whatever its name ends with (issue 13,
round 17).

"which channels am I a member of?" asks for channels. WHICH_HEAD raised a method whose name ends with that word; a
method whose result type (of one item, for a page of results) is named by it answers the question too: here
``users_memberships_list`` returns a page of Channel items, and ``channel_members_list`` (whose name holds both of the
request's words) returns members.
"""

from __future__ import annotations

from typing import Any

from codemode_kernel.discovery.search import SearchDocument, SearchIndex, result_type_name


def _page(items_key: str, item: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{item}List", "$defs": {
        f"{item}List": {"type": "object", "properties": {
            items_key: {"type": "array", "items": {"$ref": f"#/$defs/{item}"}}, "cursor": {"type": "string"}}},
        item: {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}}}


def _chat() -> SearchIndex:
    docs = [
        SearchDocument(key="chat.users_memberships_list", connector="chat", name="users_memberships_list",
                       summary="Lists the channels a user is a member of.", http_method="GET",
                       http_path="/users.memberships.list", params=("user",),
                       result_schema=_page("channels", "Channel")),
        SearchDocument(key="chat.channel_members_list", connector="chat", name="channel_members_list",
                       summary="Lists the members of a channel.", http_method="GET", http_path="/channel.members.list",
                       params=("channel",), result_schema=_page("members", "Member")),
        SearchDocument(key="chat.channels_create", connector="chat", name="channels_create",
                       summary="Creates a channel.", http_method="POST", http_path="/channels.create",
                       params=("name",)),
    ]
    others = [SearchDocument(key=f"other.thing_{k}", connector="other", name=f"thing_{k}",
                             summary="Something else.", http_method="GET", http_path=f"/things/{k}")
              for k in range(20)]
    return SearchIndex([*docs, *others])


def test_the_result_type_of_a_page_is_its_item_type() -> None:
    assert result_type_name(_page("channels", "Channel")) == "Channel"
    assert result_type_name({"$ref": "#/$defs/pull-request-simple", "$defs": {"pull-request-simple": {}}}) == (
        "pull request simple")
    assert result_type_name(None) == ""


def test_a_which_question_finds_the_method_returning_what_it_asks_for() -> None:
    ranked, _ = _chat().rank("which channels am I a member of?")
    assert ranked[0][0] == "chat.users_memberships_list"  # channel_members_list first by its name alone


def test_a_request_that_is_not_a_which_question_is_not_read_that_way() -> None:
    ranked, _ = _chat().rank("list the members of a channel")
    assert ranked[0][0] == "chat.channel_members_list"
