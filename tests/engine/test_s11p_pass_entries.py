"""A pass's read of its journal (JournalStore.pass_entries, s11p) holds what the full read holds,
but for the timestamps: every state, flag, text and NULL, by seq, on SQLite and PostgreSQL."""

from __future__ import annotations

from codemode_kernel.journal import JournalStore


def test_a_pass_reads_what_the_journal_holds(db_url: str) -> None:
    store = JournalStore(db_url)
    try:
        with store.session() as conn:
            store.insert_execution(conn, "rt", "e", "code", ["c"], {}, {})
            store.insert_execution(conn, "rt", "other", "code", ["c"], {}, {})
            store.insert_entry(conn, "rt", "other", 0, "c", "m", "{}", "applied", requires_approval=False,
                               ephemeral=False, pass_number=1, result="9")
            rows = [  # seq, method, args, state, approval, ephemeral, pass, result, error
                (0, "read", '{"i":0}', "applied", False, False, 1, '{"id":1,"t":"\\u00e9"}', None),
                (1, "step", '"s"', "applied", False, False, 1, "null", None),
                (2, "live", "{}", "applied", False, True, 2, None, None),
                (3, "fail", "{}", "error", False, False, 2, None, 'KeyError: "no"'),
                (4, "write", '{"t":"x"}', "pending", True, False, 2, None, None),
            ]
            for seq, method, args, state, approval, ephemeral, number, result, error in rows:
                store.insert_entry(conn, "rt", "e", seq, "c", method, args, state, requires_approval=approval,
                                   ephemeral=ephemeral, pass_number=number, result=result, error=error)
            store.insert_entry(conn, "rt", "e", 5, "c", "run", "{}", "executing", requires_approval=False,
                               ephemeral=False, pass_number=2)
            full = store.entries(conn, "rt", "e")
            read = store.pass_entries(conn, "rt", "e")
            assert list(read) == [0, 1, 2, 3, 4, 5]
            for entry in full:
                got = read[entry.seq]
                assert got.seq == entry.seq
                assert got[1:5] == entry[1:5] and got[7:10] == entry[7:10]  # texts, NULLs, state, error, pass
                assert bool(got.requires_approval) is entry.requires_approval
                assert bool(got.ephemeral) is entry.ephemeral
                assert (got.created_at, got.updated_at) == (0, 0)
            assert read[4].requires_approval and not read[0].requires_approval
            assert read[2].ephemeral and read[0].result == '{"id":1,"t":"\\u00e9"}' and read[2].result is None
            assert store.pass_entries(conn, "rt", "none") == {}
            assert list(store.pass_entries(conn, "rt", "other")) == [0]
            assert store.pass_entries(conn, "other-runtime", "e") == {}
    finally:
        store.dispose()
