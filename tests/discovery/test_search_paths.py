"""A request that quotes a path names the method at that path (issue 13, round 9)."""

from __future__ import annotations

import pytest

from codemode_kernel.discovery.search import SearchDocument, SearchIndex

# Kubernetes' own names, paths and summaries for the batch/v1 group version.
BATCH = [
    SearchDocument(key="k.listBatchV1NamespacedJob", connector="k", name="listBatchV1NamespacedJob",
                   summary="list or watch objects of kind Job", http_method="GET",
                   http_path="/apis/batch/v1/namespaces/{namespace}/jobs", returns="JobList"),
    SearchDocument(key="k.listBatchV1JobForAllNamespaces", connector="k", name="listBatchV1JobForAllNamespaces",
                   summary="list or watch objects of kind Job", http_method="GET", http_path="/apis/batch/v1/jobs",
                   returns="JobList"),
    SearchDocument(key="k.getBatchAPIGroup", connector="k", name="getBatchAPIGroup",
                   summary="get information of a group", http_method="GET", http_path="/apis/batch/",
                   returns="APIGroup"),
    SearchDocument(key="k.getBatchV1APIResources", connector="k", name="getBatchV1APIResources",
                   summary="get available resources", http_method="GET", http_path="/apis/batch/v1/",
                   returns="APIResourceList"),
    SearchDocument(key="g.repos_list_for_authenticated_user", connector="g", name="repos_list_for_authenticated_user",
                   summary="List repositories for the authenticated user", http_method="GET",
                   http_path="/user/repos"),
    SearchDocument(key="g.repos_list_for_user", connector="g", name="repos_list_for_user",
                   summary="List repositories for a user", http_method="GET", http_path="/users/{username}/repos"),
]


def test_a_group_version_named_as_a_path_finds_its_own_method() -> None:
    """'the kinds served by the batch/v1 API group': /apis/batch/v1/ itself before the jobs 'list' and 'batch' fit (the
    group's own method, which says 'API group', may come first)."""
    ranked = [k for k, _s in SearchIndex(BATCH).rank("list the kinds served by the batch/v1 API group", limit=6)[0]]
    assert ranked.index("k.getBatchV1APIResources") < min(ranked.index("k.listBatchV1JobForAllNamespaces"),
                                                         ranked.index("k.listBatchV1NamespacedJob"))


@pytest.mark.parametrize(("query", "key"), [("call GET /user/repos", "g.repos_list_for_authenticated_user"),
                                            ("the repos of octocat/hello-world's owner", "g.repos_list_for_user")])
def test_only_a_path_a_method_ends_with_counts(query: str, key: str) -> None:
    """'/user/repos' is that method's path; 'octocat/hello-world' is an owner and a repository, which paths take as
    parameters, and moves nothing."""
    assert SearchIndex(BATCH).rank(query, limit=1)[0][0][0] == key


EVENTS = [
    SearchDocument(key="k.deleteCoreV1CollectionNamespacedEvent", connector="k",
                   name="deleteCoreV1CollectionNamespacedEvent", summary="delete collection of Event",
                   http_method="DELETE", http_path="/api/v1/namespaces/{namespace}/events", returns="Status"),
    SearchDocument(key="k.deleteBatchV1CollectionNamespacedJob", connector="k",
                   name="deleteBatchV1CollectionNamespacedJob", summary="delete collection of Job",
                   http_method="DELETE", http_path="/apis/batch/v1/namespaces/{namespace}/jobs", returns="Status"),
    SearchDocument(key="k.readCoreV1NamespacedPod", connector="k", name="readCoreV1NamespacedPod",
                   summary="read the specified Pod", http_method="GET",
                   http_path="/api/v1/namespaces/{namespace}/pods/{name}", returns="Pod"),
    *(SearchDocument(key=f"k.deleteCoreV1CollectionNamespaced{kind}", connector="k",
                     name=f"deleteCoreV1CollectionNamespaced{kind}", summary=f"delete collection of {kind}",
                     http_method="DELETE", http_path=f"/api/v1/namespaces/{{namespace}}/{kind.lower()}s",
                     returns="Status")
      for kind in ("ConfigMap", "Secret", "Service", "Endpoints", "LimitRange", "ResourceQuota")),
]


def test_a_name_given_before_its_resource_is_a_value() -> None:
    """'in the ci namespace': 'ci' names the namespace (no method's name has it); read as a word it is continuous
    integration, a job, and brought the jobs' delete in right behind the events'."""
    ranked = [k for k, _s in SearchIndex(EVENTS).rank("clear out all the old events in the ci namespace", limit=2)[0]]
    assert ranked[0] == "k.deleteCoreV1CollectionNamespacedEvent"
    assert "k.deleteBatchV1CollectionNamespacedJob" not in ranked


@pytest.mark.parametrize(("said", "read"), [
    ("clear out the events in the ci namespace", "clear out the events in the namespace"),
    ("read a pod in our staging namespace", "read a pod in our namespace"),
    ("delete the jobs of the batch namespace", "delete the jobs of the batch namespace"),  # a name word: kept
    ("post it in the ci channel", "post it in the ci channel"),  # no path here takes a channel
])
def test_which_names_before_a_resource_are_values(said: str, read: str) -> None:
    assert SearchIndex(EVENTS)._unnamed(said) == read


def test_an_allowlist_is_an_access_control_list() -> None:
    """'an allowlist' is what Twilio calls an IP access control list (without the glossary, nothing is found)."""
    docs = [SearchDocument(key=f"t.{name}", connector="t", name=name, summary=summary, http_method="POST",
                           http_path=path)
            for name, summary, path in (
                ("CreateSipIpAddress", "Create a new IpAddress resource.",
                 "/2010-04-01/Accounts/{AccountSid}/SIP/IpAccessControlLists/{IpAccessControlListSid}/IpAddresses.json"),
                ("CreateSipIpAccessControlList", "Create a new IpAccessControlList resource",
                 "/2010-04-01/Accounts/{AccountSid}/SIP/IpAccessControlLists.json"),
                ("CreateSipDomain", "Create a new Domain", "/2010-04-01/Accounts/{AccountSid}/SIP/Domains.json"),
                *((f"Create{kind}", f"Create a new {kind}", f"/2010-04-01/Accounts/{{AccountSid}}/{kind}s.json")
                  for kind in ("Message", "Call", "Queue", "Application", "Address", "Key", "Conference", "Token")))]
    ranked = SearchIndex(docs).rank("start an allowlist", limit=1)[0]
    assert ranked[0][0] == "t.CreateSipIpAccessControlList"
