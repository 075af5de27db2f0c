"""Shared fixtures: the runtime under each executor kind, over each store kind.

The store matrix: every spec under ``tests/runtime``, ``tests/engine`` and
``tests/reliability`` that uses the store fixtures (``db_url``, ``make_runtime``) runs on a
SQLite file *and* on PostgreSQL (a fresh schema per test, dropped after). PostgreSQL is the
server ``make test`` starts (``scripts/test-postgres.sh start``) and names in
``CODEMODE_TEST_POSTGRES_URL``; without it the PostgreSQL params are skipped, saying so.

Both stores run under both executor kinds: the full matrix costs little (measured on the
shared 2-core machine, tests/runtime + tests/engine: 336 specs on SQLite in 24 s, 149 on
PostgreSQL in 19 s, 485 together in 40 s).
``POSTGRES_EXECUTORS`` narrows the PostgreSQL column if that ever changes.

Other folders (panel, connectors) use the store only as a place to keep things; they stay on
SQLite.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from codemode_kernel import CodemodeRuntime, Connector, InProcessExecutor

# The semantic search signal (make test installs its model) is off for the suite and the kernels it
# starts: each process that searched would load the model (~110 MB), embed its catalog in a background
# thread and write ~/.cache. tests/discovery/test_s12m_semantic.py hands the model in itself.
os.environ.setdefault("CODEMODE_SEMANTIC", "0")

# The runtime suite runs once per executor kind: every promise must hold on both.
EXECUTOR_KINDS = ["inprocess", "subprocess"]
STORE_KINDS = ["sqlite", "postgresql"]
POSTGRES_ENV = "CODEMODE_TEST_POSTGRES_URL"
POSTGRES_EXECUTORS = EXECUTOR_KINDS
STORE_MATRIX_DIRS = frozenset({"runtime", "engine", "reliability"})
NO_POSTGRES = (f"{POSTGRES_ENV} is not set: `make test` starts PostgreSQL and sets it "
               "(or run `scripts/test-postgres.sh start` and export the URL it prints)")


def make_executor(kind: str) -> Any:
    if kind == "inprocess":
        return InProcessExecutor()
    if kind == "subprocess":
        from codemode_kernel.executor.isolated import SubprocessExecutor

        return SubprocessExecutor()
    raise ValueError(kind)


def _in_store_matrix(path: Path) -> bool:
    parts = path.parts
    return "tests" in parts and parts[parts.index("tests") + 1] in STORE_MATRIX_DIRS


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    names = metafunc.fixturenames
    stores = STORE_KINDS if _in_store_matrix(Path(str(metafunc.definition.path))) else ["sqlite"]
    if "store_kind" in names and "executor_kind" in names:
        pairs = [(s, e) for s in stores for e in EXECUTOR_KINDS if s == "sqlite" or e in POSTGRES_EXECUTORS]
        metafunc.parametrize(("store_kind", "executor_kind"), pairs, ids=[f"{s}-{e}" for s, e in pairs])
    elif "store_kind" in names:
        metafunc.parametrize("store_kind", stores)
    elif "executor_kind" in names:
        metafunc.parametrize("executor_kind", EXECUTOR_KINDS)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine | None]:
    """An engine on the test server's maintenance database (None when there is no server)."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        yield None
        return
    engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    yield engine
    engine.dispose()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "journal.codemode.db"


def postgres_url_for_schema(base: str, schema: str) -> str:
    """``base`` with every connection's search_path set to ``schema`` (unqualified tables land there)."""
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False)


@pytest.fixture
def db_url(store_kind: str, db_path: Path, postgres_admin: Engine | None) -> Iterator[str]:
    """The test's own store: a SQLite file in tmp_path, or a fresh PostgreSQL schema."""
    if store_kind == "sqlite":
        yield f"sqlite:///{db_path}"
        return
    if postgres_admin is None:
        pytest.skip(NO_POSTGRES)
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with postgres_admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield postgres_url_for_schema(postgres_admin.url.render_as_string(hide_password=False), schema)
    finally:
        with postgres_admin.connect() as conn:
            # A connection left idle in a transaction would block the drop forever; fail instead.
            conn.execute(text("SET lock_timeout = '20s'"))
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


StoreSql = Callable[..., list[tuple[Any, ...]]]


@pytest.fixture
def store_sql(db_url: str) -> Iterator[StoreSql]:
    """Run SQL on the test's store over a connection of its own (``:name`` parameters).

    Specs use it to look at the store from outside the runtime, or to leave what a crashed
    host leaves behind; it works on either store kind.
    """
    engine = create_engine(db_url, poolclass=NullPool)

    def run(sql: str, **params: Any) -> list[tuple[Any, ...]]:
        with engine.begin() as conn:
            result = conn.execute(text(sql), params)
            return [tuple(r) for r in result] if result.returns_rows else []

    yield run
    engine.dispose()


RuntimeFactory = Callable[..., CodemodeRuntime]


@pytest.fixture
async def make_runtime(db_url: str, executor_kind: str) -> AsyncIterator[RuntimeFactory]:
    """Build runtimes over the test's store; all are closed after the test."""
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
