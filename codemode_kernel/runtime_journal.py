"""One runtime's view of the journal over one connection (issue 11).

:class:`~codemode_kernel.journal.JournalStore` serves every named runtime in a store, so each
of its methods takes the connection and the runtime's name. The runtime and the pass handler
work on one runtime over one connection at a time: :func:`open_journal` binds both once, and
:class:`RuntimeJournal` offers the store's methods without them. It forwards to the store
(a store subclass, such as the crash-injection one in ``tests/reliability``, still sees
every call).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from codemode_kernel.journal import EntryRow, ExecutionRow, JournalStore, Outcome, SnippetRow, StoreConnection


@dataclass(frozen=True)
class RuntimeJournal:
    """The journal of runtime ``runtime`` over the open connection ``conn``."""

    store: JournalStore
    conn: StoreConnection
    runtime: str

    # -- executions ----------------------------------------------------------------------

    def insert_execution(self, execution_id: str, code: str, connectors: Sequence[str], inputs: dict[str, Any],
                         options: dict[str, Any], *, passes: int = 0) -> None:
        self.store.insert_execution(self.conn, self.runtime, execution_id, code, connectors, inputs, options,
                                    passes=passes)

    def start_execution(self, execution_id: str, code: str, connectors: Sequence[str], inputs: dict[str, Any],
                        options: dict[str, Any], *, keep: int, terminal: Sequence[str], passes: int = 1,
                        ended: Mapping[str, Any] | None = None) -> int:
        return self.store.start_execution(self.conn, self.runtime, execution_id, code, connectors, inputs, options,
                                          keep=keep, terminal=terminal, passes=passes, ended=ended)

    def get_execution(self, execution_id: str) -> ExecutionRow | None:
        return self.store.get_execution(self.conn, self.runtime, execution_id)

    def list_executions(self, limit: int | None = None, statuses: Sequence[str] | None = None) -> list[ExecutionRow]:
        return self.store.list_executions(self.conn, self.runtime, limit, statuses)

    def transition(self, execution_id: str, expected: Sequence[str], status: str, *, settle_pending: bool = True,
                   pending_seq: int | None = None, **fields: Any) -> bool:
        if pending_seq is not None:  # only then: a store subclass that predates it still works without it
            fields["pending_seq"] = pending_seq
        return self.store.transition(self.conn, self.runtime, execution_id, expected, status,
                                     settle_pending=settle_pending, **fields)

    def terminal_beyond(self, keep: int, terminal: Sequence[str]) -> list[str]:
        return self.store.terminal_beyond(self.conn, self.runtime, keep, terminal)

    def delete_execution(self, execution_id: str) -> bool:
        return self.store.delete_execution(self.conn, self.runtime, execution_id)

    def stale(self, status: str, before_ms: int) -> list[str]:
        return self.store.stale(self.conn, self.runtime, status, before_ms)

    # -- entries -------------------------------------------------------------------------

    def entries(self, execution_id: str) -> list[EntryRow]:
        return self.store.entries(self.conn, self.runtime, execution_id)

    def pass_entries(self, execution_id: str) -> dict[int, EntryRow]:
        return self.store.pass_entries(self.conn, self.runtime, execution_id)

    def insert_entry(self, execution_id: str, seq: int, connector: str, method: str, args: str, state: str, *,
                     requires_approval: bool, ephemeral: bool, pass_number: int, result: str | None = None,
                     error: str | None = None, finish: Outcome | None = None) -> bool:
        return self.store.insert_entry(self.conn, self.runtime, execution_id, seq, connector, method, args, state,
                                       requires_approval=requires_approval, ephemeral=ephemeral,
                                       pass_number=pass_number, result=result, error=error, finish=finish)

    def finish_entry(self, execution_id: str, seq: int, state: str, *, result: str | None = None,
                     error: str | None = None) -> bool:
        return self.store.finish_entry(self.conn, self.runtime, execution_id, seq, state, result=result, error=error)

    def set_entry(self, execution_id: str, seq: int, expected: Sequence[str], state: str, **fields: Any) -> bool:
        return self.store.set_entry(self.conn, self.runtime, execution_id, seq, expected, state, **fields)

    # -- snippets ------------------------------------------------------------------------

    def upsert_snippet(self, row: SnippetRow) -> None:
        self.store.upsert_snippet(self.conn, self.runtime, row)

    def list_snippets(self) -> list[SnippetRow]:
        return self.store.list_snippets(self.conn, self.runtime)

    def get_snippet(self, name: str) -> SnippetRow | None:
        return self.store.get_snippet(self.conn, self.runtime, name)

    def delete_snippet(self, name: str) -> bool:
        return self.store.delete_snippet(self.conn, self.runtime, name)


@contextmanager
def open_journal(store: JournalStore, runtime: str) -> Iterator[RuntimeJournal]:
    """A connection from ``store`` for a sequence of operations, bound to ``runtime``."""
    with store.session() as conn:
        yield RuntimeJournal(store, conn, runtime)
