"""The linear re-ranker over the ranker's own signals (issue 13, round 13; codemode_kernel/discovery/rerank.py).

The ranker's first RERANK_TOP results are ordered again by a weighted sum of the signals its loop multiplies (how much
of a name the request explains, the action asked for, coverage, ...) and how much of the request each field holds; the
weights were fitted offline on the tuning split (benchmarks/discovery_rerank.py). A request that names an item or a
path, which the tuning split never does, is left to the signals made for it. GitHub's own names, paths, summaries and
descriptions below.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codemode_kernel.discovery import rerank, search
from codemode_kernel.discovery.search import SearchDocument, SearchIndex


def _doc(key: str, verb: str, path: str, summary: str, body: str = "", params: tuple[str, ...] = (),
         returns: str = "") -> SearchDocument:
    connector, _sep, name = key.partition(".")
    return SearchDocument(key=key, connector=connector, name=name, summary=summary, body=body, http_method=verb,
                          http_path=path, params=params, returns=returns)


_DRAFTS = ("Draft pull requests are available in public repositories with GitHub Free and GitHub Free for "
           "organizations, GitHub Pro, and legacy per-repository billing plans, and in public and private "
           "repositories with GitHub Team and GitHub Enterprise Cloud. For more information, see GitHub's products in "
           "the GitHub Help documentation.")
_PULL = ("pull request Pull Request Pull requests let you tell others about changes you've pushed to a repository on "
         "GitHub. Once a pull request is sent, interested parties can review the set of changes, discuss potential "
         "modifications, and even push follow-up commits if necessary.")
_SIMPLE = "pull request simple Pull Request Simple Pull Request Simple"
# The first six results of the request below over the whole catalog (bench_discovery's six API descriptions), each
# description cut where the index cuts it (60 words).
DOCS = [
    _doc("github.issues_list_for_repo", "GET", "/repos/{owner}/{repo}/issues", "List repository issues",
         "List issues in a repository. Only open issues will be listed. > [!NOTE] > GitHub's REST API considers every "
         "pull request an issue, but not every issue is a pull request. For this reason, \"Issues\" endpoints may "
         "return both issues and pull requests in the response. You can identify pull requests by the pull_request "
         "key. Be aware that the id",
         ("owner", "repo", "milestone", "state", "assignee", "type", "creator", "mentioned", "issue_field_values",
          "labels", "sort", "direction", "since", "per_page", "page"),
         "issue Issue Issues are a great way to keep track of tasks, enhancements, and bugs for your projects."),
    _doc("github.pulls_list", "GET", "/repos/{owner}/{repo}/pulls", "List pull requests",
         "Lists pull requests in a specified repository. " + _DRAFTS + " This endpoint supports the following custom",
         ("owner", "repo", "state", "head", "base", "sort", "direction", "per_page", "page"), _SIMPLE),
    _doc("github.interactions_update_pull_request_creation_cap_for_repo", "PATCH",
         "/repos/{owner}/{repo}/interaction-limits/pulls/creation-cap", "Update pull request creation cap for a "
         "repository", "Updates the pull request creation cap for a repository. The cap limits the number of open pull "
         "requests a user can have at one time. Only users with admin access to the repository can configure the cap.",
         ("owner", "repo", "enabled", "max_open_pull_requests")),
    _doc("github.pulls_create", "POST", "/repos/{owner}/{repo}/pulls", "Create a pull request",
         _DRAFTS + " To open or update a pull request in a public repository, you must",
         ("owner", "repo", "title", "head", "head_repo", "base", "body", "maintainer_can_modify", "draft", "issue"),
         _PULL),
    _doc("github.pulls_update", "PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", "Update a pull request",
         _DRAFTS + " To open or update a pull request in a public repository, you must",
         ("owner", "repo", "pull_number", "title", "body", "state", "base", "maintainer_can_modify"), _PULL),
    _doc("github.repos_list_pull_requests_associated_with_commit", "GET",
         "/repos/{owner}/{repo}/commits/{commit_sha}/pulls", "List pull requests associated with a commit",
         "Lists the merged pull request that introduced the commit to the repository. If the commit is not present in "
         "the default branch, it will return merged and open pull requests associated with the commit. To list the "
         "open or merged pull requests associated with a branch, you can set the commit_sha parameter to the branch "
         "name.",
         ("owner", "repo", "commit_sha", "per_page", "page"), _SIMPLE),
]
REPOS = [
    _doc("github.repos_list_for_authenticated_user", "GET", "/user/repos",
         "List repositories for the authenticated user"),
    _doc("github.repos_list_for_user", "GET", "/users/{username}/repos", "List repositories for a user"),
]
ASKED = "list the open pull requests of a repository"


def _ranked(query: str, docs: list[SearchDocument] = DOCS) -> list[tuple[str, float]]:
    return SearchIndex(docs).rank(query, limit=10)[0]


def test_the_open_pull_requests_of_a_repository_are_the_pull_request_list() -> None:
    """'list the open pull requests of a repository' is pulls_list: the ranker alone put the repository's issues first
    (their description says, rightly, that the API counts a pull request as an issue, and they are listed open); the
    model weighs the request's words in the method's own name, path and summary ("pull", "request", "list") above the
    description's."""
    assert _ranked(ASKED)[0][0] == "github.pulls_list"


def test_without_the_model_the_ranker_alone_puts_the_issues_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The case above is the model's doing (the same catalog and request, the re-ranker off)."""
    monkeypatch.setattr(search, "RERANK", False)
    assert _ranked(ASKED)[0][0] == "github.issues_list_for_repo"


def test_only_the_first_results_are_reordered_and_scores_still_fall(monkeypatch: pytest.MonkeyPatch) -> None:
    """With RERANK_TOP 2, the first two are the model's order and the rest keep the ranker's, below them; scores never
    rise down the list."""
    monkeypatch.setattr(search, "RERANK", False)
    plain = _ranked(ASKED)
    monkeypatch.setattr(search, "RERANK", True)
    monkeypatch.setattr(search, "RERANK_TOP", 2.0)
    reranked = _ranked(ASKED)
    assert [k for k, _s in reranked[:2]] == [k for k, _s in reversed(plain[:2])]
    assert [k for k, _s in reranked[2:]] == [k for k, _s in plain[2:]]
    scores = [s for _k, s in reranked]
    assert scores == sorted(scores, reverse=True)
    assert reranked[0][1] == plain[0][1]  # the first keeps the ranker's scale


@pytest.mark.parametrize("query", ["call GET /user/repos", "list the open pull requests of repo 42",
                                   "list the open pull requests of the repository with id abc"])
def test_a_request_that_names_a_path_or_an_item_is_left_to_the_ranker(query: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A quoted path, a numbered item or an "id" names what the request is about; the tuning split the model was
    fitted on has no such request, so its ranking is the ranker's own."""
    traced: list[tuple[list[int], list[list[float]]]] = []
    monkeypatch.setattr(search, "RERANK_TRACE", traced)
    with_model = _ranked(query, DOCS + REPOS)
    assert traced == []
    monkeypatch.setattr(search, "RERANK", False)
    assert with_model == _ranked(query, DOCS + REPOS)


def test_a_plain_request_is_traced_with_one_feature_row_per_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """What benchmarks/discovery_rerank.py fits on: each re-ranked result's features, as many as the model's weights,
    the first result's relative score 0 (log 1) and its rank 0."""
    traced: list[tuple[list[int], list[list[float]]]] = []
    monkeypatch.setattr(search, "RERANK_TRACE", traced)
    _ranked(ASKED)
    assert len(traced) == 1
    heads, rows = traced[0]
    assert len(heads) == len(rows) >= 2
    assert all(len(row) == len(rerank.FEATURES) == len(rerank.WEIGHTS) for row in rows)
    first = dict(zip(rerank.FEATURES, rows[0], strict=True))
    assert first["final"] == 0.0 and first["rank"] == 0.0


def test_the_fit_learns_a_feature_that_orders_the_pairs_and_a_strong_pull_keeps_the_ranker() -> None:
    """benchmarks/discovery_rerank.py's pairwise logistic fit: where every right method has more of one feature than
    the wrong ones, that feature gets a positive weight; pulled hard towards the ranker as it is, the weights are its
    own (1 on the final score, 0 elsewhere)."""
    np = pytest.importorskip("numpy")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import discovery_rerank as dr

    rng = np.random.default_rng(13)
    n = len(rerank.FEATURES)
    traced = []
    for _ in range(40):
        x = rng.normal(size=(6, n))
        right = np.zeros(6, dtype=bool)
        right[int(np.argmax(x[:, 2]))] = True  # the right method is the one with the most of feature 2
        traced.append((x, right))
    learned = dr.fit(dr.pairs(traced), 1e-6)
    assert learned[2] > 1.0 and learned[2] == max(learned)
    kept = dr.fit(dr.pairs(traced), 1e6)
    assert np.allclose(kept, np.eye(n)[0], atol=1e-3)
    learned_top1, _top5, learned_mrr = dr.cross_validated(traced, 1e-6)
    kept_top1, _top5, kept_mrr = dr.cross_validated(traced, 1e6)
    assert learned_top1 > 0.8 > 0.4 > kept_top1 and learned_mrr > kept_mrr
