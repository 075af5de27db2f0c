"""Host-side secrets for the adversarial suite, and a connector that holds credentials.

Every attack runs against a host that has something worth stealing: a secret in the host
process's environment, a secret file (mode 0600), a canary file that must not change, and a
connector whose instance holds a token and a client session. After each attack the suite
checks that the secret appears nowhere in what came back and that the files are as before.
"""

from __future__ import annotations

import json
import os
import secrets
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemode_kernel import Connector, ExecutionContext, Tool, tool

SECRET_ENV = "CODEMODE_HOST_SECRET"


class VaultError(Exception):
    """Like an SDK error: a harmless message, live objects (with the token) attached."""

    def __init__(self, token: str) -> None:
        super().__init__("access denied")
        self.response = {"request": {"headers": {"Authorization": f"Bearer {token}"}}}
        self.token = token


class Vault(Connector):
    """A connector whose instance holds credentials the sandbox must never see."""

    name = "vault"
    instructions = "A bank vault."

    def __init__(self, token: str) -> None:
        self.token = token
        self.session = {"token": token, "headers": {"Authorization": f"Bearer {token}"}}
        self.calls: Counter[str] = Counter()
        self.echoed: list[Any] = []

    def status(self, ctx: ExecutionContext) -> dict[str, Any]:
        """Vault status."""
        self.calls["status"] += 1
        return {"ok": True}

    def fail(self, ctx: ExecutionContext) -> None:
        """Always fails, with the token inside the exception object."""
        self.calls["fail"] += 1
        raise VaultError(self.token)

    def transfer(self, amount: int, ctx: ExecutionContext) -> dict[str, Any]:
        """Move money (needs approval)."""
        self.calls["transfer"] += 1
        return {"sent": amount}

    def echo(self, value: Any, ctx: ExecutionContext) -> Any:
        """Return the value."""
        self.calls["echo"] += 1
        self.echoed.append(value)
        return value

    def tools(self) -> dict[str, Tool]:
        return {
            "status": tool(self.status),
            "fail": tool(self.fail),
            "transfer": tool(self.transfer, requires_approval=True),
            "echo": tool(self.echo),
        }


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int, int]]:
    out = {}
    for path in sorted(folder.rglob("*")):
        st = path.lstat()
        out[str(path.relative_to(folder))] = (path.read_bytes() if path.is_file() else b"", st.st_mtime_ns,
                                              st.st_mode)
    return out


@dataclass
class HostSecrets:
    """What an attacker wants from the host, and the checks that they did not get it."""

    secret: str
    folder: Path
    secret_file: Path
    canary: Path
    before: dict[str, tuple[bytes, int, int]] = field(default_factory=dict)

    @classmethod
    def create(cls, folder: Path) -> HostSecrets:
        folder.mkdir(parents=True, exist_ok=True)
        secret = "sk-live-" + secrets.token_hex(16)
        secret_file = folder / "secret.txt"
        secret_file.write_text(secret)
        secret_file.chmod(0o600)
        canary = folder / "canary.txt"
        canary.write_text("untouched\n")
        made = cls(secret, folder, secret_file, canary)
        made.before = _snapshot(folder)
        return made

    def fill(self, code: str) -> str:
        """Put the real paths into attack code."""
        return code.replace("{secret_file}", str(self.secret_file)).replace("{canary}", str(self.canary)) \
                   .replace("{folder}", str(self.folder))

    def assert_untouched(self, outcome: Any) -> None:
        """The secret is nowhere in ``outcome``; the files and the folder are exactly as before."""
        text = json.dumps(outcome, default=repr)
        assert self.secret not in text, "the host secret leaked"
        assert os.environ.get(SECRET_ENV) == self.secret
        assert _snapshot(self.folder) == self.before, "host files changed"
