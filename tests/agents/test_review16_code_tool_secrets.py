"""The journal-less code tool hands out one connector's credential through another connector's answer (review 16).

Review 15 H7 made the durable runtime redact what any connector returns (and any connector's error) of
*every* configured connector's secrets (``passes.PassHandler._secrets``): a files connector reading the
``.env`` beside ``codemode.toml`` no longer hands out the pets API's token. ``create_code_tool`` (and
``wrap_servers``, which runs programs through the same ``CodeRunner``) answers a call in
``code_tool._PlainPass._call``: ``codec.encode(result)`` as it is, and an exception's ``str(exc)`` as it
is, each connector redacted of its own secrets only (``secrets.redacting``). The pets token reaches
the model in the result and in printed output.

The right outcome: as in the durable runtime, every configured connector's secrets are redacted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor, OpenApiConnector, ToolSetConnector, create_code_tool
from codemode_kernel.executor.isolated import SubprocessExecutor

pytestmark = pytest.mark.anyio

TOKEN_ENV = "REVIEW16_CODE_TOOL_TOKEN"
TOKEN = "review16-code-tool-token-3b9d0e11"

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "Pets", "version": "1"},
    "paths": {"/pets": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok"}}}}},
}


@pytest.fixture(params=["inprocess", "subprocess"])
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    ex = InProcessExecutor() if request.param == "inprocess" else SubprocessExecutor()
    yield ex
    await ex.aclose()


def files(root: Path) -> ToolSetConnector:
    def read_file(path: str) -> str:
        """Read a file of the project."""
        return (root / path).read_text(encoding="utf-8")

    def check_file(path: str) -> str:
        """Fail with the file's first line (as a parser's error would quote it)."""
        raise ValueError(f"bad line: {(root / path).read_text(encoding='utf-8').splitlines()[0]}")

    return ToolSetConnector([read_file, check_file], name="files")


def tools(tmp_path: Path) -> list[Any]:
    pets = OpenApiConnector("pets", DOCUMENT, base_url="http://127.0.0.1:9",
                            auth={"type": "bearer", "token_env": TOKEN_ENV})
    return [pets, files(tmp_path)]


@pytest.mark.parametrize("code", ["files.read_file(path='.env')", "print(files.read_file(path='.env'))"])
async def test_another_connectors_credential_is_redacted(executor: Any, tmp_path: Path, code: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    (tmp_path / ".env").write_text(f"{TOKEN_ENV}={TOKEN}\n", encoding="utf-8")
    tool = create_code_tool(tools(tmp_path), executor=executor)
    try:
        out = await tool.call(code)
    finally:
        await tool.aclose()
    assert "error" not in out, out
    assert TOKEN not in str(out), out


async def test_another_connectors_credential_is_redacted_from_an_error(executor: Any, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    (tmp_path / ".env").write_text(f"{TOKEN_ENV}={TOKEN}\n", encoding="utf-8")
    tool = create_code_tool(tools(tmp_path), executor=executor)
    try:
        out = await tool.call("files.check_file(path='.env')")
    finally:
        await tool.aclose()
    assert "bad line" in str(out), out
    assert TOKEN not in str(out), out
