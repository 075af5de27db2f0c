"""A request to read may name what it wants to see: the properties of a method's result (issue 13, round 17).

"what's my address and how many messages do I have in total?" asks for Gmail's profile (emailAddress, messagesTotal),
whose name and summary say only "profile"; the messages' list says "messages" in its name. Among the best results, a
read request's words that a method's other fields lack but its result type's property names hold (of one item, for a
page of results) raise it. A write is not read that way: the properties of what a method returns say nothing of what
a request asks it to change.
"""

from __future__ import annotations

from typing import Any

from codemode_kernel.discovery.search import SearchDocument, SearchIndex, result_fields

PROFILE = {"type": "object", "properties": {"emailAddress": {"type": "string"}, "messagesTotal": {"type": "integer"},
                                            "threadsTotal": {"type": "integer"}, "historyId": {"type": "string"}}}
MESSAGES_PAGE: dict[str, Any] = {
    "$ref": "#/$defs/ListMessagesResponse",
    "$defs": {
        "ListMessagesResponse": {"type": "object", "properties": {
            "messages": {"type": "array", "items": {"$ref": "#/$defs/Message"}},
            "nextPageToken": {"type": "string"}}},
        "Message": {"type": "object", "properties": {"id": {"type": "string"}, "snippet": {"type": "string"},
                                                     "sizeEstimate": {"type": "integer"}}},
    },
}


def _mail() -> SearchIndex:
    docs = [
        SearchDocument(key="mail.users_getProfile", connector="mail", name="users_getProfile",
                       summary="Gets the current user's profile.", http_method="GET",
                       http_path="/users/{userId}/profile", params=("userId",), result_schema=PROFILE),
        SearchDocument(key="mail.users_messages_list", connector="mail", name="users_messages_list",
                       summary="Lists the messages in the user's mailbox.", http_method="GET",
                       http_path="/users/{userId}/messages", params=("userId", "maxResults"),
                       result_schema=MESSAGES_PAGE),
        SearchDocument(key="mail.users_messages_send", connector="mail", name="users_messages_send",
                       summary="Sends the specified message to the recipients.", http_method="POST",
                       http_path="/users/{userId}/messages/send", params=("userId",)),
        SearchDocument(key="mail.users_settings_sendAs_update", connector="mail", name="users_settings_sendAs_update",
                       summary="Updates a send-as alias.", http_method="PUT",
                       http_path="/users/{userId}/settings/sendAs/{sendAsEmail}", params=("userId", "sendAsEmail"),
                       result_schema={"type": "object", "properties": {"sendAsEmail": {"type": "string"},
                                                                       "displayName": {"type": "string"}}}),
    ]
    others = [SearchDocument(key=f"other.thing_{k}", connector="other", name=f"thing_{k}",
                             summary="Something else.", http_method="GET", http_path=f"/things/{k}")
              for k in range(20)]
    return SearchIndex([*docs, *others])


def test_the_property_names_of_a_result_are_those_of_one_item_for_a_page() -> None:
    assert result_fields(PROFILE) == "emailAddress messagesTotal threadsTotal historyId"
    assert result_fields(MESSAGES_PAGE) == "id snippet sizeEstimate"
    assert result_fields(None) == ""
    assert result_fields({"type": "array", "items": {"type": "string"}}) == ""


def test_a_question_naming_the_result_properties_it_wants_finds_the_method_that_returns_them() -> None:
    ranked, _ = _mail().rank("what email address do I have, and the total of my messages?")
    assert ranked[0][0] == "mail.users_getProfile"  # the messages' list first without the result's properties


def test_a_write_is_not_reordered_by_what_a_method_returns() -> None:
    ranked, _ = _mail().rank("change my email address")
    # The profile holds "email address" in its result only: read as a read, it would be first.
    assert ranked[0][0] == "mail.users_settings_sendAs_update"
