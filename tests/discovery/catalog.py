"""A catalog shaped like real APIs (GitHub, Kubernetes, Gmail, Stripe names and summaries) for discovery specs."""

from __future__ import annotations

from typing import Any

from codemode_kernel import Connector, Tool, tool


def _echo(**kwargs: Any) -> dict[str, Any]:
    return kwargs


# name -> (summary, required argument names, HTTP line, needs approval)
METHODS: dict[str, dict[str, tuple[str, tuple[str, ...], str, bool]]] = {
    "github": {
        "pulls_list": ("List pull requests", ("owner", "repo"), "GET /repos/{owner}/{repo}/pulls", False),
        "pulls_create": ("Create a pull request", ("owner", "repo", "head", "base"),
                         "POST /repos/{owner}/{repo}/pulls", True),
        "pulls_merge": ("Merge a pull request", ("owner", "repo", "pull_number"),
                        "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", True),
        "issues_create": ("Create an issue", ("owner", "repo", "title"), "POST /repos/{owner}/{repo}/issues", True),
        "issues_list_for_repo": ("List repository issues", ("owner", "repo"), "GET /repos/{owner}/{repo}/issues",
                                 False),
        "repos_get": ("Get a repository", ("owner", "repo"), "GET /repos/{owner}/{repo}", False),
        "repos_delete": ("Delete a repository", ("owner", "repo"), "DELETE /repos/{owner}/{repo}", True),
        "activity_star_repo_for_authenticated_user": (
            "Star a repository for the authenticated user", ("owner", "repo"), "PUT /user/starred/{owner}/{repo}",
            True),
        "activity_list_repos_starred_by_user": ("List repositories starred by a user", ("username",),
                                                "GET /users/{username}/starred", False),
        "gists_create": ("Create a gist", ("files",), "POST /gists", True),
        "users_get_authenticated": ("Get the authenticated user", (), "GET /user", False),
    },
    "kubernetes": {
        "listCoreV1Namespace": ("list or watch objects of kind Namespace", (), "GET /api/v1/namespaces", False),
        "listAppsV1DeploymentForAllNamespaces": ("list or watch objects of kind Deployment", (),
                                                 "GET /apis/apps/v1/deployments", False),
        "listBatchV1JobForAllNamespaces": ("list or watch objects of kind Job", (), "GET /apis/batch/v1/jobs", False),
        "listCoreV1PodForAllNamespaces": ("list or watch objects of kind Pod", (), "GET /api/v1/pods", False),
        "readCoreV1NamespacedPodLog": ("read log of the specified Pod", ("name", "namespace"),
                                       "GET /api/v1/namespaces/{namespace}/pods/{name}/log", False),
        "deleteCoreV1NamespacedPod": ("delete a Pod", ("name", "namespace"),
                                      "DELETE /api/v1/namespaces/{namespace}/pods/{name}", True),
    },
    "gmail": {
        "gmail_users_messages_send": ("Sends the specified message to the recipients in the To, Cc, and Bcc headers.",
                                      ("userId",), "POST /gmail/v1/users/{userId}/messages/send", True),
        "gmail_users_messages_trash": ("Moves the specified message to the trash.", ("userId", "id"),
                                       "POST /gmail/v1/users/{userId}/messages/{id}/trash", True),
        "gmail_users_labels_create": ("Creates a new label.", ("userId",), "POST /gmail/v1/users/{userId}/labels",
                                      True),
        "gmail_users_labels_list": ("Lists all labels in the user's mailbox.", ("userId",),
                                    "GET /gmail/v1/users/{userId}/labels", False),
    },
    "stripe": {
        "PostCustomers": ("<p>Creates a new customer object.</p>", (), "POST /v1/customers", True),
        "GetCustomers": ("<p>Returns a list of your customers.</p>", (), "GET /v1/customers", False),
        "PostRefunds": ("<p>Create a refund.</p>", (), "POST /v1/refunds", True),
        "PostIssuingCards": ("<p>Creates an Issuing <code>Card</code> object.</p>", (), "POST /v1/issuing/cards",
                             True),
        "PostIssuingCardholders": ("<p>Creates a new Issuing <code>Cardholder</code> object.</p>", (),
                                   "POST /v1/issuing/cardholders", True),
    },
}


class ApiConnector(Connector):
    """One API of :data:`METHODS`, its methods described the way OpenApiConnector describes operations."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.instructions = f"The {name} API."

    def tools(self) -> dict[str, Tool]:
        out = {}
        for method, (summary, required, http, approval) in METHODS[self.name].items():
            props = {p: {"type": "string", "description": f"The {p} of the call."} for p in required}
            props["per_page"] = {"type": "integer", "description": "Results per page."}
            schema = {"type": "object", "properties": props, "required": list(required)}
            out[method] = tool(_echo, description=f"{summary}\n\nHTTP: {http}", input_schema=schema,
                               requires_approval=approval)
        return out


def connectors() -> list[Connector]:
    return [ApiConnector(name) for name in METHODS]
