"""A database URL's password given to an MCP server as an argument is not a secret (review 15).

Many stdio MCP servers take their backend's URL on the command line (the reference PostgreSQL
server: ``mcp-server-postgres postgresql://user:password@host/db``). ``McpConnector.secrets``
(``config_secrets``) finds a password in the ``url`` of an HTTP server, in env values that are URLs
(``DATABASE_URL=postgres://u:pw@...``) and after credential-named flags (``--password x``), but not
in a URL among the ``args`` (``secrets.arg_secrets`` looks at flags only). So whatever the server
says back - a message naming the URL it could not reach, an error, a status tool - carries the password to
the program, the journal and the model, unredacted.

The right outcome: the password in a URL argument is redacted like the others.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from codemode_kernel import McpConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

PASSWORD = "review15-db-pass-7c2e"
DATABASE = f"postgresql://app:{PASSWORD}@db.internal/prod"

SERVER = textwrap.dedent('''
    import sys
    from mcp.server import MCPServer

    server = MCPServer("review15-db")

    @server.tool()
    def query(sql: str) -> str:
        """Run a query (the database is down: the answer says which one it tried)."""
        return f"could not connect to {sys.argv[1]}: connection refused"

    if __name__ == "__main__":
        server.run("stdio")
    ''')


async def test_the_password_in_a_url_argument_does_not_reach_the_program(make_runtime: RuntimeFactory,
                                                                         tmp_path: Path) -> None:
    (tmp_path / "db_server.py").write_text(SERVER, encoding="utf-8")
    db = McpConnector("db", command=sys.executable, args=[str(tmp_path / "db_server.py"), DATABASE],
                      connect_timeout=20)
    rt = make_runtime([db])
    out = await rt.execute("db.query(sql='select 1')")
    assert out["status"] == "completed", out
    assert "could not connect" in out["result"], out
    assert PASSWORD not in out["result"], out["result"]
