"""A host process for the reliability specs: a real runtime over a shared store, and a ledger.

The *ledger* is the world outside the journal: a SQLite file (never the store under test)
where the ``ledger`` connector writes one row per side effect and per revert, keyed by the
call's idempotency key. Specs count rows there, outside every host process, to prove what
was applied and how often.

A host is one OS process doing one thing, optionally dying on the way (:func:`start`, or
``python -m tests.reliability.host``)::

    --store URL --ledger PATH [--kill POINT] [--out PATH] [--wait BARRIER] ACTION ARG...

``ACTION`` is ``execute CODE``, ``approve ID``, ``reject ID``, ``rollback ID``, ``expire``
or ``save-snippet ID NAME``; the outcome is written as JSON to ``--out`` (else stdout).
Hosts are forked from a *forkserver* that has imported the runtime once (a fresh
interpreter takes seconds to import it), so each costs milliseconds to start and holds no
state of the test process. ``--kill`` makes the
host SIGKILL itself at a point of the store's life (no production hook: the runtime gets a
store subclass):

- ``METHOD:before|after:SUBJECT`` around a store method, where SUBJECT is the connector
  method for ``insert_entry``, the seq for ``finish_entry``, the new status for
  ``transition``, the new state for ``set_entry``, the name for ``upsert_snippet``;
- ``sql:TEXT:VALUE`` right after a statement starting with TEXT (with VALUE among its
  parameters) has run and before it is committed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import signal
import sqlite3
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event

from codemode_kernel import CodemodeRuntime, Connector, ExecutionContext, InProcessExecutor, Tool, passes, tool
from codemode_kernel.journal import JournalStore


class Ledger(Connector):
    """Side effects written to a SQLite file outside the journal, one row each."""

    name = "ledger"
    instructions = "Actions recorded in an outside ledger."

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self.target = f"ledger {self.path}"  # every host process acts on this one file
        self._sql("CREATE TABLE IF NOT EXISTS ledger (key TEXT NOT NULL, label TEXT NOT NULL, "
                  "op TEXT NOT NULL, pid INTEGER NOT NULL)")

    def _sql(self, sql: str, *params: Any) -> list[Any]:
        with contextlib.closing(sqlite3.connect(self.path, timeout=60)) as db, db:
            return db.execute(sql, params).fetchall()

    def _write(self, key: str, label: str, op: str) -> None:
        self._sql("INSERT INTO ledger VALUES (?, ?, ?, ?)", key, label, op, os.getpid())

    def read(self, ctx: ExecutionContext) -> list[str]:
        """The labels applied so far."""
        return [r[0] for r in self._sql("SELECT label FROM ledger WHERE op = 'apply' ORDER BY rowid")]

    def add(self, label: str, ctx: ExecutionContext) -> dict[str, Any]:
        """Apply an action (no approval needed)."""
        self._write(ctx.idempotency_key, label, "apply")
        return {"label": label, "key": ctx.idempotency_key}

    def record(self, label: str, ctx: ExecutionContext) -> dict[str, Any]:
        """Apply an action that needs approval."""
        return self.add(label, ctx)

    def _revert(self, args: dict[str, Any], result: Any, ctx: ExecutionContext) -> None:
        # Recorded under the key of the call it reverts; its own key is that call's with ':revert'.
        assert ctx.revert and ctx.idempotency_key == f"{ctx.execution_id}:{ctx.seq}:revert", ctx
        self._write(f"{ctx.execution_id}:{ctx.seq}", str(args["label"]), "revert")

    def tools(self) -> dict[str, Tool]:
        return {
            "read": tool(self.read),
            "add": tool(self.add, revert=self._revert),
            "record": tool(self.record, requires_approval=True, revert=self._revert),
        }


def ledger_rows(path: Path | str) -> list[tuple[str, str, str]]:
    """(key, label, op) of every row, in the order written."""
    with contextlib.closing(sqlite3.connect(str(path))) as db:
        return [(k, lab, op) for k, lab, op in db.execute("SELECT key, label, op FROM ledger ORDER BY rowid")]


def _die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


class CrashingStore(JournalStore):
    """A store that kills its process at one point (``--kill``)."""

    def __init__(self, url: str, kill: str | None) -> None:
        super().__init__(url)
        self.kill = tuple(kill.split(":", 2)) if kill else None
        if self.kill and self.kill[0] == "sql":
            _, text, value = self.kill

            def after(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
                values = params.values() if isinstance(params, dict) else (params or ())
                if statement.lstrip().startswith(text) and (not value or value in [str(v) for v in values]):
                    _die()

            event.listen(self.engine, "after_cursor_execute", after)

    def _at(self, method: str, when: str, subject: Any) -> None:
        if self.kill == (method, when, str(subject)):
            _die()

    def insert_entry(self, conn: Any, runtime: str, execution_id: str, seq: int, connector: str, method: str,
                     *args: Any, **kwargs: Any) -> bool:
        self._at("insert_entry", "before", method)
        ok = super().insert_entry(conn, runtime, execution_id, seq, connector, method, *args, **kwargs)
        self._at("insert_entry", "after", method)
        return ok

    def finish_entry(self, conn: Any, runtime: str, execution_id: str, seq: int, *args: Any, **kwargs: Any) -> bool:
        self._at("finish_entry", "before", seq)
        ok = super().finish_entry(conn, runtime, execution_id, seq, *args, **kwargs)
        self._at("finish_entry", "after", seq)
        return ok

    def transition(self, conn: Any, runtime: str, execution_id: str, expected: Any, status: str,
                   **fields: Any) -> bool:
        self._at("transition", "before", status)
        ok = super().transition(conn, runtime, execution_id, expected, status, **fields)
        self._at("transition", "after", status)
        return ok

    def set_entry(self, conn: Any, runtime: str, execution_id: str, seq: int, expected: Any, state: str,
                  **fields: Any) -> bool:
        self._at("set_entry", "before", state)
        ok = super().set_entry(conn, runtime, execution_id, seq, expected, state, **fields)
        self._at("set_entry", "after", state)
        return ok

    def upsert_snippet(self, conn: Any, runtime: str, row: Any) -> None:
        self._at("upsert_snippet", "before", row.name)
        super().upsert_snippet(conn, runtime, row)
        self._at("upsert_snippet", "after", row.name)


def make_executor(kind: str) -> Any:
    if kind == "subprocess":
        from codemode_kernel.executor.isolated import SubprocessExecutor

        return SubprocessExecutor()
    return InProcessExecutor()


async def act(rt: CodemodeRuntime, action: str, args: list[str]) -> Any:
    if action == "execute":
        return await rt.execute(args[0])
    if action == "approve":
        return await rt.approve(args[0])
    if action == "reject":
        return await rt.reject(args[0])
    if action == "rollback":
        await rt.rollback(args[0])
        return None
    if action == "expire":
        return await rt.expire_paused(max_age=timedelta(0))
    if action == "save-snippet":
        return (await rt.save_snippet(args[1], execution_id=args[0])).name
    raise SystemExit(f"unknown action {action!r}")


async def main(argv: list[str], barrier: Any = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.reliability.host")
    parser.add_argument("--store", required=True)
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--kill")
    parser.add_argument("--name", default="default")
    parser.add_argument("--executor", default="inprocess")
    parser.add_argument("--out")
    parser.add_argument("action")
    parser.add_argument("args", nargs="*")
    ns = parser.parse_args(argv)
    if ns.kill:
        # A call's outcome rides in the next call's commit, or a loop timer commits it alone within
        # passes.OUTCOME_BOUND (1 ms). That timer would race a kill point at a store method (on a
        # loaded machine the next call comes later than 1 ms), so in a host that kills itself the
        # outcome always waits for the next commit or the pass's end. This process only: the timer
        # has its own specs (tests/runtime/test_outcome_commits.py).
        passes.OUTCOME_BOUND = 3600.0
    store = CrashingStore(ns.store, ns.kill)
    async with CodemodeRuntime([Ledger(ns.ledger)], store=store, executor=make_executor(ns.executor),
                               name=ns.name) as rt:
        await rt.catalog()
        if barrier is not None:  # every racing host is built and ready: go together
            barrier.wait(timeout=120)
        try:
            out: Any = await act(rt, ns.action, ns.args)
        except Exception as exc:
            out = {"raised": type(exc).__name__, "message": str(exc)}
    text = json.dumps(out, default=str)
    if ns.out:
        Path(ns.out).write_text(text)
    else:
        print(text, flush=True)


def run(argv: list[str], barrier: Any = None) -> None:
    asyncio.run(main(argv, barrier))


def _context() -> Any:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["tests.reliability.host"])
    return ctx


def start(argv: list[str], barrier: Any = None) -> Any:
    """Start a host process running ``argv``; returns the started ``multiprocessing`` process."""
    process = _context().Process(target=run, args=(argv, barrier))
    process.start()
    return process


def barrier(parties: int) -> Any:
    """A barrier hosts started by :func:`start` can share."""
    return _context().Barrier(parties)


if __name__ == "__main__":
    run(sys.argv[1:])
