"""A question asks for a read, even where a write's words fit it a little better (issue 13, round 10)."""

from __future__ import annotations

import pytest

from codemode_kernel.discovery.search import SearchDocument, SearchIndex

_USER = "/gmail/v1/users/{userId}"

# Gmail's own names and summaries, beside a payments API's lists (so that mail words are rare, as in a real catalog).
MAILBOX = [
    SearchDocument(key="gmail.gmail_users_messages_send", connector="gmail", name="gmail_users_messages_send",
                   summary="Sends the specified message to the recipients in the To, Cc, and Bcc headers.",
                   http_method="POST", http_path=f"{_USER}/messages/send", returns="Message An email message."),
    SearchDocument(key="gmail.gmail_users_messages_list", connector="gmail", name="gmail_users_messages_list",
                   summary="Lists the messages in the user's mailbox.", http_method="GET",
                   http_path=f"{_USER}/messages", returns="ListMessagesResponse"),
    SearchDocument(key="gmail.gmail_users_drafts_send", connector="gmail", name="gmail_users_drafts_send",
                   summary="Sends the specified, existing draft to the recipients in the To, Cc, and Bcc headers.",
                   http_method="POST", http_path=f"{_USER}/drafts/send", returns="Message An email message."),
    SearchDocument(key="gmail.gmail_users_labels_create", connector="gmail", name="gmail_users_labels_create",
                   summary="Creates a new label.", http_method="POST", http_path=f"{_USER}/labels",
                   returns="Label Labels are used to categorize messages and threads within the user's mailbox."),
    *(SearchDocument(key=f"stripe.Get{kind}", connector="stripe", name=f"Get{kind}",
                     summary=f"Returns a list of your {kind.lower()}.", http_method="GET",
                     http_path=f"/v1/{kind.lower()}")
      for kind in ("Coupons", "Payouts", "Disputes", "Refunds", "Products", "Invoices", "Customers", "Charges",
                   "Prices", "Plans", "Quotes", "Files", "Events", "Topups", "Transfers", "Reviews")),
]


@pytest.mark.parametrize("question", ["what is waiting for me in the inbox", "is there any mail from my manager?",
                                      "what messages did I get?"])
def test_a_question_about_mail_is_the_list_not_the_send(question: str) -> None:
    """'mail' and 'message' bring in 'send' (the lexicon's verb of mail), and the send's words fit the request a little
    better: the question still asks to be told what is there, the list of messages (READ_MOOD)."""
    ranked = SearchIndex(MAILBOX).rank(question, limit=2)[0]
    assert [key for key, _score in ranked] == ["gmail.gmail_users_messages_list", "gmail.gmail_users_messages_send"]


def test_an_order_to_send_mail_is_still_the_send() -> None:
    """The read mood is a question's only: 'send mail to my manager' is the send."""
    ranked = SearchIndex(MAILBOX).rank("send mail to my manager", limit=1)[0]
    assert ranked[0][0] == "gmail.gmail_users_messages_send"
