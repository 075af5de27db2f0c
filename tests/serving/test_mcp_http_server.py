"""`codemode mcp --http`: streamable HTTP behind a bearer token, with the SDK's client (a real server process)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.serving.serving_support import (
    ADD_ONE,
    ADD_TWO,
    CODEMODE,
    HttpServer,
    Person,
    applied,
    http_client,
    make_project,
    server_env,
    start_http_server,
    stop,
)

pytestmark = pytest.mark.anyio

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


@pytest.fixture
def notebook(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def server(notebook: Path) -> Iterator[HttpServer]:
    running = start_http_server(notebook)
    yield running
    stop(running)


async def test_requests_without_the_token_are_refused(server: HttpServer) -> None:
    """No token, a wrong token or a token without `Bearer` get 401 and never reach the MCP app."""
    assert server.token is not None and len(server.token) >= 32
    async with httpx2.AsyncClient() as http:
        answers = [
            await http.post(server.url, json=INITIALIZE, headers=headers)
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": server.token},
                            {"Authorization": f"Bearer {server.token}x"})
        ]
    assert [a.status_code for a in answers] == [401, 401, 401, 401]
    assert all(a.headers["www-authenticate"].startswith("Bearer") for a in answers)
    assert "Authorization: Bearer <token>" in answers[0].json()["error_description"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_person_accepts_through_the_client(server: HttpServer, notebook: Path, mode: str) -> None:
    """Over HTTP each pause asks the person; accepting runs each call exactly once."""
    person = Person()
    assert server.token is not None
    async with http_client(server.url, server.token, person, mode) as client:
        out = await client.call_tool("codemode", {"code": ADD_TWO})
    assert out.is_error is False and out.structured_content is not None
    assert out.structured_content["result"] == ["one", "two"]
    assert applied(notebook.parent) == ["one", "two"] and len(person.asked) == 2


async def test_declines_and_dismissals(server: HttpServer, notebook: Path) -> None:
    """Decline rejects; accept with the box unticked rejects; cancel decides nothing and leaves it paused."""
    assert server.token is not None
    outcomes = {}
    for name, person in {"decline": Person(action="decline"), "untick": Person(approve=False),
                         "cancel": Person(action="cancel")}.items():
        async with http_client(server.url, server.token, person) as client:
            outcomes[name] = await client.call_tool("codemode", {"code": ADD_ONE})
        assert len(person.asked) == 1
    assert [(o.structured_content or {})["status"] for o in outcomes.values()] == ["rejected", "rejected", "paused"]
    assert [o.is_error for o in outcomes.values()] == [True, True, False]
    step = (outcomes["cancel"].structured_content or {})["next_step"]
    assert step.startswith("The person dismissed the approval question") and "A person must approve" in step
    assert applied(notebook.parent) == []


async def test_without_elicitation_paused_and_followed_from_another_connection(server: HttpServer,
                                                                               notebook: Path) -> None:
    """No elicitation: paused with the next step; the person approves; a new connection with the token follows it."""
    assert server.token is not None
    async with http_client(server.url, server.token) as client:
        out = await client.call_tool("codemode", {"code": ADD_ONE})
    assert out.structured_content is not None and out.structured_content["status"] == "paused"
    assert "A person must approve" in out.structured_content["next_step"]
    eid = out.structured_content["execution_id"]
    approved = subprocess.run([CODEMODE, "--notebook", str(notebook), "approve", eid], cwd=notebook.parent,
                              env=server_env(), capture_output=True, text=True, timeout=120, input="y\n")
    assert approved.returncode == 0, approved.stderr
    async with http_client(server.url, server.token) as client:
        done = await client.call_tool("codemode_status", {"execution_id": eid, "wait_seconds": 30})
    assert done.structured_content == {"status": "completed", "execution_id": eid, "result": "one"}
    assert applied(notebook.parent) == ["one"]


async def test_token_from_the_environment_is_not_printed(notebook: Path) -> None:
    """CODEMODE_MCP_TOKEN is the token; the server does not echo it."""
    token = "a-token-chosen-by-the-person-0123"
    running = start_http_server(notebook, env=server_env(CODEMODE_MCP_TOKEN=token), expect_token=False)
    try:
        async with http_client(running.url, token) as client:
            out = await client.call_tool("codemode", {"code": "tasks.list_tasks()"})
        assert out.structured_content is not None and out.structured_content["status"] == "completed"
    finally:
        stop(running)
    assert token not in running.stderr.read_text()


@pytest.mark.parametrize(("args", "env", "said"), [
    (["--http", "0.0.0.0:0"], {}, "is not a loopback address"),
    (["--http", "192.168.1.10:8765"], {}, "pass --allow-remote if you mean it"),
    (["--http", "127.0.0.1"], {}, "--http needs HOST:PORT"),
    (["--http", "127.0.0.1:0"], {"CODEMODE_MCP_TOKEN": "short"}, "use at least 16"),
])
def test_refused_before_serving(notebook: Path, args: list[str], env: dict[str, str], said: str) -> None:
    """A non-loopback bind (without --allow-remote), a bad address or a short token stop the command with usage."""
    done = subprocess.run([CODEMODE, "--notebook", str(notebook), "mcp", *args], cwd=notebook.parent,
                          env=server_env(**env), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert said in done.stderr.replace("\n", " ")
