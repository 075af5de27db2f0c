"""The journal store: executions, journal entries and snippets in SQLAlchemy Core tables.

This module is the one home of SQLAlchemy. A SQLite file is the default (WAL, a busy
timeout, readable by its owner only); any SQLAlchemy URL works (PostgreSQL is tested).
Every row is keyed by the runtime *name*, so several named runtimes share one store.

State changes are compare-and-set (``UPDATE … WHERE status = :expected``) and report
whether they won, so two hosts racing to approve the same execution apply it once.

Calls are synchronous: on SQLite a statement takes microseconds, and running them on the
event loop keeps the per-call journal cost low (see benchmarks/bench_runtime.py). A pass
keeps one connection for its whole run (:meth:`JournalStore.session`).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    ClauseElement,
    Column,
    Connection,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.compiler import SQLCompiler

SCHEMA_VERSION = 1

StoreConnection = Connection  # the type other modules annotate with, without importing SQLAlchemy

metadata = MetaData()

meta_table = Table(
    "codemode_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

executions = Table(
    "codemode_executions",
    metadata,
    Column("runtime", String(128), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("code", Text, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("result", Text),
    Column("result_note", Text),
    Column("error", Text),
    Column("error_type", String(64)),
    Column("logs", Text, nullable=False, default="[]"),
    Column("connectors", Text, nullable=False, default="[]"),
    Column("inputs", Text, nullable=False, default="{}"),
    Column("options", Text, nullable=False, default="{}"),
    Column("passes", Integer, nullable=False, default=0),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

entries = Table(
    "codemode_entries",
    metadata,
    Column("runtime", String(128), primary_key=True),
    Column("execution_id", String(64), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("connector", String(256), nullable=False),
    Column("method", String(256), nullable=False),
    Column("args", Text, nullable=False),
    Column("result", Text),
    Column("requires_approval", Boolean, nullable=False, default=False),
    Column("ephemeral", Boolean, nullable=False, default=False),
    Column("state", String(16), nullable=False),
    Column("error", Text),
    Column("pass_number", Integer, nullable=False, default=1),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

snippets = Table(
    "codemode_snippets",
    metadata,
    Column("runtime", String(128), primary_key=True),
    Column("name", String(256), primary_key=True),
    Column("description", Text, nullable=False, default=""),
    Column("code", Text, nullable=False),
    Column("input_schema", Text),
    Column("connectors", Text, nullable=False, default="[]"),
    Column("execution_id", String(64)),
    Column("saved_at", BigInteger, nullable=False),
)

# Migrations: (version, list of SQL statements) applied in order after create_all().
# Version 1 is the initial schema created by create_all(); add later changes here.
MIGRATIONS: list[tuple[int, list[str]]] = []


class _Prepared:
    """A Core statement compiled once for the store's dialect and run on the DBAPI connection.

    The journal's two hot statements (insert an entry, finish an entry) run twice per
    connector call. Building and cache-keying a Core statement per call cost ~80 us each,
    which made a journaled call 4x slower than the SQLite floor (benchmarks/bench_runtime.py);
    compiling once keeps SQL generation in SQLAlchemy and the per-call cost near the driver's.
    """

    def __init__(self, stmt: ClauseElement, engine: Engine) -> None:
        compiled = stmt.compile(dialect=engine.dialect)
        assert isinstance(compiled, SQLCompiler)
        self.sql = compiled.string
        self.order = list(compiled.positiontup or []) if compiled.positional else None

    def run(self, conn: Connection, params: dict[str, Any]) -> int:
        raw = conn.connection.dbapi_connection
        assert raw is not None
        cur = raw.cursor()
        try:
            cur.execute(self.sql, tuple(params[k] for k in self.order) if self.order is not None else params)
            count = int(cur.rowcount)
        finally:
            cur.close()
        raw.commit()
        return count


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class ExecutionRow:
    runtime: str
    id: str
    code: str
    status: str
    result: str | None
    result_note: str | None
    error: str | None
    error_type: str | None
    logs: list[str]
    connectors: list[str]
    inputs: dict[str, Any]
    options: dict[str, Any]
    passes: int
    created_at: int
    updated_at: int


@dataclass(frozen=True)
class EntryRow:
    seq: int
    connector: str
    method: str
    args: str
    result: str | None
    requires_approval: bool
    ephemeral: bool
    state: str
    error: str | None
    pass_number: int
    created_at: int
    updated_at: int


@dataclass(frozen=True)
class SnippetRow:
    name: str
    description: str
    code: str
    input_schema: str | None
    connectors: list[str]
    execution_id: str | None
    saved_at: int


def default_sqlite_url(path: str | os.PathLike[str]) -> str:
    return f"sqlite:///{Path(path).expanduser().resolve()}"


def _prepare_sqlite_file(url: str) -> None:
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        # Created owner-only before SQLite opens it; SQLite gives -wal/-shm the same mode.
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        os.close(fd)
    else:
        with contextlib.suppress(OSError):  # not our file to change (e.g. shared read-only)
            os.chmod(path, 0o600)


class JournalStore:
    """Tables for one or more named runtimes in one SQLAlchemy database."""

    def __init__(self, url: str, *, engine: Engine | None = None) -> None:
        self.url = url
        if engine is None:
            is_sqlite = url.startswith("sqlite")
            if is_sqlite:
                _prepare_sqlite_file(url)
                memory = make_url(url).database in (None, "", ":memory:")
                if memory:  # one shared connection, or every checkout would see a new empty database
                    engine = create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
                else:
                    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
                event.listen(engine, "connect", _sqlite_pragmas)
            else:
                engine = create_engine(url, pool_pre_ping=True)
        self.engine = engine
        self.dialect = engine.dialect.name
        self._migrate()
        self._insert_entry = _Prepared(
            insert(entries).values({c.name: bindparam(c.name) for c in entries.columns}), engine)
        self._finish_entry = _Prepared(
            update(entries).where(and_(
                entries.c.runtime == bindparam("k_runtime"), entries.c.execution_id == bindparam("k_execution_id"),
                entries.c.seq == bindparam("k_seq"), entries.c.state == bindparam("k_state")))
            .values(state=bindparam("v_state"), result=bindparam("v_result"), error=bindparam("v_error"),
                    updated_at=bindparam("v_updated_at")), engine)

    # -- schema ------------------------------------------------------------------------

    def _migrate(self) -> None:
        metadata.create_all(self.engine)
        with self.engine.begin() as conn:
            row = conn.execute(select(meta_table.c.value).where(meta_table.c.key == "schema_version")).first()
            version = int(row[0]) if row else 0
            if row is None:
                with contextlib.suppress(IntegrityError):  # another process initialised it first
                    conn.execute(insert(meta_table).values(key="schema_version", value=str(SCHEMA_VERSION)))
                version = SCHEMA_VERSION
            for target, statements in MIGRATIONS:
                if target > version:
                    for sql in statements:
                        conn.exec_driver_sql(sql)
                    conn.execute(update(meta_table).where(meta_table.c.key == "schema_version")
                                 .values(value=str(target)))

    def dispose(self) -> None:
        self.engine.dispose()

    @contextmanager
    def session(self) -> Iterator[Connection]:
        """One connection for a sequence of operations (each write commits on its own)."""
        with self.engine.connect() as conn:
            yield conn

    # -- executions ----------------------------------------------------------------------

    def insert_execution(self, conn: Connection, runtime: str, execution_id: str, code: str,
                         connectors: Sequence[str], inputs: dict[str, Any], options: dict[str, Any]) -> None:
        t = now_ms()
        conn.execute(insert(executions).values(
            runtime=runtime, id=execution_id, code=code, status="running", logs="[]",
            connectors=json.dumps(list(connectors)), inputs=json.dumps(inputs), options=json.dumps(options),
            passes=0, created_at=t, updated_at=t))
        conn.commit()

    def get_execution(self, conn: Connection, runtime: str, execution_id: str) -> ExecutionRow | None:
        row = conn.execute(select(executions).where(
            and_(executions.c.runtime == runtime, executions.c.id == execution_id))).mappings().first()
        conn.commit()
        return _execution_row(row) if row is not None else None

    def list_executions(self, conn: Connection, runtime: str, limit: int | None = None,
                        statuses: Sequence[str] | None = None) -> list[ExecutionRow]:
        q = select(executions).where(executions.c.runtime == runtime)
        if statuses is not None:
            q = q.where(executions.c.status.in_(list(statuses)))
        q = q.order_by(executions.c.created_at.desc(), executions.c.id.desc())
        if limit is not None:
            q = q.limit(limit)
        rows = [_execution_row(r) for r in conn.execute(q).mappings()]
        conn.commit()
        return rows

    def transition(self, conn: Connection, runtime: str, execution_id: str, expected: Sequence[str],
                   status: str, **fields: Any) -> bool:
        """Compare-and-set the status; True if this caller won."""
        values: dict[str, Any] = {"status": status, "updated_at": now_ms()}
        for key, value in fields.items():
            values[key] = json.dumps(value) if key in ("logs",) else value
        res = conn.execute(update(executions).where(and_(
            executions.c.runtime == runtime, executions.c.id == execution_id,
            executions.c.status.in_(list(expected)))).values(**values))
        conn.commit()
        return bool(res.rowcount == 1)

    def begin_pass(self, conn: Connection, runtime: str, execution_id: str, pass_number: int) -> None:
        """Record that pass ``pass_number`` starts (the caller owns the execution: it won the CAS)."""
        conn.execute(update(executions).where(and_(
            executions.c.runtime == runtime, executions.c.id == execution_id)).values(
            passes=pass_number, updated_at=now_ms()))
        conn.commit()

    def terminal_beyond(self, conn: Connection, runtime: str, keep: int, terminal: Sequence[str]) -> list[str]:
        """Ids of terminal executions older than the newest ``keep`` ones."""
        rows = conn.execute(select(executions.c.id).where(and_(
            executions.c.runtime == runtime, executions.c.status.in_(list(terminal))))
            .order_by(executions.c.created_at.desc(), executions.c.id.desc()).offset(max(keep, 0))).all()
        conn.commit()
        return [r[0] for r in rows]

    def touch(self, conn: Connection, runtime: str, execution_id: str) -> None:
        conn.execute(update(executions).where(and_(
            executions.c.runtime == runtime, executions.c.id == execution_id)).values(updated_at=now_ms()))
        conn.commit()

    def delete_execution(self, conn: Connection, runtime: str, execution_id: str) -> bool:
        conn.execute(delete(entries).where(and_(entries.c.runtime == runtime,
                                                entries.c.execution_id == execution_id)))
        res = conn.execute(delete(executions).where(and_(executions.c.runtime == runtime,
                                                         executions.c.id == execution_id)))
        conn.commit()
        return bool(res.rowcount == 1)

    def stale(self, conn: Connection, runtime: str, status: str, before_ms: int) -> list[str]:
        rows = conn.execute(select(executions.c.id).where(and_(
            executions.c.runtime == runtime, executions.c.status == status,
            executions.c.updated_at < before_ms))).all()
        conn.commit()
        return [r[0] for r in rows]

    def count_executions(self, conn: Connection, runtime: str) -> int:
        n = conn.execute(select(func.count()).select_from(executions).where(executions.c.runtime == runtime)).scalar()
        conn.commit()
        return int(n or 0)

    # -- entries --------------------------------------------------------------------------

    def entries(self, conn: Connection, runtime: str, execution_id: str) -> list[EntryRow]:
        rows = conn.execute(select(entries).where(and_(
            entries.c.runtime == runtime, entries.c.execution_id == execution_id)).order_by(entries.c.seq)).mappings()
        out = [_entry_row(r) for r in rows]
        conn.commit()
        return out

    def insert_entry(self, conn: Connection, runtime: str, execution_id: str, seq: int, connector: str,
                     method: str, args: str, state: str, *, requires_approval: bool, ephemeral: bool,
                     pass_number: int, result: str | None = None, error: str | None = None) -> bool:
        """Insert a journal entry; False if the seq is taken (another host got there first)."""
        t = now_ms()
        try:
            self._insert_entry.run(conn, {
                "runtime": runtime, "execution_id": execution_id, "seq": seq, "connector": connector,
                "method": method, "args": args, "result": result, "requires_approval": requires_approval,
                "ephemeral": ephemeral, "state": state, "error": error, "pass_number": pass_number,
                "created_at": t, "updated_at": t})
        except IntegrityError:
            conn.rollback()
            return False
        except Exception as exc:  # the DBAPI's own IntegrityError (the statement bypassed Core's wrapping)
            raw = conn.connection.dbapi_connection
            if raw is not None:
                raw.rollback()
            if type(exc).__name__ in ("IntegrityError", "UniqueViolation"):
                return False
            raise
        return True

    def finish_entry(self, conn: Connection, runtime: str, execution_id: str, seq: int, state: str, *,
                     result: str | None = None, error: str | None = None) -> bool:
        """Move an ``executing`` entry to ``applied`` (with its result) or ``error``; True if it was executing."""
        return self._finish_entry.run(conn, {
            "k_runtime": runtime, "k_execution_id": execution_id, "k_seq": seq, "k_state": "executing",
            "v_state": state, "v_result": result, "v_error": error, "v_updated_at": now_ms()}) == 1

    def set_entry(self, conn: Connection, runtime: str, execution_id: str, seq: int, expected: Sequence[str],
                  state: str, **fields: Any) -> bool:
        """Compare-and-set an entry's state; True if this caller won."""
        res = conn.execute(update(entries).where(and_(
            entries.c.runtime == runtime, entries.c.execution_id == execution_id, entries.c.seq == seq,
            entries.c.state.in_(list(expected)))).values(state=state, updated_at=now_ms(), **fields))
        conn.commit()
        return bool(res.rowcount == 1)

    # -- snippets -------------------------------------------------------------------------

    def upsert_snippet(self, conn: Connection, runtime: str, row: SnippetRow) -> None:
        conn.execute(delete(snippets).where(and_(snippets.c.runtime == runtime, snippets.c.name == row.name)))
        conn.execute(insert(snippets).values(
            runtime=runtime, name=row.name, description=row.description, code=row.code,
            input_schema=row.input_schema, connectors=json.dumps(row.connectors), execution_id=row.execution_id,
            saved_at=row.saved_at))
        conn.commit()

    def list_snippets(self, conn: Connection, runtime: str) -> list[SnippetRow]:
        rows = conn.execute(select(snippets).where(snippets.c.runtime == runtime).order_by(snippets.c.name)).mappings()
        out = [_snippet_row(r) for r in rows]
        conn.commit()
        return out

    def get_snippet(self, conn: Connection, runtime: str, name: str) -> SnippetRow | None:
        row = conn.execute(select(snippets).where(and_(snippets.c.runtime == runtime, snippets.c.name == name))
                           ).mappings().first()
        conn.commit()
        return _snippet_row(row) if row is not None else None

    def delete_snippet(self, conn: Connection, runtime: str, name: str) -> bool:
        res = conn.execute(delete(snippets).where(and_(snippets.c.runtime == runtime, snippets.c.name == name)))
        conn.commit()
        return bool(res.rowcount == 1)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _execution_row(r: Any) -> ExecutionRow:
    return ExecutionRow(
        runtime=r["runtime"], id=r["id"], code=r["code"], status=r["status"], result=r["result"],
        result_note=r["result_note"], error=r["error"], error_type=r["error_type"],
        logs=json.loads(r["logs"] or "[]"), connectors=json.loads(r["connectors"] or "[]"),
        inputs=json.loads(r["inputs"] or "{}"), options=json.loads(r["options"] or "{}"),
        passes=int(r["passes"] or 0), created_at=int(r["created_at"]), updated_at=int(r["updated_at"]))


def _entry_row(r: Any) -> EntryRow:
    return EntryRow(
        seq=int(r["seq"]), connector=r["connector"], method=r["method"], args=r["args"], result=r["result"],
        requires_approval=bool(r["requires_approval"]), ephemeral=bool(r["ephemeral"]), state=r["state"],
        error=r["error"], pass_number=int(r["pass_number"]), created_at=int(r["created_at"]),
        updated_at=int(r["updated_at"]))


def _snippet_row(r: Any) -> SnippetRow:
    return SnippetRow(
        name=r["name"], description=r["description"] or "", code=r["code"], input_schema=r["input_schema"],
        connectors=json.loads(r["connectors"] or "[]"), execution_id=r["execution_id"],
        saved_at=int(r["saved_at"]))
