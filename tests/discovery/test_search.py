"""Search ranks by what a request means, and its results are enough to decide without a describe (issue 13)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, tool
from codemode_kernel.catalog import Method
from codemode_kernel.discovery.search import SearchDocument, SearchIndex, method_document, result_text
from tests.discovery.catalog import connectors

pytestmark = pytest.mark.anyio


@pytest.fixture
async def rt() -> AsyncIterator[CodemodeRuntime]:
    async with CodemodeRuntime(connectors(), store="sqlite://", executor=InProcessExecutor()) as runtime:
        yield runtime


@pytest.mark.parametrize(("query", "expected"), [
    ("star a repo", "github.activity_star_repo_for_authenticated_user"),
    ("share a code snippet as a paste", "github.gists_create"),
    ("sign up a new buyer", "stripe.PostCustomers"),
    ("make a new folder in my mailbox", "gmail.gmail_users_labels_create"),
    ("throw a message in the trash", "gmail.gmail_users_messages_trash"),
    ("kill a pod", "kubernetes.deleteCoreV1NamespacedPod"),
    ("fetch the logs of a pod", "kubernetes.readCoreV1NamespacedPodLog"),
    ("my own account details", "github.users_get_authenticated"),
])
async def test_a_request_in_other_words_finds_the_method_first(rt: CodemodeRuntime, query: str,
                                                               expected: str) -> None:
    """Paraphrases sharing few or no words with the method's name or summary rank it first."""
    out = await rt.search(query)
    assert out.results[0].path == expected, [r.path for r in out.results[:3]]


async def test_a_name_the_request_spells_out_beats_a_longer_one_that_contains_it(rt: CodemodeRuntime) -> None:
    """'list namespaces' is listCoreV1Namespace, not list…ForAllNamespaces (identifier splitting and name fit)."""
    out = await rt.search("list namespaces")
    assert out.results[0].path == "kubernetes.listCoreV1Namespace"


async def test_a_word_in_a_proper_noun_is_not_its_verb(rt: CodemodeRuntime) -> None:
    """'create an issue' is GitHub's issue, not Stripe's Issuing cards: '-ing' words are not stemmed to verbs."""
    out = await rt.search("create an issue")
    assert out.results[0].path == "github.issues_create"
    assert "stripe.PostIssuingCards" not in [r.path for r in out.results[:3]]


def test_a_related_word_never_outranks_the_word_itself() -> None:
    """A document with the request's own words beats one matching only a rarer related word."""
    docs = [SearchDocument(key=f"c.generated_operation_{i}", connector="c", name=f"generated_operation_{i}",
                           summary=f"Generated operation number {i}.") for i in range(30)]
    docs.append(SearchDocument(key="c.create_issue", connector="c", name="create_issue", summary="Create an issue."))
    ranked, total = SearchIndex(docs).rank("generated operation", limit=5)
    assert all(key.startswith("c.generated_operation_") for key, _ in ranked)
    assert total >= 30


VAULT = {"$ref": "#/$defs/io.k8s.api.core.v1.Secret",
         "$defs": {"io.k8s.api.core.v1.Secret": {"description": "Secret holds confidential data. Long prose."}}}


def test_a_method_is_found_by_what_it_returns() -> None:
    """The result type's name and first sentences are searchable: 'confidential data' finds a method whose
    summary never says it, through the result it declares (a list of them counts too)."""
    assert result_text(VAULT) == "Secret Secret holds confidential data. Long prose."
    assert result_text({"type": "array", "items": VAULT["$defs"]["io.k8s.api.core.v1.Secret"]}) == \
        "Secret holds confidential data. Long prose."
    assert result_text({"$ref": "#/$defs/missing"}) == "missing" and result_text(None) == ""
    echo = tool(lambda **kw: kw, description="create an object of kind S", output_schema=VAULT)
    other = tool(lambda **kw: kw, description="create an object of kind T")
    docs = [method_document(Method("k", "createS", echo)), method_document(Method("k", "createT", other))]
    ranked, _ = SearchIndex(docs).rank("store confidential data", limit=2)
    assert [key for key, _ in ranked] == ["k.createS"]


async def test_results_carry_summary_required_arguments_and_approval(rt: CodemodeRuntime) -> None:
    """A result says what the method does in one line, which arguments a call needs, and whether it pauses."""
    out = await rt.search("create a pull request")
    top = out.results[0]
    assert top.path == "github.pulls_create" and top.kind == "method"
    assert top.description == "Create a pull request"
    assert top.required == ["owner", "repo", "head", "base"]
    assert top.requires_approval is True
    html = (await rt.search("refund")).results[0]
    assert html.path == "stripe.PostRefunds" and html.description == "Create a refund."
    assert set(top.to_dict()) == {"path", "connector", "method", "description", "requires_approval", "kind", "score",
                                  "required"}


async def test_limit_caps_the_results_and_says_more_exist(rt: CodemodeRuntime) -> None:
    """limit=N returns N results, total counts every match, truncated says there are more."""
    out = await rt.search("list", limit=2)
    assert len(out.results) == 2 and out.total > 2 and out.truncated is True
    assert len((await rt.search("list", limit=500)).results) <= 50
    with pytest.raises(ValueError, match="whole number"):
        await rt.search("list", limit="3")  # type: ignore[arg-type]


async def test_connector_keeps_one_connectors_methods(rt: CodemodeRuntime) -> None:
    """connector='gmail' ranks only Gmail's methods; an unknown connector is refused with the configured names."""
    out = await rt.search("create", connector="gmail")
    assert out.results and all(r.connector == "gmail" for r in out.results)
    with pytest.raises(ValueError, match=r"connector='nope' is not configured.*github.*gmail"):
        await rt.search("delete", connector="nope")


async def test_snippets_rank_beside_methods_and_alone(rt: CodemodeRuntime) -> None:
    """A saved snippet competes with methods on the same scale; connector='codemode' keeps snippets only."""
    done = await rt.execute("github.pulls_list(owner='o', repo='r')")
    await rt.save_snippet("weekly_pull_request_digest", execution_id=done["execution_id"],
                          description="Summarise the week's pull requests of a repository.",
                          input_schema={"type": "object", "properties": {"repo": {"type": "string"}},
                                        "required": ["repo"]})
    out = await rt.search("weekly digest of pull requests")
    assert out.results[0].path == "weekly_pull_request_digest" and out.results[0].kind == "snippet"
    assert out.results[0].required == ["repo"]
    assert any(r.kind == "method" for r in out.results)
    only = await rt.search("pull requests", connector="codemode")
    assert [r.kind for r in only.results] == ["snippet"]
