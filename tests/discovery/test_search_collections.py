"""A request for all of a resource and the method on the whole collection (issue 13, round 9)."""

from __future__ import annotations

import pytest

from codemode_kernel.discovery.search import SearchDocument, SearchIndex

# Kubernetes' own names, paths and summaries for a cluster-wide kind: one item, and the whole collection.
RUNTIME_CLASSES = [
    SearchDocument(key="k.deleteNodeV1RuntimeClass", connector="k", name="deleteNodeV1RuntimeClass",
                   summary="delete a RuntimeClass", http_method="DELETE",
                   http_path="/apis/node.k8s.io/v1/runtimeclasses/{name}", returns="Status"),
    SearchDocument(key="k.deleteNodeV1CollectionRuntimeClass", connector="k",
                   name="deleteNodeV1CollectionRuntimeClass", summary="delete collection of RuntimeClass",
                   http_method="DELETE", http_path="/apis/node.k8s.io/v1/runtimeclasses", returns="Status"),
    SearchDocument(key="k.createNodeV1RuntimeClass", connector="k", name="createNodeV1RuntimeClass",
                   summary="create a RuntimeClass", http_method="POST",
                   http_path="/apis/node.k8s.io/v1/runtimeclasses", returns="RuntimeClass"),
]


def _first(query: str) -> str:
    return SearchIndex(RUNTIME_CLASSES).rank(query, limit=1)[0][0][0]


@pytest.mark.parametrize("query", ["wipe out all the runtime classes", "delete every runtime class",
                                   "remove the entire set of runtime classes"])
def test_a_request_for_all_of_them_finds_the_collections_delete(query: str) -> None:
    """'all', 'every', 'entire' name the whole collection: its delete is what they ask for, not a variant the request
    leaves unsaid (the item's delete came first, and for 'wipe out all …' the create too)."""
    assert _first(query) == "k.deleteNodeV1CollectionRuntimeClass"


def test_a_request_for_one_finds_the_items_delete() -> None:
    """Without such a word the plainer sibling, on one item, still comes first."""
    assert _first("delete a runtime class") == "k.deleteNodeV1RuntimeClass"


def test_the_collection_is_read_from_the_paths() -> None:
    """The variant is the collection's because its path ends at the collection and its sibling's at an item."""
    index = SearchIndex(RUNTIME_CLASSES)
    assert index.collective == [False, True, False]


def test_clearing_out_is_deleting() -> None:
    """'clear out' (a phrasal verb: to empty a place of what is not wanted) asks for a delete, as 'get rid of' and
    'clean up' do; read word by word, 'clear' is an unknown verb and 'all' made it a list."""
    events = [
        SearchDocument(key="k.listCoreV1NamespacedEvent", connector="k", name="listCoreV1NamespacedEvent",
                       summary="list or watch objects of kind Event", http_method="GET",
                       http_path="/api/v1/namespaces/{namespace}/events", returns="EventList"),
        SearchDocument(key="k.deleteCoreV1CollectionNamespacedEvent", connector="k",
                       name="deleteCoreV1CollectionNamespacedEvent", summary="delete collection of Event",
                       http_method="DELETE", http_path="/api/v1/namespaces/{namespace}/events", returns="Status"),
    ]
    ranked = SearchIndex(events).rank("clear out all the old events in the ci namespace", limit=1)[0]
    assert ranked[0][0] == "k.deleteCoreV1CollectionNamespacedEvent"


SERVICES = [
    SearchDocument(key="k.listCoreV1NamespacedService", connector="k", name="listCoreV1NamespacedService",
                   summary="list or watch objects of kind Service", http_method="GET",
                   http_path="/api/v1/namespaces/{namespace}/services", returns="ServiceList"),
    SearchDocument(key="k.listCoreV1ServiceForAllNamespaces", connector="k", name="listCoreV1ServiceForAllNamespaces",
                   summary="list or watch objects of kind Service", http_method="GET", http_path="/api/v1/services",
                   returns="ServiceList"),
    *(SearchDocument(key=f"k.listCoreV1Namespaced{kind}", connector="k", name=f"listCoreV1Namespaced{kind}",
                     summary=f"list or watch objects of kind {kind}", http_method="GET",
                     http_path=f"/api/v1/namespaces/{{namespace}}/{kind.lower()}s", returns=f"{kind}List")
      for kind in ("Pod", "Secret", "ConfigMap", "Endpoints", "Event")),
]


@pytest.mark.parametrize("query", ["show the services in whatever namespace", "services in every namespace",
                                   "list services across all the namespaces"])
def test_a_request_spanning_a_scope_finds_the_method_that_needs_none(query: str) -> None:
    """'whatever namespace', 'every namespace': the method that needs no namespace, not one that asks for one (a
    scope most of the connector's methods share, so never held against them otherwise)."""
    assert SearchIndex(SERVICES).rank(query, limit=1)[0][0][0] == "k.listCoreV1ServiceForAllNamespaces"


def test_a_request_in_one_scope_keeps_the_scoped_method_first() -> None:
    assert SearchIndex(SERVICES).rank("list services in the web namespace", limit=1)[0][0][0] == \
        "k.listCoreV1NamespacedService"


@pytest.mark.parametrize(("query", "spanned"), [("in every namespace", {"namespac"}),
                                               ("whatever namespace", {"namespac"}),
                                               ("across all the namespaces", {"namespac"}),
                                               ("every service in the web namespace", set()),
                                               ("all namespaces' names", {"namespac"})])
def test_the_scopes_a_request_spans(query: str, spanned: set[str]) -> None:
    """A word for all of them right before (one word between at most) a word a method's scope is named by."""
    assert SearchIndex(SERVICES)._spanned(query) == spanned


def test_rolling_out_is_deploying() -> None:
    """'roll out' (to make a new version available, as 'roll back' undoes it) asks for a deployment; word by word
    the request says nothing the deployment's create has but the namespace its siblings take too."""
    docs = [
        SearchDocument(key=f"k.createAppsV1Namespaced{kind}", connector="k", name=f"createAppsV1Namespaced{kind}",
                       summary=f"create a {kind}", http_method="POST",
                       http_path=f"/apis/apps/v1/namespaces/{{namespace}}/{kind.lower()}s")
        for kind in ("Binding", "Deployment", "Eviction", "Lease", "Secret")
    ]
    ranked = SearchIndex(docs).rank("roll out nginx 1.27 in the web namespace", limit=1)[0]
    assert ranked[0][0] == "k.createAppsV1NamespacedDeployment"
