"""A configuration error names what is wrong without printing the value (s15o, item 7).

``mcp = [...]`` (a list instead of a table or a command line) was refused with "got ['npx', '--token',
'...']", ``openapi``, ``base_url``, ``requires_approval``, ``reverts``, ``timeout``, ``hint``, ``auth.type``
and ``auth.in`` likewise printed the value they were given. A value may hold a credential (a token in a
URL's query or path, a flag's value, a key pasted under the wrong name), and these errors reach the
notebook, the terminal and the catalog's problems. The right outcome: the error names the key and the
kind of value (a URL by its scheme and host only), never the value's secret part.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import McpConnector, OpenApiConnector
from codemode_kernel.errors import ConfigurationError

SECRET = "tok_s15o_7f3a9c2e11"
DOCUMENT = {"openapi": "3.1.0", "info": {"title": "P", "version": "1"},
            "paths": {"/p": {"post": {"operationId": "make", "responses": {"200": {"description": "ok"}}}}}}

OPENAPI_CASES: list[tuple[str, dict[str, Any]]] = [
    ("openapi", {"openapi": {"url": f"https://api.example.com/doc.json?token={SECRET}"}}),
    ("base_url", {"base_url": f"ftp://me:{SECRET}@api.example.com/"}),
    ("base_url", {"base_url": SECRET}),
    ("requires_approval", {"requires_approval": ["make", {"token": SECRET}]}),
    ("reverts.make", {"reverts": {"make": [SECRET]}}),
    ("reverts.make.args", {"reverts": {"make": {"method": "make", "args": SECRET}}}),
    ("timeout", {"timeout": SECRET}),
    ("hint", {"hint": {"token": SECRET}}),
    ("auth.type", {"auth": {"type": SECRET, "token_env": "X"}}),
    ("auth.in", {"auth": {"type": "api_key", "in": SECRET, "value_env": "X"}}),
]


@pytest.mark.parametrize(("key", "table"), OPENAPI_CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(OPENAPI_CASES)])
def test_an_openapi_table_error_does_not_print_the_value(tmp_path: Path, key: str, table: dict[str, Any]) -> None:
    """It is an error if refusing a wrong OpenAPI table prints the secret the value holds, or does not name the key."""
    (tmp_path / "doc.json").write_text(json.dumps(DOCUMENT))
    with pytest.raises(ConfigurationError) as caught:
        OpenApiConnector.from_config("pets", {"openapi": "doc.json", **table}, tmp_path)
    message = str(caught.value)
    assert SECRET not in message, message
    assert key.split(".")[-1] in message, message


MCP_CASES: list[tuple[str, dict[str, Any]]] = [
    ("mcp", {"mcp": ["npx", "server", "--token", SECRET]}),
    ("mcp", {"mcp": 7}),
    ("timeout", {"mcp": "server", "timeout": f"https://x.example/?key={SECRET}"}),
    ("approval_from_annotations", {"mcp": "server", "approval_from_annotations": SECRET}),
]


@pytest.mark.parametrize(("key", "table"), MCP_CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(MCP_CASES)])
def test_an_mcp_table_error_does_not_print_the_value(tmp_path: Path, key: str, table: dict[str, Any]) -> None:
    """It is an error if refusing a wrong MCP table prints the secret the value holds, or does not name the key."""
    with pytest.raises(ConfigurationError) as caught:
        McpConnector.from_config("notes", table, tmp_path)
    message = str(caught.value)
    assert SECRET not in message, message
    assert key in message, message


def test_a_near_miss_is_still_named() -> None:
    """It is an error if a typo in auth.type stops being helpful: the close word is suggested."""
    with pytest.raises(ConfigurationError, match="did you mean 'bearer'"):
        OpenApiConnector.from_config("pets", {"openapi": "https://api.example.com/doc.json",
                                              "auth": {"type": "Bearer", "token_env": "X"}}, Path("."))
