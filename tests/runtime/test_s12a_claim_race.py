"""Approvers racing on one call, each a host of its own (a thread, a runtime, a connection), apply it once.

``approve(execution_id, seq=k)`` and ``reject(execution_id, k)`` claim the execution in one
compare-and-set; the claim holds only while call #k is still the pending call. Here three hosts
start deciding the same call at one barrier, round after round, on a SQLite file and on
PostgreSQL: the connector must run the call exactly once per round, exactly one decision wins,
and no host approves the call the winner's pass pauses on next.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from codemode_kernel import InProcessExecutor, SyncRuntime
from tests.support import Shop

TWO_WRITES = "a = shop.create_item(title='a')\nb = shop.create_item(title='b')\n[a['id'], b['id']]"
HOSTS = 3
ROUNDS = 15


def race(actions: list[Callable[[], Any]]) -> list[Any]:
    """Run each action in a thread of its own, all released at once; their results in order."""
    barrier = threading.Barrier(len(actions))
    results: list[Any] = [None] * len(actions)
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait(60)
            results[i] = actions[i]()
        except BaseException as exc:  # reported by the test, not lost in the thread
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(actions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads) and not failures, failures
    return results


@pytest.fixture
def hosts(db_url: str) -> Any:
    shop = Shop()
    made = [SyncRuntime([shop], store=db_url, executor=InProcessExecutor()) for _ in range(HOSTS)]
    yield shop, made
    for rt in made:
        rt.close()


def test_racing_approvals_of_one_call_run_it_once(hosts: tuple[Shop, list[SyncRuntime]]) -> None:
    shop, rts = hosts
    for n in range(ROUNDS):
        eid = rts[n % HOSTS].execute(TWO_WRITES)["execution_id"]
        before = shop.calls["create_item"]
        outs = race([lambda rt=rt, eid=eid: rt.approve(eid, seq=0) for rt in rts])
        assert shop.calls["create_item"] == before + 1, f"round {n}: call #0 ran once"
        assert sorted(o["status"] for o in outs) == ["error"] * (HOSTS - 1) + ["paused"], outs
        assert all(o.get("refused") is True for o in outs if o["status"] == "error")
        state = rts[0].execution(eid)
        assert state is not None and state.status == "paused" and state.passes == 2
        assert [(e.seq, e.state) for e in state.log] == [(0, "applied"), (1, "pending")], f"round {n}"


def test_an_approval_racing_a_rejection_of_one_call_one_wins(hosts: tuple[Shop, list[SyncRuntime]]) -> None:
    shop, rts = hosts
    for n in range(ROUNDS):
        eid = rts[0].execute(TWO_WRITES)["execution_id"]
        before = shop.calls["create_item"]
        approved, rejected, approved_too = race([lambda eid=eid: rts[0].approve(eid, seq=0),
                                                 lambda eid=eid: rts[1].reject(eid, 0),
                                                 lambda eid=eid: rts[2].approve(eid, seq=0)])
        winners = [approved["status"] == "paused", rejected is True, approved_too["status"] == "paused"]
        assert winners.count(True) == 1, (n, approved, rejected, approved_too)
        state = rts[0].execution(eid)
        assert state is not None
        if rejected:
            assert shop.calls["create_item"] == before and state.status == "rejected"
            assert [(e.seq, e.state) for e in state.log] == [(0, "error")]
        else:
            assert shop.calls["create_item"] == before + 1 and state.status == "paused"
            assert [(e.seq, e.state) for e in state.log] == [(0, "applied"), (1, "pending")]
