"""The secrets a connector knows and the redaction of them (connectors/secrets.py)."""

from __future__ import annotations

import base64
import inspect
import json
from datetime import datetime
from typing import Any
from urllib.parse import quote

import pytest

from codemode_kernel.connectors.base import ExecutionContext, Tool
from codemode_kernel.connectors.http_auth import HttpAuth
from codemode_kernel.connectors.secrets import REDACTED, config_secrets, redacting, redactor
from codemode_kernel.errors import ConnectorError

SECRET = 'pa"ss/wörd+1'
CTX = ExecutionContext("e", 0, "c", "m")


def test_every_echoed_form_of_a_secret_is_redacted() -> None:
    """Raw, URL-encoded (either hex case, or with +), JSON-escaped and base64 forms all become [redacted]."""
    quoted = quote(SECRET, safe="")
    echoed = [SECRET, quoted, quoted.lower(), quote(SECRET).replace("/", "%2F"), json.dumps(SECRET)[1:-1],
              json.dumps(SECRET, ensure_ascii=False)[1:-1], base64.b64encode(SECRET.encode()).decode(),
              base64.urlsafe_b64encode(SECRET.encode()).decode()]
    r = redactor([SECRET])
    for form in echoed:
        assert r.text(f"<{form}>") == f"<{REDACTED}>", form


def test_short_values_are_not_secrets() -> None:
    """A value under four characters is left alone: redacting it would garble every result."""
    assert redactor(["abc"]).text("abc abcd") == "abc abcd"
    assert not redactor(["", "ab"])


def test_values_are_redacted_deep_inside_results_keys_and_bytes() -> None:
    """Strings (keys too) and bytes inside dicts, lists and tuples are redacted; other values are kept."""
    r = redactor(["tok-123456"])
    value = {"tok-123456": ["x tok-123456", (b"tok-123456!", 7, None, True)]}
    assert r.value(value) == {REDACTED: [f"x {REDACTED}", (REDACTED.encode() + b"!", 7, None, True)]}
    # A secret that JSON escapes (a quote, non-ASCII) is found inside a value too.
    assert redactor([SECRET]).value({"k": [f"<{SECRET}>", 1.5]}) == {"k": [f"<{REDACTED}>", 1.5]}
    clean = {"k": ["nothing here", datetime(2026, 1, 1)]}
    assert r.value(clean) == clean


def test_configured_secrets_follow_the_naming_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """${VAR} values, credential-named entries, Bearer tokens, URL passwords and flag values are secrets."""
    monkeypatch.setenv("FROM_ENV", "env-value-1")
    found = config_secrets(
        headers={"Authorization": "Bearer literal-token", "X-Api-Version": "2022-11-28", "X-Trace": "${FROM_ENV}"},
        env={"GITHUB_TOKEN": "ghp-abcdef", "LOG_LEVEL": "debug", "MISSING": "${NOT_SET_ANYWHERE}",
             "DATABASE_URL": "postgres://app:db-pass-1@localhost/app"},
        urls=["https://me:url-pass-1@example.org/x?api_key=query-key-1&page=2", None],
        args=["--password", "p@ss-1", "--token=flag-tok-1", "--port", "8080", "-v"])
    assert set(found) == {"Bearer literal-token", "literal-token", "env-value-1", "ghp-abcdef", "url-pass-1",
                          "query-key-1", "p@ss-1", "flag-tok-1", "db-pass-1"}


def test_http_auth_knows_its_secret_and_the_basic_header_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """Basic auth's secret includes base64(user:password), the form the header carries."""
    monkeypatch.setenv("PW", "hunter22")
    assert HttpAuth.basic(username="me", password_env="PW").secrets() == [
        "hunter22", base64.b64encode(b"me:hunter22").decode()]
    assert HttpAuth.bearer(token_env="UNSET_TOKEN_VAR").secrets() == []


def test_redacting_keeps_sync_functions_sync_and_cleans_results_and_errors() -> None:
    """A wrapped sync execute stays sync (it runs in a thread); its result and error message are redacted."""

    def execute(args: dict[str, Any], ctx: ExecutionContext) -> Any:
        if args.get("fail"):
            raise ValueError("refused key-7777777")
        return {"key": "key-7777777"}

    async def revert(args: dict[str, Any], result: Any, ctx: ExecutionContext) -> Any:
        return "undid key-7777777"

    wrapped = redacting(Tool(execute=execute, revert=revert), lambda: ["key-7777777"])
    assert not inspect.iscoroutinefunction(wrapped.execute)
    assert wrapped.revert is not None and inspect.iscoroutinefunction(wrapped.revert)
    assert wrapped.execute({}, CTX) == {"key": REDACTED}
    with pytest.raises(ConnectorError, match=r"^refused \[redacted\]$"):
        wrapped.execute({"fail": True}, CTX)
    untouched = redacting(Tool(execute=execute), lambda: ["not-in-there"])
    with pytest.raises(ValueError, match="refused key-7777777"):
        untouched.execute({"fail": True}, CTX)


@pytest.mark.anyio
async def test_redacting_an_async_revert() -> None:
    """An async revert's result is redacted too."""

    async def revert(args: dict[str, Any], result: Any, ctx: ExecutionContext) -> Any:
        return "undid key-7777777"

    wrapped = redacting(Tool(execute=lambda a, c: None, revert=revert), lambda: ["key-7777777"])
    assert wrapped.revert is not None
    assert await wrapped.revert({}, None, CTX) == f"undid {REDACTED}"
