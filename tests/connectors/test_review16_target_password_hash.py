"""A password in an MCP server's arguments or a python connector's options is hashed fast into the journal (review 16).

``targets.fingerprint`` stores ``sha256(target)[:32]`` in each execution's options. Session 15 took
care that what may hold a credential is hashed slowly (``secret_part``: PBKDF2, salted) and that a
credential counts by name, a URL without its password (``without_password``). Two targets skip it:

* a stdio MCP server's ``mcp [command, *args] in cwd`` (mcp.py: ``json.dumps([t.command, *t.args])``):
  the reference PostgreSQL server is configured ``args = ["postgresql://app:PASSWORD@db/prod"]``
  (review 15 H5 made that password a secret to redact; it is still in the target);
* a python connector's ``python module:attr in DIR with {options}`` (config.py: ``json.dumps(options)``):
  ``options = { dsn = "postgresql://app:PASSWORD@db/prod" }`` or ``{ api_key = "..." }``.

Everything else in those targets is known to anyone who can read the journal's store (the command, the
host, the folder, the module), so the stored 128 bits are a fast, unsalted oracle for the password:
offline guessing at GPU speed. And the password's rotation changes the target, so an approval of a call
paused before it is refused ("it was configured another way") - the very thing ``secret_part`` avoids.

The right outcome: as for ``env``/``headers``, a URL's password and a credential-named option do not
enter the fast hash (they count by name, or through the slow digest).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codemode_kernel import McpConnector
from codemode_kernel.config import load_config
from codemode_kernel.targets import fingerprint

MODULE = '''
from codemode_kernel import ToolSetConnector

def make(dsn: str = "", api_key: str = ""):
    def ping() -> str:
        """Ping."""
        return "pong"
    return ToolSetConnector([ping], name="db")
'''


def test_an_argument_urls_password_does_not_enter_the_fingerprint() -> None:
    def server(password: str) -> McpConnector:
        return McpConnector("db", command=sys.executable, args=["-m", "mcp_server_postgres",
                                                               f"postgresql://app:{password}@db.internal/prod"])

    assert fingerprint(server("old-password-1")) == fingerprint(server("new-password-2"))


def test_a_server_urls_credential_does_not_enter_the_fingerprint() -> None:
    """Hosted MCP servers are often given as a URL with the key in its query (``...?api_key=...``)."""
    def server(key: str) -> McpConnector:
        return McpConnector("db", url=f"https://mcp.example.com/mcp?api_key={key}")

    assert fingerprint(server("sk-old-key-0001")) == fingerprint(server("sk-new-key-0002"))


@pytest.mark.parametrize("options", ['{ dsn = "postgresql://app:PASSWORD@db.internal/prod" }',
                                     '{ api_key = "PASSWORD" }'])
def test_a_python_connectors_credential_option_does_not_enter_the_fingerprint(tmp_path: Path, options: str) -> None:
    (tmp_path / "review16_db.py").write_text(MODULE, encoding="utf-8")

    def loaded(password: str) -> str:
        folder = tmp_path / "project"  # one folder: only the password differs
        folder.mkdir(exist_ok=True)
        (folder / "codemode.toml").write_text(
            f'[connectors.db]\npython = "review16_db:make"\noptions = {options.replace("PASSWORD", password)}\n',
            encoding="utf-8")
        config = load_config(folder)
        connector = config.connectors["db"] if isinstance(config.connectors, dict) else next(
            c for c in config.connectors if c.name == "db")
        return fingerprint(connector)

    sys.path.insert(0, str(tmp_path))
    try:
        first, second = loaded("oldpassword1"), loaded("newpassword2")
    finally:
        sys.path.remove(str(tmp_path))
    assert first == second
