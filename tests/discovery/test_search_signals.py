"""The ranking signals beyond one method's own words: the connector model, the glossary, result pages (issue 13)."""

from __future__ import annotations

from codemode_kernel.discovery.lexicon import expand
from codemode_kernel.discovery.search import SearchDocument, SearchIndex, result_text
from codemode_kernel.discovery.text import stems


def _doc(connector: str, name: str, summary: str) -> SearchDocument:
    return SearchDocument(key=f"{connector}.{name}", connector=connector, name=name, summary=summary)


CHAT_AND_SMS = [
    _doc("chat", "delete_message", "Deletes a message."),
    _doc("chat", "conversations_list", "Lists all channels in a workspace."),
    _doc("chat", "conversations_join", "Joins an existing channel."),
    _doc("chat", "conversations_archive", "Archives a channel."),
    _doc("sms", "DeleteMessage", "Deletes a message."),
    _doc("sms", "ListIncomingPhoneNumber", "Retrieve a list of incoming phone numbers."),
    _doc("sms", "CreateCall", "Create a new outgoing call to a phone."),
]


def test_the_whole_request_says_which_connector_is_meant() -> None:
    """P(connector | request) follows the words a connector's methods use, even those the method itself lacks."""
    index = SearchIndex(CHAT_AND_SMS)
    in_a_channel = index.connector_odds("delete a message in a channel")
    to_a_phone = index.connector_odds("delete a message sent to a phone")
    assert in_a_channel["chat"] > in_a_channel["sms"]
    assert to_a_phone["sms"] > to_a_phone["chat"]
    assert abs(sum(in_a_channel.values()) - 1.0) < 1e-9


def test_a_method_ambiguous_alone_is_ranked_by_its_connector_fit() -> None:
    """Two methods alike ('delete a message'): the one whose connector explains the rest of the request is first."""
    index = SearchIndex(CHAT_AND_SMS)
    assert index.rank("delete a message in a channel", limit=1)[0][0][0] == "chat.delete_message"
    assert index.rank("delete a message sent to a phone", limit=1)[0][0][0] == "sms.DeleteMessage"


def test_a_word_of_the_glossary_finds_the_resource_the_api_names_otherwise() -> None:
    """No document says 'firewall': the glossary reads it as a network policy, spelled as the API splits it."""
    docs = [
        _doc("kubernetes", "createNetworkingV1NamespacedNetworkPolicy", "create a NetworkPolicy"),
        _doc("kubernetes", "createCoreV1NamespacedService", "create a Service"),
        _doc("kubernetes", "createCoreV1NamespacedPod", "create a Pod"),
        _doc("kubernetes", "createPolicyV1NamespacedPodDisruptionBudget", "create a PodDisruptionBudget"),
    ]
    ranked, _total = SearchIndex(docs).rank("add a firewall", limit=2)
    assert ranked[0][0] == "kubernetes.createNetworkingV1NamespacedNetworkPolicy"


def test_the_words_of_a_compound_do_not_bring_in_its_group() -> None:
    """'policy' alone is not a firewall: only a group's single words expand to a compound's words."""
    assert "firewal" not in {t for t, _w, _src in expand(stems("policy"))}
    assert {"network", "policy"} <= {t for t, _w, _src in expand(stems("firewall"))}


PAGE_OF_PODS = {
    "$ref": "#/$defs/PodList",
    "$defs": {
        "PodList": {"description": "PodList is a list of Pods.",
                    "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Pod"}},
                                   "kind": {"type": "string"}}},
        "Pod": {"description": "Pod is a collection of containers that can run on a host. Pods are scheduled onto "
                               "nodes. A pod's containers share a network. Fourth sentence.",
                "properties": {"spec": {"type": "object"}}},
    },
}


def test_a_page_of_results_is_described_by_what_one_item_is() -> None:
    """A list method's result names its items' definition too ('a collection of containers'), in its first three
    sentences (round 7: the kinds' own descriptions say what the method's summary does not: "scheduled onto
    nodes")."""
    text = result_text(PAGE_OF_PODS)
    assert text.startswith("PodList PodList is a list of Pods.")
    assert "Pod is a collection of containers that can run on a host." in text
    assert "Pods are scheduled onto nodes. A pod's containers share a network." in text
    assert "Fourth" not in text


def test_a_result_s_later_sentences_find_the_method() -> None:
    """A word only the second sentence of a method's result type has ("handler") finds that method."""
    def doc(name: str, returns: str) -> SearchDocument:
        return SearchDocument(key=f"k8s.{name}", connector="k8s", name=name, summary=f"create a {name[6:]}",
                              returns=result_text({"$ref": "#/$defs/T", "$defs": {"T": {"description": returns}}}))

    docs = [
        doc("createRuntimeClass", "RuntimeClass defines a class of container runtime. The handler names the "
                                  "sandbox that runs the pod."),
        doc("createPriorityClass", "PriorityClass defines a mapping from a priority class name to a priority."),
        doc("createStorageClass", "StorageClass describes a class of storage."),
        doc("createIngressClass", "IngressClass represents the class of an Ingress."),
    ]
    assert SearchIndex(docs).rank("add a sandbox handler class", limit=1)[0][0][0] == "k8s.createRuntimeClass"


def test_covered_says_which_request_words_a_method_has() -> None:
    """The benchmark's miss report reads which words of a request a method's document has, in any spelling."""
    index = SearchIndex(CHAT_AND_SMS)
    have, lack = index.covered("remove a message about the outage", "chat.delete_message")
    assert have == ["remov", "messag"]
    assert lack == ["outag"]


def test_a_verb_that_makes_something_asks_for_a_create() -> None:
    """'upload' is a write: the method that adds a certificate beats the one that lists them."""
    docs = [_doc("c", "get_certificates", "Lists the signing certificates."),
            _doc("c", "post_certificate", "Adds a signing certificate.")]
    assert SearchIndex(docs).rank("upload a signing certificate", limit=1)[0][0][0] == "c.post_certificate"


def test_a_write_of_another_kind_is_closer_than_a_read() -> None:
    """'set a timer' (a change) is answered by adding one sooner than by listing them."""
    docs = [_doc("c", "all_timers", "Lists timers."), _doc("c", "timers_add", "Creates a timer.")]
    assert SearchIndex(docs).rank("set a timer", limit=1)[0][0][0] == "c.timers_add"


def test_a_verb_s_ing_form_meets_its_other_forms() -> None:
    """"provisioning" finds what is "provisioned": the stem keeps -ing (Billing, Issuing, Settings are nouns of
    their own), so the request's -ing word also brings in its verb's forms, below the word itself."""
    docs = [
        _doc("k8s", "listStorageV1StorageClass", "StorageClass describes a class of storage from which volumes are "
                                                   "provisioned dynamically."),
        _doc("k8s", "listCoreV1PersistentVolume", "list or watch objects of kind PersistentVolume"),
        *(_doc("k8s", f"listCoreV1{kind}", f"list or watch objects of kind {kind}")
          for kind in ("Pod", "Node", "Service", "Secret", "Namespace", "Event")),
    ]
    assert SearchIndex(docs).rank("list the provisioning options", limit=1)[0][0][0] == "k8s.listStorageV1StorageClass"


def test_everyday_words_reach_the_words_apis_use() -> None:
    """Dictionary synonyms (round 6): to overwrite is to replace, to fix a thing is to update it, the newest is the
    latest, to bring back from the bin is to restore (untrash), a pop-up form is a dialog (modal), a signing
    certificate is S/MIME."""
    def related(word: str) -> set[str]:
        return {t for t, _w, _src in expand(stems(word))}

    assert "replac" in related("overwrite") and "patch" not in related("overwrite")  # a whole new version
    assert "updat" in related("fix")
    assert "latest" in related("newest")
    assert "untrash" in related("restore")
    assert {"dialog", "modal"} <= related("popup")
    assert "smim" in related("certificate")


def test_ci_is_a_related_word_not_an_abbreviation_of_one_thing() -> None:
    """"CI" (continuous integration) covers runners, workflows and checks: it brings "workflow" in as a related word,
    below the request's own words, not as a spelled-out "workflow run" at full weight (round 6: "our CI box" is a
    runner)."""
    weights = {t: w for t, w, _src in expand(stems("ci"))}
    assert 0 < weights["workflow"] < 1
    assert weights.get("run", 0) < 1


def test_sha_is_not_spelled_out_as_a_commit() -> None:
    """A SHA is any hash (an artifact's sha256 digest, a blob's): "sha" is not read as "commit"."""
    assert "commit" not in {t for t, _w, _src in expand(stems("sha"))}


def test_quoted_text_is_a_value_not_words_for_the_method() -> None:
    """'invoice overdue' is what to search the chat for, not words of the method: the invoice search does not
    cover them; a request that is nothing but a quotation, or whose other words the catalog lacks, is still read."""
    docs = [
        _doc("chat", "search_messages", "Searches for messages matching a query."),
        _doc("pay", "GetInvoicesSearch", "Search for invoices you've previously created."),
        *(_doc("pay", f"Get{kind}", f"Returns a list of your {kind.lower()}.")
          for kind in ("Customers", "Charges", "Payouts", "Refunds", "Products", "Prices")),
    ]
    index = SearchIndex(docs)
    have, lack = index.covered("find where anyone mentioned 'invoice overdue' in chat", "pay.GetInvoicesSearch")
    assert "invoic" not in have + lack and "chat" in lack
    assert index.covered("find where anyone mentioned invoice overdue in chat", "pay.GetInvoicesSearch")[0] == [
        "find", "invoic"]
    assert index.rank('"search invoices"', limit=1)[0][0][0] == "pay.GetInvoicesSearch"
    assert index.rank("where did they write 'overdue invoices'?", limit=1)[0][0][0] == "pay.GetInvoicesSearch"


def test_a_generic_result_is_read_as_its_resource_s() -> None:
    """A result type most methods share (Kubernetes' Status) says nothing of the method: the delete of a collection
    also carries what its resource's other methods return (a StorageClass "can be dynamically provisioned"), so an
    everyday description of the resource finds it."""
    status = "Status Status is a return value for calls that don't return other objects."
    storage_class = "StorageClass StorageClass describes the parameters for a class of storage that is provisioned."

    def doc(name: str, verb: str, path: str, returns: str) -> SearchDocument:
        return SearchDocument(key=f"k8s.{name}", connector="k8s", name=name, summary=f"{verb.lower()} {name}",
                              http_method=verb, http_path=path, returns=returns)

    docs = [
        doc("deleteStorageV1CollectionStorageClass", "DELETE", "/apis/storage/v1/storageclasses", status),
        doc("createStorageV1StorageClass", "POST", "/apis/storage/v1/storageclasses", storage_class),
        doc("readStorageV1StorageClass", "GET", "/apis/storage/v1/storageclasses/{name}", storage_class),
        *(doc(f"deleteCoreV1Collection{kind}", "DELETE", f"/api/v1/{kind.lower()}s", status)
          for kind in ("Pod", "Node", "Secret", "Event", "Service", "Endpoints", "PersistentVolume")),
    ]
    index = SearchIndex(docs)
    assert index.rank("delete every provisioning profile", limit=1)[0][0][0] == (
        "k8s.deleteStorageV1CollectionStorageClass")
    have, _lack = index.covered("delete the provisioned ones", "k8s.deleteStorageV1CollectionStorageClass")
    assert "provision" in have
