"""A rollback's failure text is redacted of every configured connector's secrets (review 16, noticed by s16v).

A revert's error is a connector's text, as a call's error is: since review 15 H7 a call's error reaches the
program redacted of every connector's secrets, but a rollback's RollbackError (shown by %rollback, the CLI and
the panel) and the note it stores for an unanswered revert carried the revert's words as they were. A files
connector whose revert fails quoting the .env it read hands another API's token to whoever reads the error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import OpenApiConnector, ToolSetConnector
from codemode_kernel.errors import RollbackError
from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio

TOKEN_ENV = "LEAD16_PETS_TOKEN"
TOKEN = "lead16-pets-token-5c0ffee1"


def files(root: Path) -> ToolSetConnector:
    def write_file(path: str, text: str) -> dict[str, str]:
        """Write a file of the project."""
        (root / path).write_text(text, encoding="utf-8")
        return {"path": path}

    def undo(args: dict[str, Any], result: Any, ctx: Any) -> None:
        raise RuntimeError(f"cannot restore {args['path']}: it now reads {(root / '.env').read_text().strip()}")

    return ToolSetConnector([write_file], name="files", reverts={"write_file": undo}, target=f"lead16 files {root}")


async def test_a_failed_revert_does_not_carry_another_connectors_token(
        make_runtime: RuntimeFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    (tmp_path / ".env").write_text(f"{TOKEN_ENV}={TOKEN}\n", encoding="utf-8")
    pets = OpenApiConnector("pets", {"openapi": "3.0.0", "info": {"title": "p", "version": "1"}, "paths": {}},
                            base_url="http://127.0.0.1:9", auth={"type": "bearer", "token_env": TOKEN_ENV})
    rt = make_runtime([pets, files(tmp_path)])
    out = await rt.execute("files.write_file(path='notes.txt', text='hello')")
    assert out["status"] == "completed", out
    with pytest.raises(RollbackError) as raised:
        await rt.rollback(out["execution_id"])
    said = str(raised.value)
    assert "cannot restore notes.txt" in said, said  # the revert's own words are kept
    assert TOKEN not in said, said
