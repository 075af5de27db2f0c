"""Races between OS processes over one journal: approvals, rejects, expiry and rollbacks.

Each round, several host processes (``host.py``) are built, wait at a barrier, and act on the
same execution at once. What they did is judged from outside them: the ledger counts every
side effect and revert, and triggers installed in the store log every status and state
change, so "applied once" and "every transition legal" are read, not assumed.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.journal import JournalStore
from tests.reliability import host
from tests.reliability.host import Ledger, ledger_rows
from tests.reliability.support import soundness_problems

pytestmark = pytest.mark.anyio

# Every status change the durable contract allows (DESIGN §5; a rejected execution's earlier
# applied calls may be rolled back too), and every journal entry state change.
LEGAL_STATUS = {(None, "running"), ("running", "completed"), ("running", "error"), ("running", "paused"),
                ("paused", "running"), ("paused", "rejected"), ("completed", "rolled_back"),
                ("error", "rolled_back"), ("rejected", "rolled_back")}
LEGAL_STATE = {(None, "executing"), (None, "pending"), (None, "applied"), ("executing", "applied"),
               ("executing", "error"), ("pending", "executing"), ("pending", "error"), ("applied", "reverted"),
               ("reverted", "applied")}

SQLITE_LOG = [
    "CREATE TABLE race_log (kind TEXT, id TEXT, seq INTEGER, old TEXT, new TEXT)",
    "CREATE TRIGGER race_xi AFTER INSERT ON codemode_executions BEGIN "
    "INSERT INTO race_log VALUES ('execution', new.id, NULL, NULL, new.status); END",
    "CREATE TRIGGER race_xu AFTER UPDATE OF status ON codemode_executions WHEN old.status <> new.status BEGIN "
    "INSERT INTO race_log VALUES ('execution', new.id, NULL, old.status, new.status); END",
    "CREATE TRIGGER race_ei AFTER INSERT ON codemode_entries BEGIN "
    "INSERT INTO race_log VALUES ('entry', new.execution_id, new.seq, NULL, new.state); END",
    "CREATE TRIGGER race_eu AFTER UPDATE OF state ON codemode_entries WHEN old.state <> new.state BEGIN "
    "INSERT INTO race_log VALUES ('entry', new.execution_id, new.seq, old.state, new.state); END",
]
POSTGRES_LOG = [
    "CREATE TABLE race_log (kind TEXT, id TEXT, seq INTEGER, old TEXT, new TEXT)",
    """CREATE FUNCTION race_x() RETURNS trigger AS $$ BEGIN
         IF TG_OP = 'INSERT' THEN INSERT INTO race_log VALUES ('execution', NEW.id, NULL, NULL, NEW.status);
         ELSIF OLD.status <> NEW.status THEN
           INSERT INTO race_log VALUES ('execution', NEW.id, NULL, OLD.status, NEW.status);
         END IF; RETURN NEW; END $$ LANGUAGE plpgsql""",
    """CREATE FUNCTION race_e() RETURNS trigger AS $$ BEGIN
         IF TG_OP = 'INSERT' THEN INSERT INTO race_log VALUES ('entry', NEW.execution_id, NEW.seq, NULL, NEW.state);
         ELSIF OLD.state <> NEW.state THEN
           INSERT INTO race_log VALUES ('entry', NEW.execution_id, NEW.seq, OLD.state, NEW.state);
         END IF; RETURN NEW; END $$ LANGUAGE plpgsql""",
    "CREATE TRIGGER race_x AFTER INSERT OR UPDATE ON codemode_executions FOR EACH ROW EXECUTE FUNCTION race_x()",
    "CREATE TRIGGER race_e AFTER INSERT OR UPDATE ON codemode_entries FOR EACH ROW EXECUTE FUNCTION race_e()",
]


class Race:
    """One store with its transition log, one ledger, and host processes acting together."""

    def __init__(self, db_url: str, tmp_path: Path) -> None:
        self.url = db_url
        self.tmp = tmp_path
        self.ledger = tmp_path / "ledger.db"
        JournalStore(db_url).dispose()  # the tables, before the triggers on them
        engine = create_engine(db_url, poolclass=NullPool)
        with engine.begin() as conn:
            for sql in (SQLITE_LOG if engine.dialect.name == "sqlite" else POSTGRES_LOG):
                conn.exec_driver_sql(sql)
        engine.dispose()
        self.round = 0

    def runtime(self) -> CodemodeRuntime:
        return CodemodeRuntime([Ledger(self.ledger)], store=self.url, executor=InProcessExecutor())

    def together(self, actions: list[list[str]]) -> list[Any]:
        """Run one host per action, released at once by a barrier; their outcomes, in order."""
        self.round += 1
        gate = host.barrier(len(actions))
        outs = [self.tmp / f"out-{self.round}-{i}.json" for i in range(len(actions))]
        procs = [host.start(["--store", self.url, "--ledger", str(self.ledger), "--out", str(out), *action], gate)
                 for action, out in zip(actions, outs, strict=True)]
        for p in procs:
            p.join(timeout=180)
        assert [p.exitcode for p in procs] == [0] * len(procs)
        return [json.loads(out.read_text()) for out in outs]

    def illegal_transitions(self) -> list[tuple[Any, ...]]:
        engine = create_engine(self.url, poolclass=NullPool)
        with engine.connect() as conn:
            rows = [tuple(r) for r in conn.execute(text("SELECT kind, id, seq, old, new FROM race_log"))]
        engine.dispose()
        assert rows, "the transition log is empty: the triggers did not fire"
        return [r for r in rows if (r[3], r[4]) not in (LEGAL_STATUS if r[0] == "execution" else LEGAL_STATE)]


def applied(ledger: Path, op: str = "apply") -> Counter[str]:
    return Counter(label for _, label, o in ledger_rows(ledger) if o == op)


async def test_hosts_racing_to_approve_apply_the_action_once(db_url: str, tmp_path: Path) -> None:
    """Four processes approve the same paused execution at once, six times over: each action runs once."""
    race = Race(db_url, tmp_path)
    for i in range(6):
        async with race.runtime() as rt:
            eid = (await rt.execute(f"ledger.read()\nledger.record(label='r{i}')\n'done'"))["execution_id"]
        outs = race.together([["approve", eid]] * 4)
        assert sorted(o["status"] for o in outs) == ["completed", "error", "error", "error"]
        assert all(o.get("refused") for o in outs if o["status"] == "error")
    assert applied(race.ledger) == {f"r{i}": 1 for i in range(6)}
    assert race.illegal_transitions() == []
    async with race.runtime() as rt:
        assert soundness_problems(rt.store, race.ledger) == []


async def test_approve_reject_and_expiry_racing_end_one_way(db_url: str, tmp_path: Path) -> None:
    """Two approvers, a rejecter and an expirer (max_age 0) at once: one way wins, the action runs at most once.

    Completed: it ran once. Rejected: it never ran. Error: the expirer took the approved pass
    for a stale one mid-way (max_age 0 makes every running execution stale); it ran at most once.
    """
    race = Race(db_url, tmp_path)
    finals: Counter[str] = Counter()
    for i in range(6):
        async with race.runtime() as rt:
            eid = (await rt.execute(f"ledger.record(label='m{i}')\n'done'"))["execution_id"]
        race.together([["approve", eid], ["reject", eid], ["approve", eid], ["expire"]])
        async with race.runtime() as rt:
            state = await rt.execution(eid)
            assert state is not None
            finals[state.status] += 1
            ran = applied(race.ledger)[f"m{i}"]
            entry = state.log[0].state
            if state.status == "completed":
                assert (ran, entry) == (1, "applied")
            elif state.status == "rejected":
                assert (ran, entry) == (0, "error")
            else:
                assert state.status == "error" and ran <= 1 and entry in ("applied", "executing", "error")
    assert sum(finals.values()) == 6
    assert race.illegal_transitions() == []
    async with race.runtime() as rt:
        assert soundness_problems(rt.store, race.ledger) == []


async def test_hosts_racing_to_roll_back_revert_each_call_once(db_url: str, tmp_path: Path) -> None:
    """Three processes roll back the same execution at once, four times over: each call is reverted once."""
    race = Race(db_url, tmp_path)
    for i in range(4):
        async with race.runtime() as rt:
            eid = (await rt.execute(f"ledger.add(label='a{i}')\nledger.add(label='b{i}')\n'done'"))["execution_id"]
        outs = race.together([["rollback", eid]] * 3)
        assert outs == [None, None, None]  # no host saw an error
        async with race.runtime() as rt:
            state = await rt.execution(eid)
            assert state is not None and state.status == "rolled_back"
    assert applied(race.ledger, "revert") == {f"{x}{i}": 1 for i in range(4) for x in "ab"}
    assert race.illegal_transitions() == []
    async with race.runtime() as rt:
        assert soundness_problems(rt.store, race.ledger) == []
        assert await rt.expire_paused(max_age=timedelta(0)) == []
