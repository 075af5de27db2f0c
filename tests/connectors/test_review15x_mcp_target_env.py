"""Review 15x: an MCP table whose backend is chosen by ``env`` (or ``headers``) has the same target
whatever that backend is.

An execution records a hash of each connector's ``target`` and approve/rollback refuse when the
connector of that name now acts elsewhere. For an MCP server the target is the command line
and folder (stdio) or the URL; but servers are commonly pointed at their backend by
environment variables (``env = { NOTES_DB = "/srv/team-a.db" }``, a workspace id, a region) or,
over HTTP, by a header (``X-Tenant``). Editing that value and ``%reload`` leaves the target
unchanged, so a paused write is approved - and a rollback run - on the other backend, the very
case the target check exists for. (Secret values, ``${TOKEN}``, rotate without changing the
backend: a fix should leave those out.)
"""

from __future__ import annotations

import sys

from codemode_kernel import McpConnector


def test_a_different_backend_in_env_or_headers_is_a_different_target() -> None:
    args = ["-m", "codemode_kernel.demo.mcp_server"]
    a = McpConnector("memo", command=sys.executable, args=args, env={"NOTES_DB": "/srv/team-a.db"})
    b = McpConnector("memo", command=sys.executable, args=args, env={"NOTES_DB": "/srv/team-b.db"})
    assert a.target != b.target
    x = McpConnector("memo", url="https://mcp.example.org/mcp", headers={"X-Tenant": "team-a"})
    y = McpConnector("memo", url="https://mcp.example.org/mcp", headers={"X-Tenant": "team-b"})
    assert x.target != y.target
