"""The journal store: executions, journal entries and snippets in SQLAlchemy Core tables.

This module is the one home of SQLAlchemy. A SQLite file is the default (WAL, a busy
timeout, readable by its owner only); any SQLAlchemy URL works (PostgreSQL is tested).
Every row is keyed by the runtime *name*, so several named runtimes share one store.

State changes are compare-and-set (``UPDATE … WHERE status = :expected``) and report
whether they won, so two hosts racing to approve the same execution apply it once.

Calls are synchronous: on SQLite a statement takes microseconds, and running them on the
event loop keeps the per-call journal cost low (see benchmarks/bench_runtime.py). A pass
keeps one connection for its whole run (:meth:`JournalStore.session`).

A database failure (locked past the busy timeout, read-only, full, corrupted, unreachable)
is raised as :class:`~codemode_kernel.errors.StoreError` with a message saying what to do;
the operation that failed is rolled back, the connection stays usable.

Schema versions: ``codemode_meta`` holds ``schema_version`` and the ``package_version`` that
last wrote the schema. Opening an older journal backs it up (a copy beside a SQLite file,
``<file>.schema-v<N>.backup``; backup tables inside other databases) and then applies
:data:`MIGRATIONS` in one locked transaction; a newer journal is refused before anything
is written, naming the package version it needs.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import operator
import os
import sqlite3
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    ClauseElement,
    Column,
    Connection,
    CursorResult,
    Engine,
    Index,
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
    insert,
    inspect,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.compiler import SQLCompiler

from codemode_kernel.errors import SchemaVersionError, StoreError
from codemode_kernel.journal_files import shown_store

log = logging.getLogger(__name__)

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

# A runtime's executions newest first (schema version 2, issue 12): the retention prune at every
# pass's start (`_terminal_beyond`: the terminal ones after the newest `keep`) and the list of
# executions walk it instead of sorting every execution of the runtime. `status` rides along so
# the prune reads the index alone (SQLite: "USING COVERING INDEX", no table row per execution).
# Measured on the raw driver, the prune's query with 51 / 1,001 executions: 19 / 486 us sorted,
# 14 / 183 us on (runtime, created_at, id), 10 / 92 us with status in the index too;
# (runtime, created_at) alone still sorts by id (28 / 447 us). The index costs the insert and
# the status change of each pass one more B-tree entry each.
executions_by_creation = Index(
    "ix_codemode_executions_by_creation",
    executions.c.runtime, executions.c.created_at, executions.c.id, executions.c.status)

# A rowid table plus the index of its key, on purpose: as one B-tree (WITHOUT ROWID) a call's two
# writes cost ~4 us less CPU with small results, but 12% more with 20 kB ones, and replay reads
# rows of 2 kB and more 9-14% slower (`bench_runtime.py --layouts`, issue 12); not worth a
# rebuild of every journal.
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

# Migrations: (version, SQL statements that take the schema from version - 1 to it), in order.
# Version 1 is the schema create_all() made until issue 12; each entry here also changed the
# tables above (a fresh store is created at the newest version, never migrated), and
# tests/engine/test_store_migration.py checks that an upgraded store has what a fresh one has.
# The frozen v1 journal in tests/reliability/fixtures is opened by the upgrade specs.
Migration = tuple[int, Sequence[str]]
MIGRATIONS: list[Migration] = [
    # 2 (issue 12): executions_by_creation, as create_all() makes it.
    (2, ["CREATE INDEX ix_codemode_executions_by_creation ON codemode_executions (runtime, created_at, id, status)"]),
]
SCHEMA_VERSION = MIGRATIONS[-1][0] if MIGRATIONS else 1

# Statuses after which an execution has nothing waiting: its pending entries are settled in
# the same transaction as the status change (models.TERMINAL_STATUSES; the store does not
# import the models).
_TERMINAL = frozenset({"completed", "error", "rejected", "rolled_back"})
_STATUSES = frozenset({"running", "paused"}) | _TERMINAL
_ENTRY_STATES = frozenset({"executing", "applied", "pending", "reverted", "error"})
# What an execution inserted as it ended sets besides its start (JournalStore.start_execution).
_ENDED = ("status", "result", "result_note", "error", "error_type", "logs")
#: Connections a SQLite store keeps open between sessions (:meth:`JournalStore.session`).
KEPT_CONNECTIONS = 4
_ALL_ROWS = 1 << 62  # a LIMIT that every database takes for "no limit" (an OFFSET needs one on SQLite)


class _Prepared:
    """A Core statement compiled once for the store's dialect and run on the DBAPI connection.

    The journal's two hot statements (insert an entry, finish an entry) run once each per
    connector call, in one transaction (one call's finish rides with the next call's insert).
    Building and cache-keying a Core statement per call cost ~80 us each, which made a
    journaled call 4x slower than the SQLite floor (benchmarks/bench_runtime.py); compiling
    once keeps SQL generation in SQLAlchemy and the per-call cost near the driver's.
    """

    def __init__(self, stmt: ClauseElement | Callable[[], ClauseElement], engine: Engine,
                 names: Sequence[str] | None = None, *, key: Hashable = None) -> None:
        """``stmt``, or with ``key`` the function that builds it: then compiled once per process for
        every store of the same dialect (:data:`_COMPILED`)."""
        self.sql, order = _compiled(stmt, engine.dialect, key)
        self.order = list(order) if order is not None else None
        # The positional tuple taken in one C call (a generator over the names cost ~2 us per
        # statement of 12 parameters, issue 12); itemgetter of one name returns the bare value.
        self._take: Callable[[dict[str, Any]], Any] | None = None
        if self.order is not None and len(self.order) > 1:
            self._take = operator.itemgetter(*self.order)
        # ``names``: the order in which a hot caller passes its values as a tuple (:meth:`write`),
        # arranged once here for the dialect's paramstyle instead of a dict per call (issue 12).
        self.arrange: Callable[[tuple[Any, ...]], Any] = _as_given
        if names is not None:
            given = tuple(names)
            if self.order is None:  # a named paramstyle (psycopg's %(name)s): the dict it takes
                self.arrange = functools.partial(_named, given)
            elif tuple(self.order) != given:
                if sorted(self.order) != sorted(given):
                    raise ValueError(f"the statement takes {self.order}, the caller names {list(given)}")
                self.arrange = operator.itemgetter(*map(given.index, self.order))  # more than one: a tuple

    def bind(self, params: dict[str, Any]) -> Any:
        """The parameters in the form the driver takes (a tuple for a positional paramstyle)."""
        if self._take is not None:
            return self._take(params)
        return tuple(params[k] for k in self.order) if self.order is not None else params

    def write(self, raw: Any, values: tuple[Any, ...]) -> Any:
        """Run it on the driver's connection ``raw`` with ``values`` in the order of the ``names`` it was
        prepared with, inside whatever transaction is open there (no commit); the row count."""
        cur = raw.cursor()
        try:
            cur.execute(self.sql, self.arrange(values))
            return cur.rowcount
        finally:
            cur.close()

    def fetch(self, conn: Connection, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """Every row of a query, as the driver's cursor gives them (ends the read transaction): plain
        tuples from sqlite3 and psycopg (their default rows), not copied again (issue 12)."""
        raw = conn.connection.dbapi_connection
        assert raw is not None
        cur = raw.cursor()
        try:
            cur.execute(self.sql, self.bind(params))
            rows = cast("list[tuple[Any, ...]]", cur.fetchall())
        finally:
            cur.close()
        raw.commit()
        return rows

    def on(self, cursor: Any, params: dict[str, Any]) -> Any:
        """Run it on a driver cursor, inside whatever transaction is open there (no commit); the cursor."""
        cursor.execute(self.sql, self.bind(params))
        return cursor

    def seen(self, conn: Connection, cursor: Any, params: dict[str, Any]) -> Any:
        """:meth:`on`, and the engine's ``after_cursor_execute`` listeners hear of it as of a statement
        SQLAlchemy ran (the crash specs stop a host there); the cursor. Without SQLAlchemy's execution
        and its transaction bookkeeping, a state change costs ~18 us less (issue 12)."""
        bound = self.bind(params)
        cursor.execute(self.sql, bound)
        listeners = conn.dispatch.after_cursor_execute
        if listeners:
            listeners(conn, cursor, self.sql, bound, None, False)
        return cursor

    def execute(self, conn: Connection, params: dict[str, Any]) -> CursorResult[Any]:
        """Run it through SQLAlchemy as driver SQL: no statement is built, keyed or compiled per call
        (about 160 us less per statement than ``conn.execute(core_statement)`` here, issue 12), while
        the engine's events still see it (the crash specs hook ``after_cursor_execute``)."""
        return conn.exec_driver_sql(self.sql, self.bind(params))


# Statements compiled for a dialect, shared by every store of this process: (what the SQL depends on
# of the dialect, the statement's key) -> (its SQL, its parameters' order for a positional paramstyle).
# Compiled per store, a statement cost 0.4-1.1 ms of CPU (3.5 ms for the first in a process): ~4 ms
# of a store's first pass and again of its first approval, in every new store (the kernel opens one
# when it rebuilds its runtime after a connector change; issue 12). JournalStore warms the statements
# every runtime's passes use when it opens (:data:`_PASS_STATEMENTS`).
_COMPILED: dict[Hashable, tuple[str, tuple[str, ...] | None]] = {}


def _compiled(stmt: ClauseElement | Callable[[], ClauseElement], dialect: Any,
              key: Hashable = None) -> tuple[str, tuple[str, ...] | None]:
    """The SQL of ``stmt`` for ``dialect`` and its positional parameters' order (None: named);
    ``key`` names a statement that ``stmt()`` builds, compiled once per process and dialect."""
    cache_key = None
    if key is not None:
        cache_key = (type(dialect), dialect.paramstyle, dialect.positional, dialect.server_version_info, key)
        found = _COMPILED.get(cache_key)
        if found is not None:
            return found
    built = stmt() if not isinstance(stmt, ClauseElement) else stmt
    compiled = built.compile(dialect=dialect)
    assert isinstance(compiled, SQLCompiler)
    result = compiled.string, (tuple(compiled.positiontup or ()) if compiled.positional else None)
    if cache_key is not None:
        _COMPILED[cache_key] = result
    return result


# -- the statements a store keeps compiled (JournalStore._statement), by key -----------------------

def _insert_entry() -> ClauseElement:
    return insert(entries).values({c.name: bindparam(c.name) for c in entries.columns})


def _finish_entry() -> ClauseElement:
    return (update(entries).where(and_(
        entries.c.runtime == bindparam("k_runtime"), entries.c.execution_id == bindparam("k_execution_id"),
        entries.c.seq == bindparam("k_seq"), entries.c.state == bindparam("k_state")))
        .values(state=bindparam("v_state"), result=bindparam("v_result"), error=bindparam("v_error"),
                updated_at=bindparam("v_updated_at")))


def _insert_execution() -> ClauseElement:
    return insert(executions).values({c: bindparam(c) for c in (
        "runtime", "id", "code", "status", "logs", "connectors", "inputs", "options", "passes", "created_at",
        "updated_at")})


def _insert_ended_execution() -> ClauseElement:
    return insert(executions).values({c.name: bindparam(c.name) for c in executions.columns})


def _get_execution() -> ClauseElement:
    return select(executions).where(and_(
        executions.c.runtime == bindparam("k_runtime"), executions.c.id == bindparam("k_id")))


def _transition(expected: int, fields: Sequence[str]) -> Callable[[], ClauseElement]:
    """A status change from one of ``expected`` statuses, setting ``fields`` (``v_<name>``)."""
    x = executions

    def build() -> ClauseElement:
        return update(x).where(and_(
            x.c.runtime == bindparam("k_runtime"), x.c.id == bindparam("k_id"),
            x.c.status.in_([bindparam(f"k_expected{i}") for i in range(expected)]))).values(
            {k: bindparam(f"v_{k}") for k in fields})

    return build


def _set_entry(expected: int, fields: Sequence[str]) -> Callable[[], ClauseElement]:
    """An entry's state change from one of ``expected`` states, setting ``fields`` (``v_<name>``)."""
    e = entries

    def build() -> ClauseElement:
        return update(e).where(and_(
            e.c.runtime == bindparam("k_runtime"), e.c.execution_id == bindparam("k_execution_id"),
            e.c.seq == bindparam("k_seq"),
            e.c.state.in_([bindparam(f"k_expected{i}") for i in range(expected)]))).values(
            {k: bindparam(f"v_{k}") for k in fields})

    return build


def _settle_pending() -> ClauseElement:
    return update(entries).where(and_(
        entries.c.runtime == bindparam("k_runtime"), entries.c.execution_id == bindparam("k_id"),
        entries.c.state == bindparam("k_state"))).values(
        state=bindparam("v_state"), error=bindparam("v_error"), updated_at=bindparam("v_updated_at"))


#: How an execution started through the model-facing tool shows in its options' JSON (runtime ``via_tool``).
VIA_TOOL_JSON = '"via_tool": true'


def _terminal_beyond(statuses: int, via_tool: bool = False) -> Callable[[], ClauseElement]:
    """The ids of a runtime's executions in one of ``statuses`` statuses, newest first, after an offset
    (``via_tool``: of those started through the model-facing tool only)."""
    x = executions

    # ``status = ? OR status = ? …``, not ``status IN (?, ? …)``: with parameters SQLite builds the IN
    # list as an ephemeral index every time the statement runs (EXPLAIN: OpenEphemeral, an IdxInsert
    # per status, a NotFound per row). Every pass's start runs this query; cold (24 MiB touched
    # before each run), 50 executions, 40-80 runs in random order, three times: 143 -> 111,
    # 149 -> 122, 127 -> 107 us median (s11p).
    def build() -> ClauseElement:
        which = [x.c.runtime == bindparam("k_runtime"),
                 or_(*(x.c.status == bindparam(f"k_status{i}") for i in range(statuses)))]
        if via_tool:  # a model's programs prune only a model's programs (review 14, M4)
            which.append(x.c.options.like(bindparam("k_via_tool")))
        return (select(x.c.id).where(and_(*which))
            .order_by(x.c.created_at.desc(), x.c.id.desc())
            .limit(bindparam("k_all")).offset(bindparam("k_keep")))

    return build


def _delete_entries() -> ClauseElement:
    return delete(entries).where(and_(
        entries.c.runtime == bindparam("k_runtime"), entries.c.execution_id == bindparam("k_id")))


def _delete_execution() -> ClauseElement:
    return delete(executions).where(and_(
        executions.c.runtime == bindparam("k_runtime"), executions.c.id == bindparam("k_id")))


def _entries() -> ClauseElement:
    e = entries
    return select(
        e.c.seq, e.c.connector, e.c.method, e.c.args, e.c.result, e.c.requires_approval, e.c.ephemeral, e.c.state,
        e.c.error, e.c.pass_number, e.c.created_at, e.c.updated_at).where(and_(
            e.c.runtime == bindparam("k_runtime"), e.c.execution_id == bindparam("k_id"))).order_by(e.c.seq)


def _pass_entries() -> ClauseElement:
    """:func:`_entries` for a pass (:meth:`JournalStore.pass_entries`): the timestamps as constant zeros."""
    e = entries
    zero = literal_column("0", Integer)
    return select(
        e.c.seq, e.c.connector, e.c.method, e.c.args, e.c.result, e.c.requires_approval, e.c.ephemeral, e.c.state,
        e.c.error, e.c.pass_number, zero, zero).where(and_(
            e.c.runtime == bindparam("k_runtime"), e.c.execution_id == bindparam("k_id"))).order_by(e.c.seq)


def _entry_state() -> ClauseElement:
    """The state of the execution's entry ``k_seq``."""
    e = entries
    return select(e.c.state).where(and_(
        e.c.runtime == bindparam("k_runtime"), e.c.execution_id == bindparam("k_id"), e.c.seq == bindparam("k_seq")))


def _transition_key(expected: int, fields: Sequence[str]) -> tuple[Any, ...]:
    return ("transition", expected, tuple(fields))


# What every runtime's passes run (runtime.py, passes.py): a new execution's start and prune, an
# approval's claim, its journal read and its pass's claim of the approved call, and a pass's end as
# paused, completed or failed (``status`` and ``updated_at``, then the fields in the order the runtime
# gives them). Compiled when a store opens, once per process (:data:`_COMPILED`), not on a runtime's
# first pass and first approval.
_PASS_STATEMENTS: list[tuple[Hashable, Callable[[], ClauseElement]]] = [
    (("terminal_beyond", len(_TERMINAL), False), _terminal_beyond(len(_TERMINAL))),
    ("delete_entries", _delete_entries),
    ("delete_execution", _delete_execution),
    ("insert_execution", _insert_execution),
    ("insert_ended_execution", _insert_ended_execution),
    ("get_execution", _get_execution),
    ("entries", _entries),
    ("pass_entries", _pass_entries),
    ("settle_pending", _settle_pending),
    ("entry_state", _entry_state),
    (("set_entry", 1, ("state", "updated_at", "pass_number")), _set_entry(1, ("state", "updated_at", "pass_number"))),
    *((_transition_key(1, fields), _transition(1, fields)) for fields in (
        ("status", "updated_at", "passes"),
        ("status", "updated_at", "logs"),
        ("status", "updated_at", "result", "result_note", "logs"),
        ("status", "updated_at", "error", "error_type", "logs"))),
]


_PLAIN = (str, bool, type(None))  # values _json_of keeps: no two of them are equal with different JSON
_NOT_PLAIN = object()


def _plain_value(value: Any) -> Any:
    """``value`` as a key of _json_of's texts (a plain value, or a dict of strings: the connectors' targets), or
    _NOT_PLAIN."""
    if type(value) in _PLAIN:
        return value
    if type(value) is dict and all(type(k) is str and type(v) is str for k, v in value.items()):
        return ("dict", tuple(value.items()))
    return _NOT_PLAIN


def _as_given(values: tuple[Any, ...]) -> tuple[Any, ...]:
    return values


def _named(names: tuple[str, ...], values: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(names, values, strict=True))


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


class EntryRow(NamedTuple):
    """One journal entry as read (a named tuple: ~0.3 us to make against ~1.4 us for a frozen dataclass
    of 12 fields; a resumed pass makes one per recorded call, issue 12)."""

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


class Outcome(NamedTuple):
    """How a call ended, for :meth:`JournalStore.finish_entry`: ``applied`` with its result, or ``error``."""

    seq: int
    state: str
    result: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class SnippetRow:
    name: str
    description: str
    code: str
    input_schema: str | None
    connectors: list[str]
    execution_id: str | None
    saved_at: int


def _prepare_sqlite_file(url: str) -> None:
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink():  # a link is the person's own choice of file: neither created through nor changed
        return
    if not path.exists():
        # Created owner-only before SQLite opens it; SQLite gives -wal/-shm the same mode. O_NOFOLLOW:
        # a link planted meanwhile (a shared folder) is not followed to create its target (review 13).
        with contextlib.suppress(FileExistsError):
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_NOFOLLOW, 0o600)
            os.close(fd)
    else:
        with contextlib.suppress(OSError):  # not our file to change (e.g. shared read-only)
            os.chmod(path, 0o600)


F = TypeVar("F", bound=Callable[..., Any])

# (words in the driver's message or SQLite error name, what happened, what to do)
_FAULTS: list[tuple[tuple[str, ...], str, str]] = [
    (("database is locked", "database table is locked", "sqlite_busy"),
     "is locked by another writer (it held the lock past the busy timeout)",
     "Let the other process finish (or stop it) and try again; this change was not made."),
    (("readonly database", "read-only", "sqlite_readonly"),
     "is read-only for this process",
     "Make the file and its folder writable, or point the store at a writable place; this change was not made."),
    (("disk is full", "sqlite_full", "disk i/o error", "sqlite_ioerr", "no space left"),
     "could not be written (the disk is full, a file-size limit was hit, or the disk failed)",
     "Free some space (or raise the limit) and try again; this change was not made, earlier records are intact."),
    (("file is not a database", "malformed", "sqlite_corrupt", "sqlite_notadb"),
     "is not a readable SQLite database; the file is corrupted",
     "Move it aside and keep it for recovery (the next start makes a new, empty journal), or restore a "
     "backup (an upgrade leaves a '.schema-v<N>.backup' copy beside it)."),
    (("unable to open database", "sqlite_cantopen"),
     "cannot be opened",
     "Check that its folder exists and is writable by this process."),
]


def _store_fault(where: str, exc: BaseException, path: Path | None = None) -> StoreError:
    """The :class:`StoreError` for a driver error: its first line only (never the SQL or its parameters)."""
    orig = getattr(exc, "orig", None) or exc
    first = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    name = str(getattr(orig, "sqlite_errorname", "") or "")
    words = f"{first} {name}".lower()
    if path is not None and path.exists() and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        # SQLite says "unable to open" when it cannot make its WAL files beside a read-only file.
        words += " read-only"
    for keys, problem, advice in _FAULTS:
        if any(k in words for k in keys):
            return StoreError(where, f"{problem} ({first})", advice)
    return StoreError(where, f"failed ({type(orig).__name__}: {first})",
                      "Check that the database is reachable and try again; this change was not made.")


def _guarded(fn: F) -> F:
    """Translate driver errors of a store operation into :class:`StoreError`, leaving the connection usable."""

    @functools.wraps(fn)
    def wrapper(self: JournalStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except (DBAPIError, self._dbapi_error) as exc:
            raise self._fault(args[0] if args and isinstance(args[0], Connection) else None, exc) from exc

    return cast(F, wrapper)


def _abandon(conn: Connection) -> None:
    """Roll back what the failed operation began (through SQLAlchemy and on the raw connection)."""
    with contextlib.suppress(Exception):
        conn.rollback()
    with contextlib.suppress(Exception):
        raw = conn.connection.dbapi_connection
        if raw is not None:
            raw.rollback()


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("codemode-kernel")
    except Exception:
        return "unknown"


class JournalStore:
    """Tables for one or more named runtimes in one SQLAlchemy database.

    ``busy_timeout`` (seconds) is how long a SQLite write waits for another writer's lock
    before failing with a :class:`StoreError`. ``migrations`` replaces :data:`MIGRATIONS`
    (the upgrade specs inject some); the newest version it names is the one this store knows.
    """

    def __init__(self, url: str, *, engine: Engine | None = None, busy_timeout: float = 30.0,
                 migrations: Sequence[Migration] | None = None) -> None:
        self.url = url
        self.migrations = list(MIGRATIONS if migrations is None else migrations)
        self.schema_version = self.migrations[-1][0] if self.migrations else 1
        parsed = make_url(url)
        self.sqlite_path: Path | None = None
        if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:") \
                and not str(parsed.database).startswith("file:"):
            self.sqlite_path = Path(str(parsed.database))
        # Named as every front door names a store (the passwords masked: review 11, review 14 H3).
        self.where = str(self.sqlite_path) if self.sqlite_path else shown_store(url)
        if engine is None:
            is_sqlite = url.startswith("sqlite")
            if is_sqlite:
                try:
                    _prepare_sqlite_file(url)
                except OSError as exc:
                    raise _store_fault(self.where, exc, self.sqlite_path) from exc
                memory = make_url(url).database in (None, "", ":memory:")
                if memory:  # one shared connection, or every checkout would see a new empty database
                    engine = create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
                else:
                    engine = create_engine(url, connect_args={"timeout": busy_timeout, "check_same_thread": False})
                busy_ms = int(busy_timeout * 1000)
                event.listen(engine, "connect", lambda dbapi_conn, _record: _sqlite_pragmas(dbapi_conn, busy_ms))
            else:
                engine = create_engine(url, pool_pre_ping=True)
        self.engine = engine
        self.dialect = engine.dialect.name
        self._dbapi_error: type[Exception] = getattr(engine.dialect.loaded_dbapi, "Error", DBAPIError)
        try:
            self._migrate()
        except StoreError:
            engine.dispose()
            raise
        except (DBAPIError, self._dbapi_error) as exc:
            engine.dispose()
            raise _store_fault(self.where, exc, self.sqlite_path) from exc
        # A call's two statements, their values passed as tuples in these orders (issue 12).
        self._insert_entry = _Prepared(_insert_entry, engine, names=[c.name for c in entries.columns],
                                       key="insert_entry")
        self._finish_entry = _Prepared(
            _finish_entry, engine, names=["v_result", "v_state", "v_error", "v_updated_at", "k_runtime",
                                          "k_execution_id", "k_seq", "k_state"], key="finish_entry")
        self._statements: dict[Hashable, _Prepared] = {}
        for key, build in _PASS_STATEMENTS:  # compiled now, not on the first pass or approval (_COMPILED)
            self._statement(key, build)
        self._texts: dict[tuple[Any, ...], str] = {}  # JSON of connector lists and options (_json_of)
        self._kept: list[Connection] = []  # open connections between sessions (SQLite), last kept last
        self._keep = self.dialect == "sqlite"
        self._disposed = False

    def _fault(self, conn: Connection | None, exc: BaseException) -> StoreError:
        """The :class:`StoreError` for a driver error of an operation on ``conn``, rolled back there."""
        if conn is not None:
            _abandon(conn)
        return _store_fault(self.where, exc, self.sqlite_path)

    def _json_of(self, value: Sequence[str] | Mapping[str, Any]) -> str:
        """``json.dumps`` of an execution's connector names or options, kept per value while it is made of
        plain names and flags: they are the same pass after pass (~15-20 us each of a spaced pass's cold
        CPU, issue 12). A value of other types (1 and True are equal keys, their JSON is not) is not kept."""
        if isinstance(value, Mapping):
            key: tuple[Any, ...] = tuple((k, _plain_value(v)) for k, v in value.items())
            plain = all(type(k) is str and v is not _NOT_PLAIN for k, v in key)
        else:
            key = tuple(value)
            plain = all(type(k) is str for k in key)
        if plain and (text := self._texts.get(key)) is not None:
            return text
        text = json.dumps(dict(value) if isinstance(value, Mapping) else list(value))
        if plain:
            if len(self._texts) >= 64:
                self._texts.clear()
            self._texts[key] = text
        return text

    def _statement(self, key: Hashable, build: Callable[[], ClauseElement]) -> _Prepared:
        """The statement ``build()`` makes, compiled once per process, dialect and ``key`` (issue 12)."""
        prepared = self._statements.get(key)
        if prepared is None:
            prepared = self._statements[key] = _Prepared(build, self.engine, key=key)
        return prepared

    # -- schema ------------------------------------------------------------------------

    def _stored_version(self, conn: Connection) -> tuple[int, str | None] | None:
        """(schema version, package version that wrote it), or None for a store without our tables."""
        if not inspect(conn).has_table(meta_table.name):
            return None
        rows = {str(k): str(v) for k, v in conn.execute(select(meta_table.c.key, meta_table.c.value)).all()}
        if "schema_version" not in rows:
            return None
        return int(rows["schema_version"]), rows.get("package_version")

    def _migrate(self) -> None:
        with self.engine.connect() as conn:
            found = self._stored_version(conn)
            conn.rollback()
        if found is not None:
            self._refuse_newer(*found)
            if found[0] < self.schema_version:
                self._upgrade(found[0])
                return
            return
        metadata.create_all(self.engine)
        with contextlib.suppress(IntegrityError), self.engine.begin() as conn:  # another host initialised it
            conn.execute(insert(meta_table).values([
                {"key": "schema_version", "value": str(self.schema_version)},
                {"key": "package_version", "value": _package_version()}]))
        with self.engine.connect() as conn:
            found = self._stored_version(conn)
        if found is not None:
            self._refuse_newer(*found)

    def _refuse_newer(self, version: int, written_by: str | None) -> None:
        if version > self.schema_version:
            raise SchemaVersionError(self.where, version, self.schema_version, written_by, _package_version())

    def _upgrade(self, version: int) -> None:
        """Back up, then apply the migrations after ``version`` in one locked transaction."""
        backup = self._backup(version)
        target = self.schema_version
        steps = [(v, sql) for v, sql in self.migrations if v > version]
        try:
            with self.engine.connect() as conn:
                if self.dialect == "sqlite":
                    # pysqlite runs DDL outside transactions unless told otherwise: take the
                    # write lock ourselves so the whole upgrade commits or not at all.
                    raw = conn.connection.driver_connection
                    assert raw is not None
                    previous = raw.isolation_level
                    raw.isolation_level = None
                    try:
                        raw.execute("BEGIN IMMEDIATE")
                        try:
                            self._apply(conn, steps)
                        except BaseException:
                            raw.execute("ROLLBACK")
                            raise
                        raw.execute("COMMIT")
                    finally:
                        raw.isolation_level = previous
                else:
                    with conn.begin():
                        conn.execute(meta_table.select().with_for_update())
                        self._apply(conn, steps)
        except (DBAPIError, self._dbapi_error) as exc:
            first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
            saved = f" A copy from before the upgrade is at {backup}." if backup else ""
            raise StoreError(self.where, f"could not be upgraded from schema version {version} to {target} ({first})",
                             f"Nothing was changed.{saved} Report this with the message above.") from exc
        log.info("journal %s upgraded from schema version %s to %s", self.where, version, target)

    def _apply(self, conn: Connection, steps: Sequence[Migration]) -> None:
        found = self._stored_version(conn)  # again, under the lock: another host may have upgraded it
        current = found[0] if found else 0
        for version, statements in steps:
            if version <= current:
                continue
            for sql in statements:
                conn.exec_driver_sql(sql)
            current = version
        conn.execute(update(meta_table).where(meta_table.c.key == "schema_version").values(value=str(current)))
        conn.execute(delete(meta_table).where(meta_table.c.key == "package_version"))
        conn.execute(insert(meta_table).values(key="package_version", value=_package_version()))

    def _backup(self, version: int) -> str | None:
        """A copy of the store as it is before upgrading from ``version``; where it is."""
        if self.sqlite_path is not None:
            target = self.sqlite_path.with_name(f"{self.sqlite_path.name}.schema-v{version}.backup")
            if target.exists():  # an earlier attempt (or another host) made it: that copy is the one to keep
                return str(target)
            partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
            try:
                fd = os.open(partial, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
                os.close(fd)
                raw = self.engine.raw_connection()
                try:
                    copy = sqlite3.connect(partial)
                    try:
                        raw.driver_connection.backup(copy)  # type: ignore[union-attr]
                        copied = copy.execute("SELECT value FROM codemode_meta WHERE key = 'schema_version'").fetchone()
                    finally:
                        copy.close()
                finally:
                    raw.close()
                # Keep it only if it is still the old version (another host may have upgraded
                # meanwhile), and never replace a copy another host made first.
                if copied is not None and copied[0] == str(version):
                    with contextlib.suppress(FileExistsError):
                        os.link(partial, target)
            except (OSError, sqlite3.Error) as exc:
                raise StoreError(self.where, f"needs an upgrade from schema version {version}, but the backup "
                                 f"copy {target} could not be written ({exc})",
                                 "Free some space or make its folder writable, then open it again; "
                                 "nothing was changed.") from exc
            finally:
                with contextlib.suppress(OSError):
                    partial.unlink()
            return str(target)
        if self.engine.dialect.name == "sqlite":
            return None  # in memory: nothing outlives the process anyway
        # Other databases: copies of the tables beside them, in the same database.
        suffix = f"_backup_v{version}"
        with self.engine.begin() as conn:
            existing = set(inspect(conn).get_table_names())
            for table in (executions, entries, snippets, meta_table):
                name = table.name + suffix
                if name in existing or table.name not in existing:
                    continue
                quoted = self.engine.dialect.identifier_preparer.quote
                conn.exec_driver_sql(f"CREATE TABLE {quoted(name)} AS SELECT * FROM {quoted(table.name)}")
        return f"the tables named *{suffix}"

    def dispose(self) -> None:
        """Close every connection (a session still open closes its own when it ends)."""
        self._keep = False
        self._disposed = True
        while self._kept:
            with contextlib.suppress(Exception):
                self._kept.pop().close()
        self.engine.dispose()

    @contextmanager
    def session(self) -> Iterator[Connection]:
        """One connection for a sequence of operations (each write commits on its own).

        On SQLite the connection is kept open for the next session when this one ends with no
        transaction left open (at most :data:`KEPT_CONNECTIONS`, the last one kept is the next
        one used): every pass opens a session, and the pool's checkout and check-in (its
        queue, its events, its reset) are most of the cost of a spaced pass that is not the
        journal's own SQL (issue 12; the module docstring of ``runtime.py`` says why spaced
        passes are dearer). The pool keeps an idle connection open just the same; a file has
        no server that could drop it meanwhile. Other databases check out from the pool each
        time, with its pre-ping.
        """
        conn: Connection | None = None
        with contextlib.suppress(IndexError):
            conn = self._kept.pop()
        if conn is None:
            try:
                conn = self.engine.connect()
            except (DBAPIError, self._dbapi_error) as exc:  # e.g. the database server is down
                raise _store_fault(self.where, exc, self.sqlite_path) from exc
        try:
            yield conn
        finally:
            self._release(conn)

    def _release(self, conn: Connection) -> None:
        """Keep ``conn`` for the next session (SQLite, nothing left open), else close it."""
        if self._keep and len(self._kept) < KEPT_CONNECTIONS and not conn.closed and not conn.invalidated:
            try:
                # What the pool's reset on check-in does: end a transaction SQLAlchemy began, and one
                # begun on the driver's cursor; asked first, as a pass almost always ends with none open
                # (two rollbacks that do nothing were ~10 us of a spaced pass's cold CPU, issue 12).
                if conn.in_transaction():
                    conn.rollback()
                raw = conn.connection.dbapi_connection
                if raw is not None and raw.in_transaction:
                    raw.rollback()
            except Exception:
                log.debug("a journal connection could not be reset; closing it", exc_info=True)
            else:
                self._kept.append(conn)
                return
        with contextlib.suppress(Exception):  # closing a broken connection: nothing more to do
            if self._disposed:  # its pool is gone: close the driver's connection now, not when collected
                conn.invalidate()
            conn.close()

    # -- executions ----------------------------------------------------------------------

    @_guarded
    def insert_execution(self, conn: Connection, runtime: str, execution_id: str, code: str,
                         connectors: Sequence[str], inputs: dict[str, Any], options: dict[str, Any], *,
                         passes: int = 0) -> None:
        self._insert_execution(conn, runtime, execution_id, code, connectors, inputs, options, passes)
        conn.commit()

    def _insert_execution(self, conn: Connection, runtime: str, execution_id: str, code: str,
                          connectors: Sequence[str], inputs: dict[str, Any], options: dict[str, Any],
                          passes: int, cursor: Any = None, ended: Mapping[str, Any] | None = None) -> None:
        t = now_ms()
        params = {"runtime": runtime, "id": execution_id, "code": code, "status": "running", "logs": "[]",
                  "connectors": self._json_of(connectors), "inputs": json.dumps(inputs) if inputs else "{}",
                  "options": self._json_of(options), "passes": passes,
                  "created_at": t, "updated_at": t}
        if ended is None:
            stmt = self._statement("insert_execution", _insert_execution)
        else:
            unknown = set(ended) - set(_ENDED)
            if unknown or ended.get("status") not in _STATUSES:
                raise ValueError(f"an ended execution takes {list(_ENDED)} (status one of {sorted(_STATUSES)}); "
                                 f"got {sorted(ended)} with status {ended.get('status')!r}")
            stmt = self._statement("insert_ended_execution", _insert_ended_execution)
            params.update({k: None for k in _ENDED}, **ended)
            logs = ended.get("logs")
            params["logs"] = json.dumps(logs) if logs else "[]"
        if cursor is not None:
            stmt.on(cursor, params)
        else:
            stmt.execute(conn, params)

    @_guarded
    def start_execution(self, conn: Connection, runtime: str, execution_id: str, code: str,
                        connectors: Sequence[str], inputs: dict[str, Any], options: dict[str, Any], *,
                        keep: int, terminal: Sequence[str], passes: int = 1,
                        ended: Mapping[str, Any] | None = None) -> int:
        """Prune terminal executions beyond the newest ``keep``, then insert a new ``running``
        execution whose first pass has begun (``passes=0``: none will), in one transaction;
        return how many were pruned.

        ``ended``: the pass is already over, and the execution is inserted as it ended, in the
        same transaction: ``status`` and any of ``result``, ``result_note``, ``error``,
        ``error_type``, ``logs`` (a list), as :meth:`transition` would have set them (a pass that
        asked the host nothing records its start with its end: the runtime's ``PassStart.fold``).
        An insert and an update of the same row cost ~90 us more CPU on a spaced pass than the
        insert alone (measured on a file, 50 ms apart, issue 12).

        One commit instead of one per statement (issue 12: the prune, the insert and the start
        of the pass were four commits, about 1.5 ms of a 5 ms pass). The new execution is
        inserted after the prune, so it is never a victim. Run on the driver's cursor, like a
        call's entries: every new execution starts here, and SQLAlchemy's execution and result
        handling cost ~50 us of host CPU per pass (issue 12, measured with an executor that
        returns at once).
        """
        raw = conn.connection.dbapi_connection
        assert raw is not None
        cursor = raw.cursor()
        try:
            victims = self._terminal_beyond(conn, runtime, keep, terminal, cursor,
                                            via_tool=bool(options.get("via_tool")))
            for victim in victims:
                self._delete_execution(conn, runtime, victim, cursor)
            self._insert_execution(conn, runtime, execution_id, code, connectors, inputs, options, passes, cursor,
                                   ended)
        finally:
            cursor.close()
        raw.commit()
        return len(victims)

    @_guarded
    def get_execution(self, conn: Connection, runtime: str, execution_id: str) -> ExecutionRow | None:
        row = self._statement("get_execution", _get_execution).execute(
            conn, {"k_runtime": runtime, "k_id": execution_id}).mappings().first()
        conn.commit()
        return _execution_row(row) if row is not None else None

    @_guarded
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

    @_guarded
    def transition(self, conn: Connection, runtime: str, execution_id: str, expected: Sequence[str],
                   status: str, *, settle_pending: bool = True, pending_seq: int | None = None,
                   **fields: Any) -> bool:
        """Compare-and-set the status; True if this caller won.

        ``pending_seq``: only if the execution's call #``pending_seq`` is ``pending`` too, read in the
        claim's transaction once its ``UPDATE`` holds the execution's row (SQLite: the one writer's
        lock; PostgreSQL: the row lock, after any host that held it committed). Every change that ends
        a pending call commits with a status change of that row (a claim, a reject, an expiry) or
        while the execution is not ``paused``, so no other change can come between the check and the
        status change: an approval meant for one pending call cannot claim a later one that its
        sender never saw (issue 12, s11p, review 11).

        Moving to a terminal status also ends the execution's ``pending`` entries (state
        ``error``, error = the ``error_type`` given, else the status), atomically.
        ``settle_pending=False`` skips that statement for a caller that knows there are none
        (the host that ran the pass: only a pass writes entries, issue 12).
        """
        values: dict[str, Any] = {"status": status, "updated_at": now_ms()}
        for key, value in fields.items():
            values[key] = json.dumps(value) if key in ("logs",) else value
        expected = list(expected)
        params = {"k_runtime": runtime, "k_id": execution_id, **{f"k_expected{i}": e for i, e in enumerate(expected)},
                  **{f"v_{k}": v for k, v in values.items()}}
        guarded = pending_seq is not None
        if guarded:
            params["k_seq"] = pending_seq
        # On the driver's cursor, one transaction (issue 12: every pass ends here).
        raw = conn.connection.dbapi_connection
        assert raw is not None
        cursor = raw.cursor()
        try:
            changed = tuple(values)
            won = bool(self._statement(_transition_key(len(expected), changed),
                                       _transition(len(expected), changed)).seen(conn, cursor, params)
                       .rowcount == 1)
            if won and guarded:
                # Read after the UPDATE, as a statement of its own, now that the claim holds the row: on
                # PostgreSQL (READ COMMITTED) an UPDATE that waited for another host's transaction re-checks
                # the row's status on its newest version, but anything else in it (a subquery) is evaluated
                # on the statement's first snapshot, where call #k may still be pending although that host
                # approved it and paused on a later call (review 11). A new statement sees what that host
                # committed; the claim then gives way.
                #
                # Design log (s12a): from 7c58066 the check was an ``AND EXISTS (SELECT … state =
                # 'pending')`` in the UPDATE; review 11 (b5072e8) added this read for PostgreSQL, and the
                # two checked the same thing. Each removed in turn on the tree of c131957, run on SQLite and
                # PostgreSQL (tests/runtime/test_s12a_claim_race.py, test_review11_approval_seq.py,
                # test_s11p_stale_approval.py): without the read 4 failed (review 11's stale click that
                # waited for another host's row, approve and reject, both executors, PostgreSQL: the EXISTS
                # alone let it decide call #1); without the EXISTS 76 passed. So the read alone is the
                # check and the EXISTS went. A stale claim now takes the row and rolls back instead of
                # matching no row: the same outcome (nothing changed, False).
                state = self._statement("entry_state", _entry_state).seen(conn, cursor, params).fetchone()
                if state is None or state[0] != "pending":
                    raw.rollback()
                    return False
            if won and settle_pending and status in _TERMINAL:
                # Nothing waits in a finished execution. Settled in the same transaction, so a host that
                # dies right after a reject or an expiry leaves no pending call behind.
                self._statement("settle_pending", _settle_pending).seen(
                    conn, cursor, {"k_runtime": runtime, "k_id": execution_id, "k_state": "pending",
                                   "v_state": "error", "v_error": fields.get("error_type") or status,
                                   "v_updated_at": values["updated_at"]})
        finally:
            cursor.close()
        raw.commit()
        return won

    @_guarded
    def terminal_beyond(self, conn: Connection, runtime: str, keep: int, terminal: Sequence[str]) -> list[str]:
        """Ids of terminal executions older than the newest ``keep`` ones."""
        ids = self._terminal_beyond(conn, runtime, keep, terminal)
        conn.commit()
        return ids

    def _terminal_beyond(self, conn: Connection, runtime: str, keep: int, terminal: Sequence[str],
                         cursor: Any = None, *, via_tool: bool = False) -> list[str]:
        terminal = list(terminal)
        stmt = self._statement(("terminal_beyond", len(terminal), via_tool), _terminal_beyond(len(terminal), via_tool))
        params = {"k_runtime": runtime, "k_keep": max(keep, 0), "k_all": _ALL_ROWS,
                  **{f"k_status{i}": t for i, t in enumerate(terminal)}}
        if via_tool:
            params["k_via_tool"] = f"%{VIA_TOOL_JSON}%"

        rows = stmt.on(cursor, params).fetchall() if cursor is not None else stmt.execute(conn, params).all()
        return [r[0] for r in rows]

    @_guarded
    def delete_execution(self, conn: Connection, runtime: str, execution_id: str) -> bool:
        deleted = self._delete_execution(conn, runtime, execution_id)
        conn.commit()
        return deleted

    def _delete_execution(self, conn: Connection, runtime: str, execution_id: str, cursor: Any = None) -> bool:
        params = {"k_runtime": runtime, "k_id": execution_id}
        statements = (
            self._statement("delete_entries", _delete_entries),
            self._statement("delete_execution", _delete_execution))
        count = 0
        for stmt in statements:  # the execution's row last: its count says whether it was there
            count = stmt.on(cursor, params).rowcount if cursor is not None else stmt.execute(conn, params).rowcount
        return bool(count == 1)

    @_guarded
    def stale(self, conn: Connection, runtime: str, status: str, before_ms: int) -> list[str]:
        # At or before the cutoff: expire_paused(max_age=0) expires an execution updated in this
        # very millisecond too (with '<' it missed one now and then on a fast machine).
        rows = conn.execute(select(executions.c.id).where(and_(
            executions.c.runtime == runtime, executions.c.status == status,
            executions.c.updated_at <= before_ms))).all()
        conn.commit()
        return [r[0] for r in rows]

    # -- health ---------------------------------------------------------------------------

    @_guarded
    def integrity_problems(self) -> list[str]:
        """What is wrong with the stored data; ``[]`` when it is sound.

        On SQLite, ``PRAGMA integrity_check`` first (pages, indexes). Then the journal's rules,
        on any database: statuses and entry states are known ones; every entry belongs to an
        execution; a ``pending`` entry is only in a running or paused execution, and a paused
        one has one; an ``executing`` entry (its outcome unknown) only in a running, error or
        rolled_back one, unless its connector said so (``OutcomeUnknown``: the program got the error);
        a completed execution has its result or a note saying why not; the schema version is the one
        this store knows.
        """
        problems: list[str] = []
        e, x = entries, executions
        joined = e.join(x, and_(e.c.runtime == x.c.runtime, e.c.execution_id == x.c.id))
        with self.engine.connect() as conn:
            if self.dialect == "sqlite":
                checked = [r[0] for r in conn.exec_driver_sql("PRAGMA integrity_check").all()]
                if checked != ["ok"]:  # the rules below would only read garbage
                    return [f"sqlite integrity_check: {line}" for line in checked]
            version = conn.execute(select(meta_table.c.value).where(meta_table.c.key == "schema_version")).scalar()
            if version != str(self.schema_version):
                problems.append(f"schema_version is {version!r}, expected {self.schema_version}")
            for runtime, eid, status in conn.execute(
                    select(x.c.runtime, x.c.id, x.c.status).where(x.c.status.not_in(sorted(_STATUSES)))):
                problems.append(f"{runtime}/{eid}: unknown status {status!r}")
            for runtime, eid, seq, state in conn.execute(
                    select(e.c.runtime, e.c.execution_id, e.c.seq, e.c.state)
                    .where(e.c.state.not_in(sorted(_ENTRY_STATES)))):
                problems.append(f"{runtime}/{eid}#{seq}: unknown entry state {state!r}")
            orphans = select(e.c.runtime, e.c.execution_id, e.c.seq).where(~select(x.c.id).where(and_(
                x.c.runtime == e.c.runtime, x.c.id == e.c.execution_id)).exists())
            for runtime, eid, seq in conn.execute(orphans):
                problems.append(f"{runtime}/{eid}#{seq}: entry of an execution that does not exist")
            rules = [("pending", ("running", "paused")), ("executing", ("running", "error", "rolled_back"))]
            for state, allowed in rules:
                which = [e.c.state == state, x.c.status.not_in(allowed)]
                if state == "executing":  # a request sent and unanswered: the program got its error and went on
                    which.append(or_(e.c.error.is_(None), ~e.c.error.like("OutcomeUnknown:%")))
                for runtime, eid, seq, status in conn.execute(
                        select(e.c.runtime, e.c.execution_id, e.c.seq, x.c.status).select_from(joined)
                        .where(and_(*which))):
                    problems.append(f"{runtime}/{eid}#{seq}: a {state} entry in a {status} execution")
            waiting = select(e.c.seq).where(and_(e.c.runtime == x.c.runtime, e.c.execution_id == x.c.id,
                                                 e.c.state == "pending")).exists()
            for runtime, eid in conn.execute(select(x.c.runtime, x.c.id).where(and_(x.c.status == "paused",
                                                                                   ~waiting))):
                problems.append(f"{runtime}/{eid}: paused with no pending call")
            for runtime, eid in conn.execute(select(x.c.runtime, x.c.id).where(and_(
                    x.c.status == "completed", x.c.result.is_(None), x.c.result_note.is_(None)))):
                problems.append(f"{runtime}/{eid}: completed without a result or a note")
            conn.rollback()
        return problems

    # -- entries --------------------------------------------------------------------------

    @_guarded
    def entries(self, conn: Connection, runtime: str, execution_id: str) -> list[EntryRow]:
        # Read on the driver's cursor, as tuples in EntryRow's order: a resumed pass reads its whole
        # journal, and SQLAlchemy's row objects cost ~8 us per entry of a 1,000-call replay (issue 12).
        # Each row made with tuple.__new__, not EntryRow(...) (a Python-level __new__ per row), and its
        # integers as the driver gives them (ints from both drivers; SQLite's booleans are 0 and 1, so
        # those two are converted): 5.74 / 6.07 / 3.04 -> 4.79 / 4.99 / 2.76 us per entry, the raw read
        # alone 3.63 / 3.78 / 1.93 (1,000 entries, 3 runs of 15 alternating rounds, load ~7.5; issue 12).
        rows = self._statement("entries", _entries).fetch(conn, {"k_runtime": runtime, "k_id": execution_id})
        make = tuple.__new__
        return [make(EntryRow, (seq, connector, method, args, result, bool(approval), bool(ephemeral), state, error,
                                pass_number, created, updated))
                for seq, connector, method, args, result, approval, ephemeral, state, error, pass_number, created,
                updated in rows]

    @_guarded
    def pass_entries(self, conn: Connection, runtime: str, execution_id: str) -> dict[int, EntryRow]:
        """An execution's journal for a pass over it, by seq: :meth:`entries` without what a pass never
        reads, made with fewer Python objects (issue 12, s11p: an approval reads its whole journal).

        The timestamps are 0 (a pass's own rows have 0 too, passes.py), and ``requires_approval`` and
        ``ephemeral`` are the driver's values, compared by truth only (SQLite: 0 or 1; PostgreSQL:
        booleans). The SQL gives the rows in :class:`EntryRow`'s shape, so each is made in one C call
        (no Python-level unpacking, no two timestamps decoded): figures beside :data:`_PASS_READ`."""
        rows = self._statement("pass_entries", _pass_entries).fetch(conn, {"k_runtime": runtime, "k_id": execution_id})
        made = list(map(_PASS_READ, rows))
        return dict(zip(map(_SEQ, made), made, strict=True))

    # insert_entry and finish_entry run once each per connector call: they translate driver errors
    # themselves (what @_guarded does, without its frame and the repacking of their keywords: ~0.4 us
    # a call, issue 12). Tried and not kept: the outcome's UPDATE run inline on the insert's cursor
    # with one clock reading, ~1-1.5 us less a call (bench_runtime.handler_call_us shape, 6 rounds,
    # load ~2), but a subclass's finish_entry (the crash specs' kill point, a failing disk in
    # tests/runtime) would no longer see the outcome that rides with a mark.

    def insert_entry(self, conn: Connection, runtime: str, execution_id: str, seq: int, connector: str,
                     method: str, args: str, state: str, *, requires_approval: bool, ephemeral: bool,
                     pass_number: int, result: str | None = None, error: str | None = None,
                     finish: Outcome | None = None) -> bool:
        """Insert a journal entry; False if the seq is taken (another host got there first).

        ``finish`` is the outcome of an earlier call of the same execution, recorded in the same
        transaction (before the insert, through :meth:`finish_entry`): one commit for both, and
        neither is stored without the other. When the seq is taken the outcome is still recorded.
        """
        try:
            if finish is not None:
                self.finish_entry(conn, runtime, execution_id, finish.seq, finish.state, result=finish.result,
                                  error=finish.error, commit=False)
            t = now_ms()
            raw = conn.connection.dbapi_connection
            assert raw is not None
            try:
                self._insert_entry.write(raw, (runtime, execution_id, seq, connector, method, args, result,
                                               requires_approval, ephemeral, state, error, pass_number, t, t))
            except Exception as exc:  # the DBAPI's own IntegrityError (the statement bypasses Core's wrapping)
                raw.rollback()
                if type(exc).__name__ not in ("IntegrityError", "UniqueViolation"):
                    raise
            else:
                raw.commit()
                return True
            if finish is not None:  # rolled back with the taken seq's insert: recorded on its own
                self.finish_entry(conn, runtime, execution_id, finish.seq, finish.state, result=finish.result,
                                  error=finish.error)
            return False
        except (DBAPIError, self._dbapi_error) as exc:
            raise self._fault(conn, exc) from exc

    def finish_entry(self, conn: Connection, runtime: str, execution_id: str, seq: int, state: str, *,
                     result: str | None = None, error: str | None = None, commit: bool = True) -> bool:
        """Move an ``executing`` entry to ``applied`` (with its result) or ``error``; True if it was executing.

        ``commit=False`` leaves the change in the open transaction (the caller commits it).
        """
        try:
            raw = conn.connection.dbapi_connection
            assert raw is not None
            won = self._finish_entry.write(raw, (result, state, error, now_ms(), runtime, execution_id, seq,
                                                 "executing")) == 1
            if commit:
                raw.commit()
            return bool(won)
        except (DBAPIError, self._dbapi_error) as exc:
            raise self._fault(conn, exc) from exc

    @_guarded
    def set_entry(self, conn: Connection, runtime: str, execution_id: str, seq: int, expected: Sequence[str],
                  state: str, **fields: Any) -> bool:
        """Compare-and-set an entry's state; True if this caller won.

        Compiled once per set of fields and run on the driver's cursor like :meth:`transition`: an
        approval's pass claims its pending call here, and a Core statement built, cache-keyed and run
        through SQLAlchemy per call cost ~150 us more (issue 12)."""
        expected = list(expected)
        changed = ("state", "updated_at", *fields)
        params = {"k_runtime": runtime, "k_execution_id": execution_id, "k_seq": seq,
                  **{f"k_expected{i}": e for i, e in enumerate(expected)},
                  "v_state": state, "v_updated_at": now_ms(), **{f"v_{k}": v for k, v in fields.items()}}
        raw = conn.connection.dbapi_connection
        assert raw is not None
        cursor = raw.cursor()
        try:
            won = bool(self._statement(("set_entry", len(expected), changed),
                                       _set_entry(len(expected), changed)).seen(conn, cursor, params).rowcount == 1)
        finally:
            cursor.close()
        raw.commit()
        return won

    # -- snippets -------------------------------------------------------------------------

    @_guarded
    def upsert_snippet(self, conn: Connection, runtime: str, row: SnippetRow) -> None:
        conn.execute(delete(snippets).where(and_(snippets.c.runtime == runtime, snippets.c.name == row.name)))
        conn.execute(insert(snippets).values(
            runtime=runtime, name=row.name, description=row.description, code=row.code,
            input_schema=row.input_schema, connectors=json.dumps(row.connectors), execution_id=row.execution_id,
            saved_at=row.saved_at))
        conn.commit()

    @_guarded
    def list_snippets(self, conn: Connection, runtime: str) -> list[SnippetRow]:
        rows = conn.execute(select(snippets).where(snippets.c.runtime == runtime).order_by(snippets.c.name)).mappings()
        out = [_snippet_row(r) for r in rows]
        conn.commit()
        return out

    @_guarded
    def get_snippet(self, conn: Connection, runtime: str, name: str) -> SnippetRow | None:
        if "\x00" in name:  # no stored name holds it (PostgreSQL refuses it even as a parameter; review 11)
            return None
        row = conn.execute(select(snippets).where(and_(snippets.c.runtime == runtime, snippets.c.name == name))
                           ).mappings().first()
        conn.commit()
        return _snippet_row(row) if row is not None else None

    @_guarded
    def delete_snippet(self, conn: Connection, runtime: str, name: str) -> bool:
        res = conn.execute(delete(snippets).where(and_(snippets.c.runtime == runtime, snippets.c.name == name)))
        conn.commit()
        return bool(res.rowcount == 1)


#: A pass's journal row as an :class:`EntryRow` (:meth:`JournalStore.pass_entries`), and its seq.
#: Against :meth:`JournalStore.entries` and a dict made of it (what an approval did), 1,000 entries
#: on a file, 30 alternating rounds in one process, CPU: 3.52 -> 2.77, 3.28 -> 2.96 us per entry
#: with results of ~20 characters (26 and 24 of 30 rounds in favour), 2.62 -> 2.35, 3.42 -> 3.07 with
#: ~220 (21 and 24 of 30), load 7.1-7.8 (s11p). The rest of a replayed call's host CPU is the plan
#: (passes.local_replay_plan, ~1.2-1.5 us) and the run line (isolated._run_line, ~0.7 us); the
#: wall figure (bench_runtime.replay_us, ~20 us) is mostly the sandbox's own replay of the calls.
#: Tried: reading the execution's rowid range in table order instead of through the key's index
#: (SELECT … WHERE rowid BETWEEN min and max of its rows): 1.68 -> 1.77 us per row with its rows
#: together, 2.00 -> 2.34 interleaved with two other executions' rows: the rowid lookups are not
#: the cost, decoding the columns into Python objects is.
_PASS_READ: Callable[[tuple[Any, ...]], EntryRow] = functools.partial(tuple.__new__, EntryRow)  # type: ignore[arg-type]
_SEQ = operator.itemgetter(0)


# Tried and not kept (s11p, issue 12): SQLite's automatic checkpoint left as it is. A commit that
# takes the WAL past 1,000 pages moves them into the database file and syncs both (two fsyncs),
# inside that commit: in 2,000 back-to-back passes (an executor that returns at once) the start's
# transaction took 84 us median, 375 mean, 11.7 ms at p99. Moving checkpoints to a thread of their
# own was weighed by its upper bound, no checkpoint at all (wal_autocheckpoint=0): 3,000 journaled
# calls through the isolated executor, 6 alternating rounds at load 4.7-5.1, 2,311 calls/s median
# with checkpoints against 2,136 without (faster in 1 of 6; the run before: 2,358 against 2,685,
# 4 of 6) and 1,997 with 10,000 pages between checkpoints (2 of 6); on the raw driver (an insert
# and an update a call, 8 rounds) 111.3 against 106.2 us a call (6 of 8), the p99.9 call 15.1 ms
# against 7.1 ms with none: the stalls are mostly this machine's, not the checkpoint's. No signal
# worth a thread per store and a WAL that grows while it falls behind.
def _sqlite_pragmas(dbapi_conn: Any, busy_ms: int) -> None:
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
    # Turning a rollback-journal file (a copied or vacuumed journal) into WAL needs its exclusive
    # lock; when two hosts open such a file together, SQLite answers one of them "locked" at
    # once instead of waiting (it skips the busy handler where waiting could deadlock), so
    # that one tries again until the busy timeout.
    deadline = time.monotonic() + busy_ms / 1000
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _execution_row(r: Any) -> ExecutionRow:
    return ExecutionRow(
        runtime=r["runtime"], id=r["id"], code=r["code"], status=r["status"], result=r["result"],
        result_note=r["result_note"], error=r["error"], error_type=r["error_type"],
        logs=json.loads(r["logs"] or "[]"), connectors=json.loads(r["connectors"] or "[]"),
        inputs=json.loads(r["inputs"] or "{}"), options=json.loads(r["options"] or "{}"),
        passes=int(r["passes"] or 0), created_at=int(r["created_at"]), updated_at=int(r["updated_at"]))


def _snippet_row(r: Any) -> SnippetRow:
    return SnippetRow(
        name=r["name"], description=r["description"] or "", code=r["code"], input_schema=r["input_schema"],
        connectors=json.loads(r["connectors"] or "[]"), execution_id=r["execution_id"],
        saved_at=int(r["saved_at"]))
