"""A "which …" question is answered by a method that returns what it asks for, whatever its name ends with (issue 13,
round 17).

"which channels am I a member of?" asks for channels. WHICH_HEAD raised a method whose name ends with that word; a
method whose result type (of one item, for a page of results) is named by it answers the question too: here
``users_memberships_list`` returns a page of Channel items, and ``channel_members_list`` (whose name holds both of the
request's words) returns members. A "who …" question asks for people: a method returning users (GitHub's
simple-user) answers it, and a result that is one of several types (GitHub's oneOf private-user, public-user) is named
by each of them.
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


def _users(item: str) -> dict[str, Any]:
    return {"type": "array", "items": {"$ref": f"#/$defs/{item}"}, "$defs": {item: {"type": "object"}}}


def _repo() -> SearchIndex:
    docs = [
        SearchDocument(key="repo.collaborators_list", connector="repo", name="collaborators_list",
                       summary="List repository collaborators", http_method="GET",
                       http_path="/repos/{owner}/{repo}/collaborators", params=("owner", "repo"),
                       result_schema=_users("simple-user")),
        SearchDocument(key="repo.branches_list", connector="repo", name="branches_list",
                       summary="List the branches of a repository", http_method="GET",
                       http_path="/repos/{owner}/{repo}/branches", params=("owner", "repo"),
                       result_schema=_users("short-branch")),
    ]
    others = [SearchDocument(key=f"other.thing_{k}", connector="other", name=f"thing_{k}",
                             summary="Something else.", http_method="GET", http_path=f"/things/{k}")
              for k in range(20)]
    return SearchIndex([*docs, *others])


def test_a_who_question_finds_the_method_returning_people() -> None:
    ranked, _ = _repo().rank("who works on the repository?")
    assert ranked[0][0] == "repo.collaborators_list"  # without it the two tie on words: branches_list first by key


def test_a_result_that_is_one_of_several_types_is_named_by_all_of_them() -> None:
    either = {"oneOf": [{"$ref": "#/$defs/private-user"}, {"$ref": "#/$defs/public-user"}],
              "$defs": {"private-user": {"type": "object"}, "public-user": {"type": "object"}}}
    assert result_type_name(either) == "private user public user"
    assert result_type_name({"anyOf": [{"oneOf": [{"$ref": "#/$defs/x"}]}, "not a schema"]}) == ""
    # A connector's schema is data: an option with a key that is not a string is read, not refused.
    assert result_type_name({"oneOf": [{1: "x", "$ref": "#/$defs/y"}], "$defs": {"y": {}}}) == "y"
