"""Every connector's secrets are redacted from any connector's error too (review 15 H7, the error path)."""

from __future__ import annotations

import pytest

from codemode_kernel import OpenApiConnector, ToolSetConnector
from tests.conftest import RuntimeFactory
from tests.connectors.test_review15_cross_connector_secret import DOCUMENT, TOKEN, TOKEN_ENV

pytestmark = pytest.mark.anyio


def leaky() -> ToolSetConnector:
    def show_env(name: str) -> str:
        """Fail, naming a variable's value (as a process tool that echoes its command line would)."""
        import os

        raise RuntimeError(f"could not run with {name}={os.environ.get(name)}")

    return ToolSetConnector([show_env], name="proc", target="lead15 proc")


async def test_another_connectors_credential_in_an_error_is_redacted(make_runtime: RuntimeFactory,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    pets = OpenApiConnector("pets", DOCUMENT, base_url="http://127.0.0.1:9",
                            auth={"type": "bearer", "token_env": TOKEN_ENV})
    rt = make_runtime([pets, leaky()])
    out = await rt.execute(f"proc.show_env(name={TOKEN_ENV!r})")
    assert out["status"] == "error" and "could not run with" in out["error"], out
    assert TOKEN not in out["error"], out["error"]
    state = await rt.execution(out["execution_id"])
    assert state is not None and TOKEN not in str(state.log[0].error), state.log[0].error
