"""Secrets never leave the host side (issue 10, item 5).

A connector's configured credentials (tokens, passwords, ``${VAR}`` expansions, auth headers,
an MCP server's env) stay on the host: whatever an upstream echoes back is redacted before it
reaches sandbox code, the journal or the model; an unavailable connector's command line and
stderr are for the notebook's author only; and a remote OpenAPI document cannot send the
credential to another host. Upstreams are real processes on 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor, McpConnector, OpenApiConnector
from codemode_kernel.connectors.base import ExecutionContext
from codemode_kernel.errors import ConfigurationError
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.connectors.services import Service, start

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
LEAKY_SERVER = str(Path(__file__).with_name("leaky_mcp_server.py"))
# Characters that URL-encoding changes, so the query-string echo tests the encoded form too.
TOKEN = "s3cr3t/" + secrets.token_hex(8) + "+@x"
PASSWORD = "pw-" + secrets.token_hex(8)


def encodings(secret: str, user: str = "me") -> list[str]:
    """The secret as an upstream might echo it: raw, URL-encoded, basic-auth base64."""
    return [secret, quote(secret, safe=""), base64.b64encode(f"{user}:{secret}".encode()).decode()]


def assert_nowhere(secret: str, *texts: str) -> None:
    for text in texts:
        for form in encodings(secret):
            assert form not in text, f"{form!r} leaked"


def journal_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.glob("journal.db*")))


def echo_service(*args: str) -> Service:
    return start("tests.security.echo_service", args, env={"PYTHONPATH": str(ROOT)})


@pytest.fixture(scope="module")
def echo() -> Iterator[Service]:
    service = echo_service()
    yield service
    service.stop()


def seen(service: Service) -> list[Any]:
    data: list[Any] = httpx.get(service.url + "/_debug/seen", timeout=10).json()
    return data


AUTHS = {
    "bearer": {"type": "bearer", "token_env": "ECHO_SECRET"},
    "basic": {"type": "basic", "username": "me", "password_env": "ECHO_SECRET"},
    "api_key_query": {"type": "api_key", "value_env": "ECHO_SECRET"},
}

CTX = ExecutionContext("exec-1", 0, "api", "profile")
CATCH = "try:\n    api.whoami()\nexcept ConnectorError as e:\n    seen = str(e)\nseen"


# -- 5a: what an upstream echoes is redacted -------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(AUTHS))
async def test_an_error_body_that_echoes_the_credential_reaches_neither_the_code_nor_the_journal(
        echo: Service, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 401 body quoting the Authorization header (or the query string) arrives redacted."""
    monkeypatch.setenv("ECHO_SECRET", TOKEN)
    api = OpenApiConnector("api", echo.url + "/openapi.json", auth=AUTHS[kind])
    async with CodemodeRuntime([api], store=f"sqlite:///{tmp_path / 'journal.db'}",
                               executor=SubprocessExecutor()) as rt:
        out = await rt.execute(CATCH)
        assert out["status"] == "completed", out
        assert "HTTP 401" in out["result"] and "[redacted]" in out["result"], out["result"]
        state = await rt.execution(out["execution_id"])
        assert state is not None
        assert_nowhere(TOKEN, out["result"], json.dumps(state.to_dict()))
    assert_nowhere(TOKEN, journal_bytes(tmp_path).decode("utf-8", "replace"))


async def test_a_result_that_echoes_the_credential_is_redacted(echo: Service, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A 200 result carrying the Authorization header back is redacted before the code sees it."""
    monkeypatch.setenv("ECHO_SECRET", TOKEN)
    api = OpenApiConnector("api", echo.url + "/openapi.json", auth=AUTHS["bearer"])
    async with CodemodeRuntime([api], store=f"sqlite:///{tmp_path / 'journal.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute("api.profile()")
        assert out["status"] == "completed", out
        assert out["result"]["seen"]["authorization"] == "Bearer [redacted]"
    assert_nowhere(TOKEN, json.dumps(out), journal_bytes(tmp_path).decode("utf-8", "replace"))


async def test_an_mcp_server_echoing_its_env_secrets_is_redacted(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A stdio server's error, result and tool description quoting its env secrets arrive redacted."""
    monkeypatch.setenv("HOST_LEAKY_TOKEN", TOKEN)
    leaky = McpConnector("leaky", command=sys.executable, args=[LEAKY_SERVER],
                         env={"LEAKY_TOKEN": "${HOST_LEAKY_TOKEN}", "SERVICE_PASSWORD": PASSWORD})
    async with CodemodeRuntime([leaky], store=f"sqlite:///{tmp_path / 'journal.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute("try:\n    leaky.login()\nexcept ConnectorError as e:\n    err = str(e)\n"
                               "[err, leaky.whoami()]")
        assert out["status"] == "completed", out
        err, who = out["result"]
        assert "401 Unauthorized: token [redacted] was refused (password [redacted] expired)" in err
        assert who == {"token": "[redacted]", "password": "[redacted]", "user": "svc"}
        described = (await rt.describe("leaky.status")).to_dict()
        found = (await rt.search("authenticates")).to_dict()
        assert "[redacted]" in json.dumps(described)
    for secret in (TOKEN, PASSWORD):
        assert_nowhere(secret, json.dumps(out), json.dumps(described), json.dumps(found),
                       journal_bytes(tmp_path).decode("utf-8", "replace"))


# -- 5b: an unavailable connector's details are for the author --------------------------------------

FAILING_SERVER = ("import sys; sys.stderr.write('TOKEN=tok-visible-to-author in /home/alice/.config/srv\\n'); "
                  "sys.exit(2)")


async def test_an_unavailable_connector_gives_the_model_a_short_reason(tmp_path: Path) -> None:
    """No command line, password, stderr or path reaches the model; the author's view keeps them."""
    broken = McpConnector("broken", command=sys.executable, args=["-c", FAILING_SERVER, "--password", PASSWORD])
    async with CodemodeRuntime([broken], store=f"sqlite:///{tmp_path / 'journal.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute("broken.anything()")
        assert out["status"] == "error"
        assert ("connector 'broken' is unavailable: its MCP server did not start; the notebook's author can see "
                "the details with %connectors") in out["error"], out["error"]
        state = await rt.execution(out["execution_id"])
        assert state is not None
        for leak in (PASSWORD, "--password", "TOKEN=", "/home/alice", sys.executable, "python"):
            assert leak not in out["error"], leak
            assert leak not in json.dumps(state.to_dict()), leak
        author = (await rt.catalog()).unavailable["broken"]
    assert "TOKEN=tok-visible-to-author" in author and "--password" in author
    assert PASSWORD not in author  # a configured secret is redacted even for the author


async def test_a_lost_mcp_server_does_not_hand_its_command_or_stderr_to_the_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that dies mid-call: the code learns it was lost, not its command line or last words."""
    monkeypatch.setenv("HOST_LEAKY_TOKEN", TOKEN)
    leaky = McpConnector("leaky", command=sys.executable, args=[LEAKY_SERVER],
                         env={"LEAKY_TOKEN": "${HOST_LEAKY_TOKEN}"})
    async with CodemodeRuntime([leaky], store=f"sqlite:///{tmp_path / 'journal.db'}",
                               executor=InProcessExecutor()) as rt:
        out = await rt.execute("try:\n    leaky.crash()\nexcept ConnectorError as e:\n    err = str(e)\nerr")
        assert out["status"] == "completed", out
        assert "leaky.crash: the connection to the MCP server 'leaky' was lost" in out["result"]
        for leak in ("TOKEN=", "waiting for approval", LEAKY_SERVER, sys.executable, "\x1b"):
            assert leak not in out["result"], leak
    assert_nowhere(TOKEN, journal_bytes(tmp_path).decode("utf-8", "replace"))


# -- 5c: a remote document cannot redirect the credential ------------------------------------------


async def test_a_remote_document_naming_another_origin_never_receives_the_credential(
        echo: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    """With auth and a remote document whose servers[0] is another origin, base_url is required."""
    monkeypatch.setenv("ECHO_SECRET", TOKEN)
    host = echo_service("--servers-url", echo.url)  # the document sends requests to `echo`
    try:
        before = len(seen(echo))
        api = OpenApiConnector("api", host.url + "/openapi.json", auth=AUTHS["bearer"])
        with pytest.raises(ConfigurationError, match=r"servers\[0\] .* another origin .* set base_url"):
            await api.tools()
        async with CodemodeRuntime([api], store="sqlite://", executor=InProcessExecutor()) as rt:
            out = await rt.execute("api.profile()")
        assert out["status"] == "error"
        assert seen(echo)[before:] == []
        # Naming the host explicitly is the author's decision: then it is used.
        chosen = OpenApiConnector("api", host.url + "/openapi.json", auth=AUTHS["bearer"], base_url=echo.url)
        try:
            assert (await (await chosen.tools())["profile"].execute({}, CTX))["seen"]["authorization"] == \
                "Bearer [redacted]"
        finally:
            await chosen.aclose()
    finally:
        host.stop()


async def test_a_remote_document_on_its_own_origin_needs_no_base_url(echo: Service,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """servers[0] relative to the document's own origin is used as before."""
    monkeypatch.setenv("ECHO_SECRET", TOKEN)
    api = OpenApiConnector("api", echo.url + "/openapi.json", auth=AUTHS["bearer"])
    try:
        result = await (await api.tools())["profile"].execute({}, CTX)
        assert result["seen"]["authorization"] == "Bearer [redacted]"
    finally:
        await api.aclose()
