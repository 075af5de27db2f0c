"""Choosing among siblings and actions: the request's mood and the scopes a method needs (issue 13, round 5)."""

from __future__ import annotations

from codemode_kernel.discovery.lexicon import expand
from codemode_kernel.discovery.search import SearchDocument, SearchIndex, method_scopes, request_mood
from codemode_kernel.discovery.text import stems


def _doc(name: str, summary: str, verb: str = "", path: str = "", body: str = "") -> SearchDocument:
    return SearchDocument(key=f"c.{name}", connector="c", name=name, summary=summary, body=body,
                          http_method=verb, http_path=path)


def _first(docs: list[SearchDocument], query: str) -> str:
    return SearchIndex(docs).rank(query, limit=1)[0][0][0]


def test_a_question_asks_for_a_read_whatever_its_verb() -> None:
    """'who changed …' wants to be told something: the read beats the method that changes."""
    docs = [_doc("update_repository", "Updates the settings of a repository."),
            _doc("get_repository", "Gets a repository and its settings.")]
    assert request_mood("who changed the repository settings") == "read"
    assert _first(docs, "who changed the repository settings") == "c.get_repository"


def test_an_unknown_verb_before_its_object_does_something() -> None:
    """'comment on an issue': 'comment' is a verb here, so the method that adds a comment beats the list."""
    docs = [_doc("issues_list_comments", "Lists the comments on an issue."),
            _doc("issues_create_comment", "Creates a comment.")]
    assert request_mood("comment on an issue") == "write"
    assert _first(docs, "comment on an issue") == "c.issues_create_comment"


def test_a_known_verb_or_a_bare_noun_phrase_leaves_the_action_to_the_verb_table() -> None:
    """Only questions and unknown imperatives have a mood; 'delete a branch' and 'members of a team' have none."""
    assert request_mood("delete a branch") == ""
    assert request_mood("members of a team") == ""
    assert request_mood("how many stars does it have") == "read"
    assert request_mood("how do I create a tag") == ""


def test_the_scopes_of_a_path_are_its_parameters_before_the_last_segment() -> None:
    """/repos/{owner}/{repo}/commits/{commit_sha}/pulls needs a repository and a commit; a trailing item is no scope."""
    pulls_of_commit = _doc("x", "", "GET", "/repos/{owner}/{repo}/commits/{commit_sha}/pulls")
    assert method_scopes(pulls_of_commit) == [("repo", "owner"), ("commit", "sha")]
    assert method_scopes(_doc("y", "", "GET", "/repos/{owner}/{repo}/pulls/{pull_number}")) == [("repo", "owner")]
    assert method_scopes(_doc("z", "", "GET", "/v1/customers/{customer}")) == []


GITHUB_LIKE = [
    _doc("repos_list_pull_requests_associated_with_commit", "List pull requests associated with a commit", "GET",
         "/repos/{owner}/{repo}/commits/{commit_sha}/pulls",
         "The open or merged pull requests of the repository that brought the commit in."),
    _doc("pulls_list", "List pull requests", "GET", "/repos/{owner}/{repo}/pulls"),
    _doc("gists_list", "List gists for the authenticated user", "GET", "/gists"),
    _doc("emojis_get", "Get emojis", "GET", "/emojis"),
    _doc("meta_get", "Get GitHub meta information", "GET", "/meta"),
    _doc("users_get_authenticated", "Get the authenticated user", "GET", "/user"),
]


def test_a_method_scoped_to_something_the_request_never_names_ranks_below_its_sibling() -> None:
    """'pull requests of a repository' are not those of one commit: the method that also needs a commit comes second."""
    ranked, _total = SearchIndex(GITHUB_LIKE).rank("list the pull requests of a repository", limit=2)
    assert [k for k, _s in ranked] == ["c.pulls_list", "c.repos_list_pull_requests_associated_with_commit"]


def test_a_search_for_one_result_agrees_with_a_search_for_ten() -> None:
    """The scope penalty compares results with their siblings beyond the ``limit`` asked for."""
    index = SearchIndex(GITHUB_LIKE)
    query = "list the pull requests of a repository"
    assert index.rank(query, limit=1)[0] == index.rank(query, limit=10)[0][:1]


def test_a_scope_the_request_names_keeps_its_method_first() -> None:
    """Naming the commit puts the commit-scoped sibling first again."""
    assert _first(GITHUB_LIKE, "pull requests associated with a commit") == \
        "c.repos_list_pull_requests_associated_with_commit"


def test_a_scope_most_of_a_connector_shares_is_never_held_against_a_method() -> None:
    """Every method of this connector needs an account, so not naming it costs nothing."""
    docs = [_doc(f"List{r}", f"List {r.lower()}", "GET", f"/Accounts/{{AccountSid}}/{r}.json")
            for r in ("Calls", "Messages", "Queues")]
    assert SearchIndex(docs).scopes == [(), (), ()]


MERGES = [
    SearchDocument(key="c.pulls_merge_async", connector="c", name="pulls_merge_async", summary="Merge a pull request",
                   body="Merges the pull request in the background and returns at once."),
    _doc("pulls_merge", "Merge a pull request"),
    _doc("pulls_list", "List pull requests"),
    *(_doc(f"async_jobs_{verb}", f"{verb.title()} an async job, at once") for verb in ("list", "get", "cancel")),
]


def test_the_plain_method_beats_a_variant_whose_qualifier_the_request_does_not_say() -> None:
    """'merge the pull request at once' is pulls_merge, though only the async variant's text says 'at once'."""
    index = SearchIndex(MERGES)
    assert index.qualifiers[:3] == [("async",), (), ()]
    assert _first(MERGES, "merge the pull request at once") == "c.pulls_merge"


def test_a_variant_whose_qualifier_the_request_says_stays_first() -> None:
    """Saying 'async' asks for the variant."""
    assert _first(MERGES, "async merge of a pull request") == "c.pulls_merge_async"


def test_a_verb_or_a_path_parameter_in_a_longer_name_is_no_qualifier() -> None:
    """chat_postMessage beside chat_meMessage is another action; PostCustomersCustomer names its {customer}."""
    docs = [_doc("chat_meMessage", "Share a me message"), _doc("chat_postMessage", "Sends a message"),
            _doc("PostCustomers", "Creates a customer", "POST", "/v1/customers"),
            _doc("PostCustomersCustomer", "Updates a customer", "POST", "/v1/customers/{customer}")]
    assert SearchIndex(docs).qualifiers == [(), (), (), ()]


def test_every_asks_for_the_collection() -> None:
    """'every' stands for the collection variants APIs name (deleteCollectionNamespacedPod)."""
    assert "collect" in {t for t, _w, _src in expand(stems("every"))}


def test_a_tool_without_an_http_path_is_scoped_by_its_required_arguments() -> None:
    """An MCP tool's required arguments are its scopes (an identifier alone is none); naming one picks that sibling."""
    tools = [SearchDocument(key=f"t.{n}", connector="t", name=n, summary=s, required=r) for n, s, r in (
        ("list_issues", "List the issues of a repository or an organization, newest first.", ("owner", "repo")),
        ("list_org_issues", "List issues", ("org",)),
        ("get_issue", "Get an issue", ("issue_id",)),
        ("list_gists", "List gists", ()), ("get_meta", "Server information", ()), ("list_emojis", "Emojis", ()))]
    index = SearchIndex(tools)
    assert index.scopes[:3] == [(("owner",), ("repo",)), (("org",),), (("issu",),)]
    assert index.rank("issues of an organization", limit=1)[0][0][0] == "t.list_org_issues"


def test_a_question_asks_for_a_read_even_where_a_write_says_its_words_more_plainly() -> None:
    """The change names the card in its summary, the read only further on: the question still wants the read."""
    docs = [SearchDocument(key="c.update_payment_method", connector="c", name="update_payment_method",
                           summary="Updates the card of a payment method."),
            SearchDocument(key="c.get_payment_method", connector="c", name="get_payment_method",
                           summary="Retrieves a payment method.", body="Includes its card."),
            *(SearchDocument(key=f"c.other_{i}", connector="c", name=f"other_{i}", summary=f"Other thing {i}.")
              for i in range(6))]
    assert SearchIndex(docs).rank("which card is on payment method 5?", limit=1)[0][0][0] == "c.get_payment_method"


def test_a_read_does_not_bring_in_the_verbs_of_a_write() -> None:
    """"email" and "text" may mean "send" ("email the team"), not in a request to read an email's text."""
    docs = [SearchDocument(key="m.messages_send", connector="m", name="messages_send",
                           summary="Sends the specified message to the recipients in the To, Cc, and Bcc headers."),
            SearchDocument(key="m.messages_get", connector="m", name="messages_get",
                           summary="Gets the specified message."),
            *(SearchDocument(key=f"m.other_{i}", connector="m", name=f"other_{i}", summary=f"Other thing {i}.")
              for i in range(6))]
    index = SearchIndex(docs)
    assert index.rank("read the full text of email 18c2f0 including headers", limit=1)[0][0][0] == "m.messages_get"
    assert index.rank("email the team the notes", limit=1)[0][0][0] == "m.messages_send"


def test_overwrite_and_fix_are_changes_whatever_other_action_words_follow() -> None:
    """"overwrite X with this new definition" is a change: "new" later in the request does not make it a create."""
    docs = [_doc("createNamespacedRoleBinding", "create a RoleBinding"),
            _doc("replaceNamespacedRoleBinding", "replace the specified RoleBinding"),
            *(_doc(f"readNamespaced{kind}", f"read the specified {kind}")
              for kind in ("Pod", "Node", "Secret", "Lease"))]
    assert _first(docs, "overwrite the dev role binding with this new definition") == "c.replaceNamespacedRoleBinding"
    assert _first(docs, "fix the role binding with a new subject") == "c.replaceNamespacedRoleBinding"
