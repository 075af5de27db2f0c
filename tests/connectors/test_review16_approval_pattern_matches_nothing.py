"""An approval pattern that matches no tool is accepted silently: the tool it was to guard runs unasked (review 16).

An MCP server's tools need no approval unless the table says so (``requires_approval``), and the names
are the server's. Review 14x M14 made an ``include``/``exclude`` pattern that matches no operation fail
closed ("a mistyped exclude left callable the operation it was written to hide"), and
``ApprovalRules.check_known`` refuses an *exact* ``requires_approval`` name that is not a method. A
*pattern* that matches nothing is let through (``policy.py``: ``if not _WILDCARDS.search(p) and ...``):
``requires_approval = ["send_*"]`` written for a mail server whose tool is ``email_send`` (a typo, or
the server's next release renamed ``send_email``) leaves every mail going out with no person asked.

The right outcome: as for include/exclude, a ``requires_approval`` pattern that matches no tool makes
the connector unavailable with a problem naming it (or the calls it was meant for still pause); the mail
is not sent unasked.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from codemode_kernel import McpConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

SERVER = textwrap.dedent('''
    import json, os
    from mcp.server import MCPServer

    server = MCPServer("review16-mail")

    @server.tool()
    def email_send(to: str, body: str) -> dict:
        """Send an email."""
        with open(os.environ["SENT_FILE"], "a") as f:
            f.write(json.dumps([to, body]) + "\\n")
        return {"sent": True}

    @server.tool()
    def inbox() -> list:
        """The inbox."""
        return []

    if __name__ == "__main__":
        server.run("stdio")
    ''')


async def test_a_pattern_that_guards_nothing_does_not_let_the_call_run_unasked(
        make_runtime: RuntimeFactory, tmp_path: Path) -> None:
    (tmp_path / "mail_server.py").write_text(SERVER, encoding="utf-8")
    sent = tmp_path / "sent.jsonl"
    mail = McpConnector("mail", command=sys.executable, args=["mail_server.py"], cwd=str(tmp_path),
                        env={"SENT_FILE": str(sent)}, requires_approval=["send_*"], connect_timeout=20)
    rt = make_runtime([mail])
    out = await rt.execute("mail.email_send(to='all-staff@example.com', body='the layoffs list')")
    lines = sent.read_text().splitlines() if sent.exists() else []
    assert [json.loads(line) for line in lines] == [], f"the mail went out with no person asked: {out}"
    assert out["status"] in ("paused", "error"), out
