"""Stateful property tests: two runtime instances over one store, driven by random operations.

Hypothesis picks a sequence of execute / approve / reject / rollback / expire / delete / prune
calls, each on one of two runtimes sharing a SQLite journal (as two kernels of one notebook
would), and a model says what every execution's status and every outside side effect must
be. After every step the store must match the model exactly, pass its integrity check, list
the pending calls the model expects, and agree with the outside ledger.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.errors import InvalidStateError, UnknownExecutionError
from tests.conftest import NO_POSTGRES, POSTGRES_ENV, postgres_url_for_schema
from tests.reliability.host import Ledger, ledger_rows
from tests.reliability.support import soundness_problems

MAX_EXECUTIONS = 5  # small, so that starting executions prunes old ones as the steps go on
TERMINAL = {"completed", "error", "rejected", "rolled_back"}


@dataclass
class Model:
    """What one execution must look like."""

    status: str
    approvals: list[str] = field(default_factory=list)  # labels still waiting, in order
    applied: list[str] = field(default_factory=list)    # labels this execution applied, not reverted


PROGRAMS = ["add", "approval", "two_approvals", "error", "pure"]


class TwoRuntimes(RuleBasedStateMachine):
    executions = Bundle("executions")

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="codemode-states-"))
        self.ledger = self.folder / "ledger.db"
        url = self.store_url()
        self.loop = asyncio.new_event_loop()
        self.runtimes = [CodemodeRuntime([Ledger(self.ledger)], store=url, executor=InProcessExecutor(),
                                         max_executions=MAX_EXECUTIONS) for _ in range(2)]
        self.model: dict[str, Model] = {}
        self.applied: Counter[str] = Counter()
        self.reverted: Counter[str] = Counter()
        self.labels = 0

    def store_url(self) -> str:
        return f"sqlite:///{self.folder / 'journal.codemode.db'}"

    def drop_store(self) -> None:
        pass

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def teardown(self) -> None:
        for rt in self.runtimes:
            self.run(rt.aclose())
        self.loop.close()
        self.drop_store()
        shutil.rmtree(self.folder, ignore_errors=True)

    def label(self) -> str:
        self.labels += 1
        return f"l{self.labels}"

    # -- the model's retention: starting an execution prunes terminal ones beyond the limit ----

    def prune_model(self, keep: int) -> None:
        terminal = sorted((eid for eid, m in self.model.items() if m.status in TERMINAL), reverse=True)
        for eid in terminal[max(keep, 0):]:
            del self.model[eid]

    # -- rules ---------------------------------------------------------------------------------

    @rule(target=executions, which=st.integers(0, 1), program=st.sampled_from(PROGRAMS))
    def execute(self, which: int, program: str) -> str:
        a, b = self.label(), self.label()
        code = {"add": f"ledger.add(label='{a}')\n'done'",
                "approval": f"ledger.read()\nledger.record(label='{a}')\n'done'",
                "two_approvals": f"ledger.record(label='{a}')\nledger.record(label='{b}')\n'done'",
                "error": f"ledger.add(label='{a}')\n1 / 0",
                "pure": "sum(range(10))"}[program]
        self.prune_model(MAX_EXECUTIONS)
        out = self.run(self.runtimes[which].execute(code))
        eid = str(out["execution_id"])
        if program in ("add", "error"):
            self.applied[a] += 1
            model = Model("completed" if program == "add" else "error", applied=[a])
        elif program == "approval":
            model = Model("paused", approvals=[a])
        elif program == "two_approvals":
            model = Model("paused", approvals=[a, b])
        else:
            model = Model("completed")
        assert out["status"] == model.status, out
        self.model[eid] = model
        return eid

    @rule(which=st.integers(0, 1), eid=executions)
    def approve(self, which: int, eid: str) -> None:
        out = self.run(self.runtimes[which].approve(eid))
        model = self.model.get(eid)
        if model is None or model.status != "paused":
            assert out["status"] == "error" and out.get("refused") is True, out
            return
        label = model.approvals.pop(0)
        model.applied.append(label)
        self.applied[label] += 1
        model.status = "paused" if model.approvals else "completed"
        assert out["status"] == model.status, out

    @rule(which=st.integers(0, 1), eid=executions)
    def reject(self, which: int, eid: str) -> None:
        ok = self.run(self.runtimes[which].reject(eid))
        model = self.model.get(eid)
        expected = model is not None and model.status == "paused"
        assert ok is expected
        if model is not None and expected:
            model.status, model.approvals = "rejected", []

    @rule(which=st.integers(0, 1), eid=executions)
    def rollback(self, which: int, eid: str) -> None:
        model = self.model.get(eid)
        try:
            self.run(self.runtimes[which].rollback(eid))
        except UnknownExecutionError:
            assert model is None
            return
        except InvalidStateError:
            assert model is not None and model.status in ("paused", "running")
            return
        assert model is not None and model.status in TERMINAL
        for label in model.applied:
            self.reverted[label] += 1
        if model.applied:
            model.status = "rolled_back"
        model.applied = []

    @rule(which=st.integers(0, 1))
    def expire(self, which: int) -> None:
        # A negative age makes every paused execution stale, whatever the clock says.
        expired = self.run(self.runtimes[which].expire_paused(max_age=timedelta(seconds=-1)))
        paused = {eid for eid, m in self.model.items() if m.status == "paused"}
        assert set(expired) == paused
        for eid in paused:
            self.model[eid].status, self.model[eid].approvals = "rejected", []

    @rule(which=st.integers(0, 1), eid=executions)
    def delete(self, which: int, eid: str) -> None:
        assert self.run(self.runtimes[which].delete_execution(eid)) is (eid in self.model)
        self.model.pop(eid, None)

    @rule(which=st.integers(0, 1), keep=st.integers(0, 3))
    def prune(self, which: int, keep: int) -> None:
        before = len(self.model)
        self.prune_model(keep)
        assert self.run(self.runtimes[which].prune_executions(keep)) == before - len(self.model)

    # -- invariants, after every step ------------------------------------------------------------

    @invariant()
    def store_matches_the_model(self) -> None:
        for rt in self.runtimes:
            stored = {e.id: e.status for e in self.run(rt.executions())}
            assert stored == {eid: m.status for eid, m in self.model.items()}

    @invariant()
    def pending_calls_are_the_models(self) -> None:
        pending = self.run(self.runtimes[0].pending())
        assert sorted((p.execution_id, p.args["label"]) for p in pending) == sorted(
            (eid, m.approvals[0]) for eid, m in self.model.items() if m.status == "paused")

    @invariant()
    def the_store_is_sound_and_agrees_with_the_ledger(self) -> None:
        assert self.runtimes[0].store.integrity_problems() == []
        rows = ledger_rows(self.ledger)
        assert Counter(label for _, label, op in rows if op == "apply") == self.applied
        assert Counter(label for _, label, op in rows if op == "revert") == self.reverted
        assert max(self.applied.values(), default=0) <= 1 and max(self.reverted.values(), default=0) <= 1

    @invariant()
    def every_call_kept_in_the_journal_agrees_with_the_ledger(self) -> None:
        assert soundness_problems(self.runtimes[1].store, self.ledger, all_kept=False) == []


class TwoRuntimesOnPostgres(TwoRuntimes):
    """The same machine on PostgreSQL: a fresh schema per example, dropped after it."""

    def store_url(self) -> str:
        self.schema = f"s_{uuid.uuid4().hex[:16]}"
        self.admin = create_engine(os.environ[POSTGRES_ENV], poolclass=NullPool, isolation_level="AUTOCOMMIT")
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{self.schema}"'))
        return postgres_url_for_schema(os.environ[POSTGRES_ENV], self.schema)

    def drop_store(self) -> None:
        with self.admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{self.schema}" CASCADE'))
        self.admin.dispose()


SETTINGS = settings(max_examples=60, stateful_step_count=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
TwoRuntimes.TestCase.settings = SETTINGS
TwoRuntimesOnPostgres.TestCase.settings = settings(SETTINGS, max_examples=25)
test_two_runtimes_over_one_sqlite_store = TwoRuntimes.TestCase
test_two_runtimes_over_one_postgresql_store = pytest.mark.skipif(
    not os.environ.get(POSTGRES_ENV), reason=NO_POSTGRES)(TwoRuntimesOnPostgres.TestCase)
