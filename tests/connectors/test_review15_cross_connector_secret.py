"""One connector's credential comes out through another connector's answer unredacted (review 15).

Every connector's answers and errors are redacted of *its own* configured secrets
(``secrets.redacting(tool, self.secrets)``): the OpenAPI connector's of its bearer token, an MCP
server's of its env/header credentials. A project's credentials also sit in files and processes
other connectors can read: the ``.env`` beside ``codemode.toml`` that ``token_env`` names, read by
a files connector (the reference filesystem MCP server rooted at the project, or a python
``read_file``); a process listing; a config dump. Such an answer is redacted of the files
connector's secrets only (none), so the pets API's token reaches the program, the journal and the
model as it is.

The right outcome: what any connector returns is redacted of every configured connector's secrets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector, ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

TOKEN_ENV = "REVIEW15_PETS_TOKEN"
TOKEN = "review15-pets-token-5f0a9c2e"

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "Pets", "version": "1"},
    "paths": {"/pets": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok"}}}}},
}


def files(root: Path) -> ToolSetConnector:
    def read_file(path: str) -> str:
        """Read a file of the project."""
        return (root / path).read_text(encoding="utf-8")

    return ToolSetConnector([read_file], name="files", target=f"review15 files {root}")


async def test_another_connectors_credential_is_redacted(make_runtime: RuntimeFactory, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    (tmp_path / ".env").write_text(f"{TOKEN_ENV}={TOKEN}\n", encoding="utf-8")
    pets = OpenApiConnector("pets", DOCUMENT, base_url="http://127.0.0.1:9",
                            auth={"type": "bearer", "token_env": TOKEN_ENV})
    rt = make_runtime([pets, files(tmp_path)])
    out = await rt.execute("files.read_file(path='.env')")
    assert out["status"] == "completed", out
    assert TOKEN not in str(out["result"]), out["result"]
    state = await rt.execution(out["execution_id"])
    assert state is not None and TOKEN not in str(state.log[0].result), "the journal keeps the token"
