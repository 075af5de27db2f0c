"""Shared fixtures: a real SQLite file per test, and the runtime under each executor."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, Connector, InProcessExecutor

# The runtime suite runs once per executor kind: every promise must hold on both.
EXECUTOR_KINDS = ["inprocess", "subprocess"]


def make_executor(kind: str) -> Any:
    if kind == "inprocess":
        return InProcessExecutor()
    if kind == "subprocess":
        from codemode_kernel.executor.isolated import SubprocessExecutor

        return SubprocessExecutor()
    raise ValueError(kind)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=EXECUTOR_KINDS)
def executor_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "journal.codemode.db"


@pytest.fixture
def db_url(db_path: Path) -> str:
    return f"sqlite:///{db_path}"


RuntimeFactory = Callable[..., CodemodeRuntime]


@pytest.fixture
async def make_runtime(db_url: str, executor_kind: str) -> AsyncIterator[RuntimeFactory]:
    """Build runtimes over the test's SQLite file; all are closed after the test."""
    made: list[CodemodeRuntime] = []

    def factory(connectors: Iterable[Connector] = (), **kwargs: Any) -> CodemodeRuntime:
        kwargs.setdefault("store", db_url)
        kwargs.setdefault("executor", make_executor(executor_kind))
        rt = CodemodeRuntime(connectors, **kwargs)
        made.append(rt)
        return rt

    yield factory
    for rt in made:
        await rt.aclose()
