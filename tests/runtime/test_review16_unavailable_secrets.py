"""A connector that did not start keeps its credential out of the union redaction (review 16).

Since review 15 H7 what any connector returns is redacted of every configured connector's secrets
(``PassHandler._secrets``). The union is read from ``self.catalog.connectors`` (passes.py), and a
``Catalog`` keeps there only the connectors whose ``tools()`` answered (catalog.py: ``connectors`` is
filtered by ``methods``): one whose OpenAPI document could not be read, whose MCP server failed or is
still starting, is left out, and so are its secrets. Its credential is still in the project's
``.env`` (and in the environment) for a files connector to read: the pets API's token reaches the
program, the journal and the model whenever the pets service's document is down.

The right outcome: every *configured* connector's secrets are redacted, whether it started or not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel import OpenApiConnector, ToolSetConnector
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

TOKEN_ENV = "REVIEW16_PETS_TOKEN"
TOKEN = "review16-pets-token-8d1e4b7a"


def files(root: Path) -> ToolSetConnector:
    def read_file(path: str) -> str:
        """Read a file of the project."""
        return (root / path).read_text(encoding="utf-8")

    return ToolSetConnector([read_file], name="files", target=f"review16 files {root}")


async def test_the_credential_of_a_connector_that_did_not_start_is_redacted(
        make_runtime: RuntimeFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    (tmp_path / ".env").write_text(f"{TOKEN_ENV}={TOKEN}\n", encoding="utf-8")
    # The pets service's document is down (nothing listens on port 9): the connector is unavailable.
    pets = OpenApiConnector("pets", "http://127.0.0.1:9/openapi.json", base_url="http://127.0.0.1:9",
                            auth={"type": "bearer", "token_env": TOKEN_ENV}, timeout=2)
    rt = make_runtime([pets, files(tmp_path)])
    out = await rt.execute("files.read_file(path='.env')")
    assert out["status"] == "completed", out
    assert TOKEN not in str(out["result"]), out["result"]
    state = await rt.execution(out["execution_id"])
    assert state is not None and TOKEN not in str(state.log[0].result), "the journal keeps the token"


async def test_the_credential_of_a_connector_that_did_not_start_is_redacted_from_printed_text(
        make_runtime: RuntimeFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same through print: the program prints what the files connector gave it."""
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    (tmp_path / ".env").write_text(f"{TOKEN_ENV}={TOKEN}\n", encoding="utf-8")
    pets = OpenApiConnector("pets", "http://127.0.0.1:9/openapi.json", base_url="http://127.0.0.1:9",
                            auth={"type": "bearer", "token_env": TOKEN_ENV}, timeout=2)
    rt = make_runtime([pets, files(tmp_path)])
    out = await rt.execute("print(files.read_file(path='.env'))")
    assert out["status"] == "completed", out
    assert TOKEN not in str(out), out
