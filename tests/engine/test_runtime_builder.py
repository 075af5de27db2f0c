"""Building the runtime: a bad store, bad executor settings or clashing connectors do not stop a front door."""

from __future__ import annotations

import asyncio
from pathlib import Path

from codemode_kernel import ToolSetConnector
from codemode_kernel.building import build_runtime
from codemode_kernel.config import CodemodeConfig, ExecutorSettings
from codemode_kernel.executor.inprocess import InProcessExecutor


def ping() -> str:
    """Ping."""
    return "pong"


def config(tmp_path: Path, **executor: object) -> CodemodeConfig:
    return CodemodeConfig(source=tmp_path / "codemode.toml", base_dir=tmp_path,
                          executor=ExecutorSettings(kind="inprocess", limits=dict(executor)),
                          connectors=(ToolSetConnector([ping], name="net"),))


def test_a_store_that_cannot_be_opened_falls_back_beside_the_notebook(tmp_path: Path) -> None:
    fallback = f"sqlite:///{tmp_path / 'nb.codemode.db'}"
    built = build_runtime(config(tmp_path), store_url="nosuchdialect://host/db", fallback_store_url=fallback)
    assert len(built.problems) == 1 and "nosuchdialect://host/db" in built.problems[0]
    assert fallback in built.problems[0] and "%reload" in built.problems[0]
    out = asyncio.run(built.runtime.execute("net.ping()"))
    assert out["result"] == "pong"
    asyncio.run(built.runtime.aclose())


def test_bad_executor_settings_fall_back_to_the_defaults(tmp_path: Path) -> None:
    built = build_runtime(config(tmp_path, colour="red"), store_url=f"sqlite:///{tmp_path / 'a.db'}",
                          fallback_store_url="unused")
    assert "[executor]" in built.problems[0] and "colour" in built.problems[0]
    asyncio.run(built.runtime.aclose())


def test_a_connector_connected_by_hand_replaces_the_configured_one(tmp_path: Path) -> None:
    def pong() -> str:
        """Pong."""
        return "ping"

    built = build_runtime(config(tmp_path), host_connectors={"net": ToolSetConnector([pong], name="net")},
                          store_url=f"sqlite:///{tmp_path / 'a.db'}", fallback_store_url="unused")
    assert built.problems == []
    assert isinstance(built.runtime.executor, InProcessExecutor)
    assert asyncio.run(built.runtime.execute("net.pong()"))["result"] == "ping"
    asyncio.run(built.runtime.aclose())


def test_connectors_that_cannot_be_used_together_leave_a_runtime_without_them(tmp_path: Path) -> None:
    clash = ToolSetConnector([ping], name="codemode")
    built = build_runtime(config(tmp_path), host_connectors={"codemode": clash},
                          store_url=f"sqlite:///{tmp_path / 'a.db'}", fallback_store_url="unused")
    assert "could not be used together" in built.problems[0]
    assert built.runtime.connectors == {}
    asyncio.run(built.runtime.aclose())
