"""The journal's hot statements (issue 12): compiled once per dialect, their values passed as a tuple
in an order the caller names, arranged for the driver's paramstyle (positional or named)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, create_engine, insert, update

from codemode_kernel.journal import JournalStore, Outcome, _Prepared

metadata = MetaData()
pairs = Table("pairs", metadata, Column("k", Integer, primary_key=True), Column("a", String), Column("b", String))


def test_values_named_in_another_order_land_in_their_columns(tmp_path: Path) -> None:
    """It is an error if a value goes to another column when the caller's order is not the dialect's."""
    engine = create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    metadata.create_all(engine)
    try:
        put = _Prepared(insert(pairs).values(k=bindparam("k"), a=bindparam("a"), b=bindparam("b")), engine,
                        names=["b", "k", "a"])
        change = _Prepared(update(pairs).where(pairs.c.k == bindparam("key")).values(a=bindparam("new_a")),
                           engine, names=["key", "new_a"])
        raw = engine.raw_connection()
        try:
            assert put.write(raw, ("to b", 1, "to a")) == 1
            assert put.write(raw, ("b2", 2, "a2")) == 1
            assert change.write(raw, (2, "a2, changed")) == 1
            assert change.write(raw, (3, "no such row")) == 0
            raw.commit()
            rows = raw.cursor().execute("SELECT k, a, b FROM pairs ORDER BY k").fetchall()
        finally:
            raw.close()
        assert rows == [(1, "to a", "to b"), (2, "a2, changed", "b2")]
    finally:
        engine.dispose()


def test_a_named_paramstyle_gets_the_values_by_name() -> None:
    """It is an error if a driver that takes named parameters (psycopg) gets a tuple, or a value under
    another name. The statement is compiled only: no server is needed."""
    engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    put = _Prepared(insert(pairs).values(k=bindparam("k"), a=bindparam("a"), b=bindparam("b")), engine,
                    names=["b", "k", "a"])
    assert "%(k)s" in put.sql
    assert put.arrange(("to b", 1, "to a")) == {"b": "to b", "k": 1, "a": "to a"}


def test_a_caller_that_names_other_parameters_is_refused_when_the_statement_is_prepared(tmp_path: Path) -> None:
    """It is an error if a statement prepared with names it does not take runs at all: the mistake is
    reported when the store is built, naming both lists, not as wrong rows later."""
    engine = create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        with pytest.raises(ValueError, match=r"takes \['k', 'a', 'b'\], the caller names \['k', 'a', 'c'\]"):
            _Prepared(insert(pairs).values(k=bindparam("k"), a=bindparam("a"), b=bindparam("b")), engine,
                      names=["k", "a", "c"])
    finally:
        engine.dispose()


def test_a_call_and_the_outcome_before_it_are_one_commit(db_url: str) -> None:
    """It is an error if a call's mark and the earlier call's outcome (issue 12: one commit per call)
    are stored apart, or store any value in another column, on SQLite or PostgreSQL."""
    store = JournalStore(db_url)
    try:
        with store.session() as conn:
            store.insert_execution(conn, "rt", "e", "...", ["c"], {}, {}, passes=1)
            assert store.insert_entry(conn, "rt", "e", 0, "c", "m0", '{"i":0}', "executing", requires_approval=False,
                                      ephemeral=False, pass_number=3)
            assert store.insert_entry(conn, "rt", "e", 1, "c", "m1", '{"i":1}', "executing", requires_approval=True,
                                      ephemeral=True, pass_number=3, finish=Outcome(0, "applied", '"r0"'))
            assert not store.insert_entry(conn, "rt", "e", 1, "c", "m1", '{"i":1}', "executing",
                                          requires_approval=False, ephemeral=False, pass_number=3,
                                          finish=Outcome(1, "error", error="KeyError: 'x'"))
            assert not store.finish_entry(conn, "rt", "e", 1, "applied", result='"late"')  # no longer executing
            rows = [(e.seq, e.connector, e.method, e.args, e.result, e.requires_approval, e.ephemeral, e.state,
                     e.error, e.pass_number) for e in store.entries(conn, "rt", "e")]
    finally:
        store.dispose()
    assert rows == [(0, "c", "m0", '{"i":0}', '"r0"', False, False, "applied", None, 3),
                    (1, "c", "m1", '{"i":1}', None, True, True, "error", "KeyError: 'x'", 3)]
