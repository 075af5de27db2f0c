"""Checks shared by the reliability specs: the store is sound and agrees with the ledger."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from codemode_kernel.journal import JournalStore
from tests.reliability.host import ledger_rows

LEDGER_METHODS = ("add", "record")


def journal_entries(store: JournalStore, runtime: str = "default") -> dict[str, tuple[str, str]]:
    """Every ledger call of the runtime's journal: idempotency key -> (label, state).

    A ``reverted`` call still carrying its note (the host stopped while reverting it) has the
    state ``reverting``: its revert's outcome is unknown, like an ``executing`` call's.
    """
    from codemode_kernel import codec

    out: dict[str, tuple[str, str]] = {}
    with store.session() as conn:
        for row in store.list_executions(conn, runtime):
            for e in store.entries(conn, runtime, row.id):
                if e.connector == "ledger" and e.method in LEDGER_METHODS:
                    state = "reverting" if e.state == "reverted" and e.error else e.state
                    out[f"{row.id}:{e.seq}"] = (str(codec.loads(e.args)["label"]), state)
    return out


def soundness_problems(store: JournalStore, ledger: Path, runtime: str = "default", *,
                       all_kept: bool = True) -> list[str]:
    """What breaks the durable contract, judged from the store and the outside ledger.

    - the store's own integrity check and consistency rules;
    - an action is applied at most once per idempotency key, and each label under one key;
    - an ``applied`` or ``reverted`` call was applied in the ledger; every ledger action
      belongs to a call whose outcome is applied, reverted or unknown (``executing``);
    - a ``reverted`` call was reverted in the ledger (under its own key).

    With ``all_kept=False`` (executions may have been deleted or pruned) a ledger action
    whose call is no longer in the journal is not a problem.
    """
    problems = list(store.integrity_problems())
    rows = ledger_rows(ledger)
    applies = Counter(k for k, _, op in rows if op == "apply")
    reverts = Counter(k for k, _, op in rows if op == "revert")
    keys_of_label: dict[str, set[str]] = {}
    for key, label, op in rows:
        if op == "apply":
            keys_of_label.setdefault(label, set()).add(key)
    problems += [f"{key} applied {n} times" for key, n in applies.items() if n > 1]
    problems += [f"label {label!r} applied under several keys {sorted(keys)}"
                 for label, keys in keys_of_label.items() if len(keys) > 1]
    journal = journal_entries(store, runtime)
    for key, (label, state) in journal.items():
        if state in ("applied", "reverted", "reverting") and not applies[key]:
            problems.append(f"{key} ({label}) is {state} in the journal but was never applied")
        if state == "reverted" and not reverts[key]:
            problems.append(f"{key} ({label}) is reverted in the journal but was never reverted")
    for key in applies:
        if key not in journal:
            if all_kept:
                problems.append(f"{key} was applied but the journal has no such call")
        elif journal[key][1] not in ("applied", "reverted", "reverting", "executing"):
            problems.append(f"{key} was applied but the journal says {journal[key][1]}")
    return problems
