"""The fast target masks a credential by the same name rule as secret_part (review 16 H1's whole words).

7ff5908 (review 16 M1) masked credential-named MCP flags and python options with the redactor's wide test
(``looks_secret``: any part of the name), so ``--author alice`` and ``--author barbara`` (or an ``author`` option)
were one target: a pause made for alice's data was approved on barbara's, the very thing H1 fixed in secret_part.
"""

from __future__ import annotations

import sys
from pathlib import Path

from codemode_kernel import McpConnector
from codemode_kernel.config import load_config
from codemode_kernel.targets import fingerprint


def server(*args: str) -> McpConnector:
    return McpConnector("m", command=sys.executable, args=list(args), cwd="/tmp")


def test_a_flag_only_named_like_a_credential_picks_the_target() -> None:
    assert fingerprint(server("--author", "alice")) != fingerprint(server("--author", "barbara"))


def test_a_credential_flag_still_does_not() -> None:
    assert fingerprint(server("--token", "lead16-old-token")) == fingerprint(server("--token", "lead16-new-token"))


def test_a_python_option_only_named_like_a_credential_picks_the_target(tmp_path: Path) -> None:
    (tmp_path / "lead16_make.py").write_text(
        "from codemode_kernel import ToolSetConnector\n\n"
        "def make(author: str, api_key: str):\n"
        "    def ping() -> str:\n"
        "        '''x'''\n"
        "        return 'pong'\n"
        "    return ToolSetConnector([ping], name='n')\n", encoding="utf-8")

    def target(author: str, key: str) -> str:
        (tmp_path / "codemode.toml").write_text(
            f'[connectors.n]\npython = "lead16_make:make"\noptions = {{ author = "{author}", api_key = "{key}" }}\n',
            encoding="utf-8")
        config = load_config(tmp_path)
        (connector,) = config.connectors
        return fingerprint(connector)

    assert target("alice", "lead16-key-0001") != target("barbara", "lead16-key-0001")
    assert target("alice", "lead16-key-0001") == target("alice", "lead16-key-0002")
