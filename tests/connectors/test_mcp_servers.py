"""McpConnector against real server processes: stdio, streamable HTTP, third-party servers, failures."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.connectors.base import ExecutionContext
from codemode_kernel.connectors.mcp import McpConnector
from codemode_kernel.errors import ConfigurationError, ConnectorError
from tests.connectors.services import TOKEN, Service

pytestmark = pytest.mark.anyio

CTX = ExecutionContext("exec-1", 0, "notes", "m")
DEMO = [sys.executable, "-m", "codemode_kernel.demo.mcp_server"]
BIN = Path(sys.executable).parent


def demo_stdio(*extra: str, **kw: Any) -> McpConnector:
    return McpConnector("notes", command=DEMO[0], args=[*DEMO[1:], *extra], **kw)


_CATALOGS: dict[int, Any] = {}


async def call(connector: McpConnector, name: str, **args: Any) -> Any:
    """Call a method the way the runtime does: the catalog is listed once per connector."""
    if id(connector) not in _CATALOGS:
        _CATALOGS[id(connector)] = await connector.tools()
    return await _CATALOGS[id(connector)][name].execute(args, CTX)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_stdio_server_is_started_once_and_reused() -> None:
    """Calls share one server process (state persists between them); aclose stops it."""
    connector = demo_stdio()
    try:
        first = await call(connector, "whoami")
        await call(connector, "add_note", title="kept")
        assert await call(connector, "list_notes") == [{"id": 1, "title": "kept", "body": "", "tags": []}]
        assert await call(connector, "whoami") == first
    finally:
        await connector.aclose()
    deadline = time.monotonic() + 10
    while alive(first["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(first["pid"])


async def test_a_dead_server_fails_that_call_clearly_and_the_next_call_reconnects() -> None:
    """The call that finds the process dead fails; the next one starts a new process."""
    connector = demo_stdio("--allow-crash")
    try:
        before = await call(connector, "whoami")
        with pytest.raises(ConnectorError, match=r"notes\.crash: the connection to the MCP server 'notes' was lost "
                                                 r".*the next call reconnects"):
            await call(connector, "crash")
        after = await call(connector, "whoami")
        assert after["pid"] != before["pid"]
        assert await call(connector, "list_notes") == []
    finally:
        await connector.aclose()


async def test_a_killed_server_is_noticed_on_the_next_call() -> None:
    """A server killed from outside between calls: one clear failure, then a fresh process."""
    connector = demo_stdio()
    try:
        pid = (await call(connector, "whoami"))["pid"]
        os.kill(pid, 9)
        while alive(pid):
            time.sleep(0.02)
        with pytest.raises(ConnectorError, match="was lost"):
            await call(connector, "whoami")
        assert (await call(connector, "whoami"))["pid"] != pid
    finally:
        await connector.aclose()


async def test_a_hanging_call_times_out_and_the_connection_stays_usable() -> None:
    """A call slower than ``timeout`` fails with a timeout error; later calls still work."""
    connector = demo_stdio(timeout=0.5)
    try:
        started = time.monotonic()
        with pytest.raises(ConnectorError, match=r"did not answer within 0\.5 s \(timeout\)"):
            await call(connector, "slow", seconds=20)
        assert time.monotonic() - started < 6
        assert await call(connector, "word_count", text="still here") == 2
    finally:
        await connector.aclose()


async def test_a_server_that_fails_to_start_shows_its_stderr() -> None:
    """Listing tools of a server that exits at once is a ConfigurationError quoting its stderr."""
    script = "import sys; sys.stderr.write('fatal: cannot read settings.toml\\n'); sys.exit(2)"
    connector = McpConnector("broken", command=sys.executable, args=["-c", script])
    with pytest.raises(ConfigurationError, match=r"(?s)MCP server 'broken' .* could not be started.*"
                                                 r"fatal: cannot read settings\.toml"):
        await connector.tools()
    missing = McpConnector("missing", command="/nonexistent/mcp-server")
    with pytest.raises(ConfigurationError, match="could not be started: FileNotFoundError"):
        await missing.tools()


async def test_a_server_that_never_answers_hits_the_connect_timeout() -> None:
    """A process that never speaks MCP is given up after ``connect_timeout``."""
    connector = McpConnector("mute", command=sys.executable, args=["-c", "import time; time.sleep(60)"],
                             connect_timeout=1)
    started = time.monotonic()
    with pytest.raises(ConfigurationError, match=r"did not finish starting within 1 s"):
        await connector.tools()
    assert time.monotonic() - started < 15


async def test_streamable_http_with_headers_from_the_environment(mcp_http_service: Service,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A URL server gets headers with ${VAR} read from the host environment."""
    monkeypatch.setenv("NOTES_TOKEN", TOKEN)
    connector = McpConnector("notes", url=mcp_http_service.url, headers={"Authorization": "Bearer ${NOTES_TOKEN}"})
    try:
        note = await call(connector, "add_note", title="over http")
        assert note["title"] == "over http"
        assert await call(connector, "word_count", text="a b c d") == 4
    finally:
        await connector.aclose()


async def test_streamable_http_with_a_missing_variable_or_a_wrong_token(mcp_http_service: Service,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing variable is named; a refused token is a clear start failure."""
    monkeypatch.delenv("NOTES_TOKEN", raising=False)
    connector = McpConnector("notes", url=mcp_http_service.url, headers={"Authorization": "Bearer ${NOTES_TOKEN}"})
    with pytest.raises(ConfigurationError, match=r"uses \$\{NOTES_TOKEN\}, but the environment variable NOTES_TOKEN "
                                                 r"is not set"):
        await connector.tools()
    wrong = McpConnector("notes", url=mcp_http_service.url, headers={"Authorization": "Bearer nope"},
                         connect_timeout=10)
    with pytest.raises(ConfigurationError, match="could not be started"):
        await wrong.tools()


async def test_unreachable_http_server_is_a_clear_error() -> None:
    """Nothing listening on the URL: a start failure naming the URL."""
    connector = McpConnector("notes", url="http://127.0.0.1:9/mcp", connect_timeout=10)
    with pytest.raises(ConfigurationError, match=r"MCP server 'notes' \(url http://127\.0\.0\.1:9/mcp\) could not "
                                                 "be started"):
        await connector.tools()


async def test_mcp_server_time() -> None:
    """The third-party mcp-server-time: tools, structured results, read-only annotations."""
    connector = McpConnector("time", command=str(BIN / "mcp-server-time"), args=["--local-timezone", "UTC"],
                             approval_from_annotations=True)
    try:
        tools = await connector.tools()
        assert {"get_current_time", "convert_time"} <= set(tools)
        assert not any(t.requires_approval for t in tools.values())
        result = await tools["convert_time"].execute(
            {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}, CTX)
        assert result["target"]["timezone"] == "Asia/Tokyo"
        assert result["target"]["datetime"].endswith("21:00:00+09:00")
        with pytest.raises(ConnectorError, match="Invalid timezone"):
            await tools["get_current_time"].execute({"timezone": "Mars/Olympus_Mons"}, CTX)
    finally:
        await connector.aclose()


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Test"], ["config", "user.email", "t@x.org"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    (repo / "README.md").write_text("hello\n")
    subprocess.run(["git", "add", "README.md"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "first"], cwd=repo, check=True, env=env)
    return repo


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_mcp_server_git_tools_and_approval_rules(git_repo: Path) -> None:
    """The third-party mcp-server-git: its tools, and commit/reset needing approval by configuration."""
    connector = McpConnector("git", command=str(BIN / "mcp-server-git"), args=["--repository", str(git_repo)],
                             requires_approval=["git_commit", "git_reset", "git_create_branch", "git_checkout"])
    try:
        tools = await connector.tools()
        assert {"git_status", "git_log", "git_commit", "git_add"} <= set(tools)
        assert tools["git_commit"].requires_approval and not tools["git_status"].requires_approval
        status = await tools["git_status"].execute({"repo_path": str(git_repo)}, CTX)
        assert "nothing to commit" in str(status)
    finally:
        await connector.aclose()
