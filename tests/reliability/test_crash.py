"""Crash injection: a host SIGKILLed at each point of a call's life and of approve, reject,
expiry, rollback and snippet save.

Each spec builds the state it needs here, runs one host process (``host.py``) that kills
itself at a named point of the store's life, checks that what was recorded before the crash
is still there, recovers the way a person would (``expire_paused``, or doing the same thing
again), and then checks the durable contract against the outside ledger: the store is sound,
nothing is stuck, no action was applied twice, the runtime still works.
"""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.journal import JournalStore
from tests.reliability import host
from tests.reliability.host import Ledger, ledger_rows
from tests.reliability.support import soundness_problems

pytestmark = pytest.mark.anyio

CALL = "ledger.read()\nledger.add(label='a')\n'done'"
APPROVAL = "ledger.read()\nledger.record(label='r')\n'done'"
TWO = "ledger.add(label='x')\nledger.add(label='y')\n'done'"


@dataclass(frozen=True)
class Crash:
    """One kill point: what runs, where it dies, what the store holds then and after recovery."""

    setup: str                       # "none" | "paused" | "completed" | "snippet"
    action: tuple[str, ...]          # the host's action; "{eid}"/"{eid2}" are filled in
    kill: str                        # host.py --kill
    crashed: tuple[str, list[str]]   # (status, entry states) right after the crash
    recover: str                     # "expire" | "again" | "none"
    final: tuple[str, list[str]]     # after recovery
    ledger: dict[tuple[str, str], int] = field(default_factory=dict)  # (label, op) -> rows after recovery


CRASHES: dict[str, Crash] = {
    # A call's life: mark executing, run the connector, record the result, complete.
    "call-before-executing-mark": Crash(
        # read()'s outcome is committed with add()'s mark (passes.py, issue 12): a host that dies
        # before that commit leaves read() executing, as if it had died while read() returned.
        "none", ("execute", CALL), "insert_entry:before:add",
        ("running", ["executing"]), "expire", ("error", ["executing"])),
    "call-after-mark-before-connector": Crash(
        "none", ("execute", CALL), "insert_entry:after:add",
        ("running", ["applied", "executing"]), "expire", ("error", ["applied", "executing"])),
    "call-after-connector-before-result": Crash(
        "none", ("execute", CALL), "finish_entry:before:1",
        ("running", ["applied", "executing"]), "expire", ("error", ["applied", "executing"]), {("a", "apply"): 1}),
    "call-before-completion": Crash(
        "none", ("execute", CALL), "transition:before:completed",
        ("running", ["applied", "applied"]), "expire", ("error", ["applied", "applied"]), {("a", "apply"): 1}),
    "call-during-completion-uncommitted": Crash(
        "none", ("execute", CALL), "sql:UPDATE codemode_executions:completed",
        ("running", ["applied", "applied"]), "expire", ("error", ["applied", "applied"]), {("a", "apply"): 1}),
    "call-after-completion": Crash(
        "none", ("execute", CALL), "transition:after:completed",
        ("completed", ["applied", "applied"]), "none", ("completed", ["applied", "applied"]), {("a", "apply"): 1}),
    # Approve: claim the execution, claim the pending call, run it, record it, complete.
    "approve-before-claiming-execution": Crash(
        "paused", ("approve", "{eid}"), "transition:before:running",
        ("paused", ["applied", "pending"]), "again", ("completed", ["applied", "applied"]), {("r", "apply"): 1}),
    "approve-after-claiming-execution": Crash(
        "paused", ("approve", "{eid}"), "transition:after:running",
        ("running", ["applied", "pending"]), "expire", ("error", ["applied", "error"])),
    "approve-after-claiming-call": Crash(
        "paused", ("approve", "{eid}"), "set_entry:after:executing",
        ("running", ["applied", "executing"]), "expire", ("error", ["applied", "executing"])),
    "approve-after-connector-before-result": Crash(
        "paused", ("approve", "{eid}"), "finish_entry:before:1",
        ("running", ["applied", "executing"]), "expire", ("error", ["applied", "executing"]), {("r", "apply"): 1}),
    "approve-during-completion-uncommitted": Crash(
        "paused", ("approve", "{eid}"), "sql:UPDATE codemode_executions:completed",
        ("running", ["applied", "applied"]), "expire", ("error", ["applied", "applied"]), {("r", "apply"): 1}),
    # Reject and expiry: the status, then the pending call settled.
    "reject-before": Crash(
        "paused", ("reject", "{eid}"), "transition:before:rejected",
        ("paused", ["applied", "pending"]), "again", ("rejected", ["applied", "error"])),
    "reject-during-uncommitted": Crash(
        "paused", ("reject", "{eid}"), "sql:UPDATE codemode_executions:rejected",
        ("paused", ["applied", "pending"]), "again", ("rejected", ["applied", "error"])),
    # The status change settles the pending call in its own transaction (7c58066): a host killed right
    # after it leaves nothing pending, as the expiry below does.
    "reject-after-status": Crash(
        "paused", ("reject", "{eid}"), "transition:after:rejected",
        ("rejected", ["applied", "error"]), "none", ("rejected", ["applied", "error"])),
    "expiry-after-status-before-settling-calls": Crash(
        "paused", ("expire",), "transition:after:rejected",
        ("rejected", ["applied", "error"]), "none", ("rejected", ["applied", "error"])),
    # Rollback: claim each applied call (newest first), revert it, then the status.
    "rollback-after-claim-before-revert": Crash(
        # y's revert never ran: its entry keeps the note saying the outcome is unknown, and (like an
        # 'executing' call) it is not run again; rolling back again reverts the rest.
        "completed", ("rollback", "{eid}"), "set_entry:after:reverted",
        ("completed", ["applied", "reverted"]), "again", ("rolled_back", ["reverted", "reverted"]),
        {("x", "apply"): 1, ("y", "apply"): 1, ("x", "revert"): 1}),
    "rollback-after-reverts-before-status": Crash(
        # every revert ran; rolling back again only records the status
        "completed", ("rollback", "{eid}"), "transition:before:rolled_back",
        ("completed", ["reverted", "reverted"]), "again", ("rolled_back", ["reverted", "reverted"]),
        {("x", "apply"): 1, ("y", "apply"): 1, ("x", "revert"): 1, ("y", "revert"): 1}),
    "rollback-after-status": Crash(
        "completed", ("rollback", "{eid}"), "transition:after:rolled_back",
        ("rolled_back", ["reverted", "reverted"]), "none", ("rolled_back", ["reverted", "reverted"]),
        {("x", "apply"): 1, ("y", "apply"): 1, ("x", "revert"): 1, ("y", "revert"): 1}),
    # Snippet save replaces a snippet: delete and insert, one transaction.
    "snippet-save-between-delete-and-insert": Crash(
        "snippet", ("save-snippet", "{eid2}", "daily"), "sql:DELETE FROM codemode_snippets:",
        ("completed", ["applied"]), "again", ("completed", ["applied"]), {("s1", "apply"): 1, ("s2", "apply"): 1}),
    "snippet-save-after": Crash(
        "snippet", ("save-snippet", "{eid2}", "daily"), "upsert_snippet:after:daily",
        ("completed", ["applied"]), "none", ("completed", ["applied"]), {("s1", "apply"): 1, ("s2", "apply"): 1}),
}


def run_host(db_url: str, ledger: Path, out: Path, argv: list[str]) -> tuple[int, Any]:
    process = host.start(["--store", db_url, "--ledger", str(ledger), "--out", str(out), *argv])
    process.join(timeout=120)
    if process.exitcode is None:
        process.kill()
        raise AssertionError(f"host {argv} did not end")
    return process.exitcode, json.loads(out.read_text()) if out.exists() else None


def snapshot(store: JournalStore, eid: str) -> list[tuple[Any, ...]]:
    with store.session() as conn:
        return [(e.seq, e.connector, e.method, e.args, e.result) for e in store.entries(conn, "default", eid)
                if e.state == "applied"]


def state_of(store: JournalStore, eid: str) -> tuple[str, list[str]]:
    with store.session() as conn:
        row = store.get_execution(conn, "default", eid)
        assert row is not None, f"execution {eid} was lost"
        return row.status, [e.state for e in store.entries(conn, "default", eid)]


@pytest.mark.parametrize("name", list(CRASHES))
async def test_a_host_killed_at(name: str, db_url: str, tmp_path: Path) -> None:
    """After a SIGKILL at this point and a restart: nothing recorded is lost, nothing is stuck,
    no action is applied twice, the store is sound and the runtime works."""
    crash = CRASHES[name]
    ledger = tmp_path / "ledger.db"

    def runtime() -> CodemodeRuntime:
        return CodemodeRuntime([Ledger(ledger)], store=db_url, executor=InProcessExecutor())

    eid = eid2 = ""
    async with runtime() as rt:
        if crash.setup == "paused":
            eid = (await rt.execute(APPROVAL))["execution_id"]
        elif crash.setup == "completed":
            eid = (await rt.execute(TWO))["execution_id"]
        elif crash.setup == "snippet":
            eid = (await rt.execute("ledger.add(label='s1')"))["execution_id"]
            eid2 = (await rt.execute("ledger.add(label='s2')"))["execution_id"]
            await rt.save_snippet("daily", execution_id=eid)
        before = snapshot(rt.store, eid) if eid else []

    argv = [a.replace("{eid}", eid).replace("{eid2}", eid2) for a in crash.action]
    code, _ = run_host(db_url, ledger, tmp_path / "out.json", ["--kill", crash.kill, *argv])
    assert code == -signal.SIGKILL, f"the host did not reach the kill point {crash.kill} (exit {code})"

    async with runtime() as rt:
        if not eid:
            eid = (await rt.executions())[0].id
        # Nothing recorded before the crash is lost (a rollback may have moved entries to reverted).
        if crash.setup != "completed":
            assert snapshot(rt.store, eid)[:len(before)] == before
        assert state_of(rt.store, eid) == crash.crashed

        if crash.recover == "expire":
            assert eid in await rt.expire_paused(max_age=timedelta(0))
            assert (await rt.approve(eid))["refused"] is True  # a stale execution is never revived
        elif crash.recover == "again":
            await _again(rt, crash, eid, eid2)
        assert state_of(rt.store, eid) == crash.final
        if crash.setup == "snippet":
            assert [(s.name, s.execution_id) for s in await rt.snippets()] == [("daily", eid2)]

        assert await rt.expire_paused(max_age=timedelta(0)) == []  # nothing left running or paused
        assert soundness_problems(rt.store, ledger) == []
        ops: dict[tuple[str, str], int] = {}
        for _key, label, op in ledger_rows(ledger):
            ops[(label, op)] = ops.get((label, op), 0) + 1
        assert ops == crash.ledger

        again = await rt.execute("ledger.add(label='after')\n'fine'")
        assert again["status"] == "completed" and again["result"] == "fine"


async def _again(rt: CodemodeRuntime, crash: Crash, eid: str, eid2: str) -> None:
    action = crash.action[0]
    if action == "approve":
        assert (await rt.approve(eid))["status"] == "completed"
    elif action == "reject":
        assert await rt.reject(eid) is True
    elif action == "rollback":
        await rt.rollback(eid)
    elif action == "save-snippet":
        await rt.save_snippet("daily", execution_id=eid2)
