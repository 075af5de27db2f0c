"""Discovery: natural-language search, targeted describe, and the model-facing tool."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, Connector, InProcessExecutor, OpenApiConnector, Tool, tool
from tests.support import Shop, echo

pytestmark = pytest.mark.anyio


class Github(Connector):
    name = "github"
    instructions = "GitHub: repositories, issues and pull requests."

    def __init__(self, extra: int = 0) -> None:
        self.extra = extra

    def tools(self) -> dict[str, Tool]:
        schema: dict[str, Any] = {"type": "object", "properties": {
            "owner": {"type": "string"}, "repo": {"type": "string"},
            "state": {"type": "string", "enum": ["open", "closed"]}}, "required": ["owner", "repo"]}
        out = {
            "list_pull_requests": tool(echo, description="List pull requests in a repository.", input_schema=schema),
            "create_issue": tool(echo, description="Create an issue.", input_schema=schema, requires_approval=True),
            "get_repository": tool(echo, description="Get a repository.", input_schema=schema),
            "delete_branch": tool(echo, description="Delete a branch.", input_schema=schema),
        }
        for i in range(self.extra):
            out[f"generated_operation_{i}"] = tool(echo, description=f"Generated operation number {i}.")
        return out


def runtime(*connectors: Connector) -> CodemodeRuntime:
    return CodemodeRuntime(list(connectors), store="sqlite://", executor=InProcessExecutor())


@pytest.mark.parametrize(("query", "expected"), [
    ("open pull requests", "github.list_pull_requests"),
    ("delete a branch", "github.delete_branch"),
    ("remove an item", "shop.delete_item"),
    ("fetch one item by its id", "shop.get_item"),
    ("new issue", "github.create_issue"),
])
async def test_natural_language_queries(query: str, expected: str) -> None:
    """Natural-language queries rank the intended method first."""
    async with runtime(Github(), Shop()) as rt:
        out = await rt.search(query)
        assert out.results[0].path == expected
        assert out.results[0].kind == "method"


async def test_search_reports_total_and_truncation() -> None:
    """Search returns at most 10 results and says how many matched."""
    async with runtime(Github(extra=30)) as rt:
        out = await rt.search("generated operation")
        assert len(out.results) == 10 and out.total >= 30 and out.truncated is True
        assert all(r.method.startswith("generated_operation_") for r in out.results)
        assert out.results[0].requires_approval is False
        inside = await rt.execute("r = codemode.search('create issue')\n[r['total'], r['results'][0]['path']]")
        assert inside["result"][1] == "github.create_issue"


async def test_describe_method_is_valid_targeted_python() -> None:
    """describe('conn.method') returns valid Python for that method only."""
    async with runtime(Github(extra=5), Shop()) as rt:
        out = await rt.describe("github.create_issue")
        ast.parse(out.types)
        assert out.kind == "method" and out.requires_approval is True
        assert "def create_issue(" in out.types and "generated_operation" not in out.types
        conn = await rt.describe("github")
        ast.parse(conn.types)
        assert conn.kind == "connector" and "list_pull_requests" in conn.types
        with pytest.raises(LookupError, match=r"codemode\.search"):
            await rt.describe("github.nothing")
        inside = await rt.execute("codemode.describe('nope')")
        assert inside["result"]["kind"] == "not_found" and "'nope' not found" in inside["result"]["error"]


async def test_tool_description_does_not_grow_with_methods() -> None:
    """The model-facing tool lists connector names and hints, never methods."""
    async with runtime(Github(extra=0)) as small, runtime(Github(extra=500)) as big:
        a, b = small.tool(), big.tool(connector_hints={"github": "code hosting"})
        assert a.name == "codemode"
        assert "github" in a.description and "list_pull_requests" not in a.description
        assert len(b.description) - len(a.description) < 40
        assert "code hosting" in b.description
        assert a.input_schema == {"type": "object", "properties": {"code": {
            "type": "string", "description": "Python source; the last expression is the result."}},
            "required": ["code"], "additionalProperties": False}
        assert "async" in a.description and "'_'" in a.description
        out = await a("sum([1, 2])")
        assert out["status"] == "completed" and out["result"] == 3


def _operation(operation_id: str, summary: str, description: str = "") -> dict[str, Any]:
    return {"operationId": operation_id, "summary": summary, "description": description,
            "responses": {"200": {"description": "OK"}}}


def _path_parameters(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in names]


PULLS_API: dict[str, Any] = {
    "openapi": "3.0.3", "info": {"title": "pulls", "version": "1"},
    "paths": {
        "/repos/{owner}/{repo}/pulls": {"parameters": _path_parameters("owner", "repo"),
                                        "get": _operation("pulls_list", "List pull requests")},
        "/repos/{owner}/{repo}/commits/{commit_sha}/pulls": {
            "parameters": _path_parameters("owner", "repo", "commit_sha"),
            "get": _operation("repos_list_pull_requests_associated_with_commit",
                              "List pull requests associated with a commit",
                              "The open or merged pull requests of the repository that brought the commit in.")},
        **{f"/{r}": {"get": _operation(f"{r}_get", f"Get {r}")} for r in ("gists", "emojis", "meta", "user")},
    },
}


async def test_search_prefers_the_sibling_whose_scopes_the_request_names() -> None:
    """Through a real OpenAPI connector: 'pull requests of a repository' ranks the repository's list first."""
    async with runtime(OpenApiConnector("github", PULLS_API, base_url="http://127.0.0.1:9")) as rt:
        out = await rt.search("list the pull requests of a repository", limit=2)
        assert [r.path for r in out.results] == ["github.pulls_list",
                                                 "github.repos_list_pull_requests_associated_with_commit"]
        named = await rt.search("pull requests that brought a commit in", limit=1)
        assert named.results[0].path == "github.repos_list_pull_requests_associated_with_commit"


def _sid(name: str, prefix: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True,
            "schema": {"type": "string", "pattern": f"^{prefix}[0-9a-fA-F]{{32}}$"}}


CALLS_API: dict[str, Any] = {
    "openapi": "3.0.3", "info": {"title": "calls", "version": "1"},
    "paths": {
        "/Accounts/{AccountSid}/Conferences/{Sid}.json": {
            "parameters": [_sid("AccountSid", "AC"), _sid("Sid", "CF")],
            "get": _operation("FetchConference", "Fetch an instance of a conference"),
            "post": _operation("UpdateConference", "Update a conference")},
        "/Accounts/{AccountSid}/Conferences.json": {
            "parameters": [_sid("AccountSid", "AC")],
            "get": _operation("ListConference", "Retrieve a list of conferences belonging to the account")},
        "/Accounts/{AccountSid}/Queues/{Sid}.json": {
            "parameters": [_sid("AccountSid", "AC"), _sid("Sid", "QU")],
            "get": _operation("FetchQueue", "Fetch an instance of a queue identified by the QueueSid"),
            "post": _operation("UpdateQueue", "Update the queue with the new parameters")},
        "/Accounts/{AccountSid}/Queues.json": {
            "parameters": [_sid("AccountSid", "AC")],
            "post": _operation("CreateQueue", "Create a queue")},
    },
}


async def test_search_reads_a_quoted_identifier_as_its_resource() -> None:
    """Through a real OpenAPI connector: the parameters' patterns say CF… is a conference and QU… a queue, and a
    method that takes the quoted identifier comes first."""
    async with runtime(OpenApiConnector("calls", CALLS_API, base_url="http://127.0.0.1:9")) as rt:
        going = await rt.search("is CF0123 still going?", limit=1)
        assert going.results[0].path == "calls.FetchConference"
        bigger = await rt.search("raise the max size of QU42 to 200", limit=1)
        assert bigger.results[0].path == "calls.UpdateQueue"


BILLING_API: dict[str, Any] = {
    "openapi": "3.0.3", "info": {"title": "billing", "version": "1"},
    "paths": {
        "/v1/plans": {"post": _operation(
            "PostPlans", "Creates a plan.",
            "Plans define the base price, currency, and interval for recurring purchases of products.")},
        "/v1/plans/{plan}": {"parameters": _path_parameters("plan"), "post": _operation(
            "PostPlansPlan", "Updates the specified plan by setting the values of the parameters passed.",
            "A plan's monthly billing amount or interval cannot be changed; its nickname can.")},
        **{f"/v1/{r}": {"get": _operation(f"Get{r.title()}", f"Returns a list of your {r}.")}
           for r in ("coupons", "payouts", "disputes", "refunds", "products")},
    },
}


async def test_search_reads_a_create_that_names_no_item_as_the_collection_s() -> None:
    """Through a real OpenAPI connector whose names start with their HTTP method (PostPlansPlan reads as a create
    like PostPlans): 'add a monthly billing plan' names no plan, so the POST on the collection comes first."""
    async with runtime(OpenApiConnector("stripe", BILLING_API, base_url="http://127.0.0.1:9")) as rt:
        new = await rt.search("add a monthly billing plan", limit=2)
        assert [r.path for r in new.results] == ["stripe.PostPlans", "stripe.PostPlansPlan"]
        change = await rt.search("change the nickname of plan 42", limit=1)
        assert change.results[0].path == "stripe.PostPlansPlan"
