"""Review 10: the replay plan, the recorded results a resumed pass ships to the sandbox (issue 12).

The journal keeps each recorded result as text. The codec writes compact JSON, but the store is
shared (a team's PostgreSQL, a SQLite file beside a notebook) and older or other writers, a
migration or a person with a SQL prompt may leave text the codec would not have written: JSON
with insignificant whitespace (newlines included), or text that is not one JSON value at all.
What a pass runs is the cell's code, whatever the journal holds; a stored result is only ever a
value of the call it belongs to, and never the line framing of the worker's protocol.

Attacks on the work in progress of s10c (the plan's recorded values spliced as stored text into
the run message, ``isolated._run_line`` / ``base.RecordedValue``, uncommitted at 06:00 UTC): with
that change applied, a stored result holding a newline crashed the worker (``WorkerCrashed``)
and a stored result of ``1}],"code":"[42, 42]",…`` replaced the cell's code with ``[42, 42]``,
which ran and completed. The first two specs below failed so (mutation: that diff applied in a
scratch worktree); on ``5cfecc3`` they pass, since every recorded result is parsed and serialized
again.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest

from codemode_kernel import Connector, Tool, tool
from tests.conftest import RuntimeFactory, StoreSql

pytestmark = pytest.mark.anyio

READ_VALUE = {"a": [1, 2], "b": "x"}
CODE = "r = rec.read()\nrec.act(v=r)\n[r, 'the cell ran']"


class Rec(Connector):
    """A read whose result is recorded, then a call that needs approval; both counted."""

    name = "rec"

    def __init__(self, value: Any = None) -> None:
        self.value = READ_VALUE if value is None else value
        self.calls = {"read": 0, "act": 0}
        self.acted: list[Any] = []

    def tools(self) -> dict[str, Tool]:
        def read() -> Any:
            self.calls["read"] += 1
            return self.value

        def act(v: Any = None) -> Any:
            self.calls["act"] += 1
            self.acted.append(v)
            return "done"

        return {"read": tool(read, input_schema={"type": "object"}),
                "act": tool(act, input_schema={"type": "object"}, requires_approval=True)}


async def _paused_then_stored(make_runtime: RuntimeFactory, store_sql: StoreSql, stored: str | None,
                              code: str = CODE, rec: Rec | None = None) -> tuple[Any, Rec, str]:
    rec = rec or Rec()
    rt = make_runtime([rec])
    paused = await rt.execute(code)
    assert paused["status"] == "paused", paused
    execution_id = paused["execution_id"]
    if stored is not None:
        store_sql("UPDATE codemode_entries SET result = :r WHERE execution_id = :e AND seq = 0",
                  r=stored, e=execution_id)
    return rt, rec, execution_id


@pytest.mark.parametrize("stored", [
    '{\n  "a": [1, 2],\n  "b": "x"\n}',  # pretty-printed: json.dumps(indent=2)
    '{"a":[1,2],"b":"x"}\n',  # a trailing newline
    ' \t{"b": "x", "a": [1, 2]}\r\n',  # spaces, keys in another order, CRLF
], ids=["indented", "trailing-newline", "spaced-crlf"])
async def test_a_stored_result_with_whitespace_replays_its_value(make_runtime: RuntimeFactory,
                                                                 store_sql: StoreSql, stored: str) -> None:
    """Valid JSON with insignificant whitespace is the same value: the resumed pass sees it and
    completes; the read is not called again and the approved call runs once with that value.

    Fails with s10c's splice applied (the stored text reaches the worker's line as it is, its
    newline ends the run message early: WorkerCrashed, exit code 70)."""
    assert json.loads(stored) == READ_VALUE
    rt, rec, execution_id = await _paused_then_stored(make_runtime, store_sql, stored)
    out = await rt.approve(execution_id)
    assert out["status"] == "completed", out
    assert out["result"] == [READ_VALUE, "the cell ran"]
    assert rec.calls == {"read": 1, "act": 1}
    assert rec.acted == [READ_VALUE]


INJECTED = '1}],"code":"rec.read()\\n[42, 42]","x":[{"q":1'


async def test_a_stored_result_never_changes_the_code_a_pass_runs(make_runtime: RuntimeFactory,
                                                                 store_sql: StoreSql) -> None:
    """A stored result that closes the plan's JSON and names a ``code`` of its own is not the
    cell's code: whatever the outcome, the injected program does not run (its result is not
    returned, the execution is not completed) and the approved call does not run.

    Fails with s10c's splice applied: the run message's last ``"code"`` key wins in the worker's
    ``json.loads``, the pass runs ``[42, 42]`` and the execution completes with that result.
    (On 5cfecc3 ``approve`` raised JSONDecodeError here; the next spec pins the fix.)"""
    rt, rec, execution_id = await _paused_then_stored(make_runtime, store_sql, INJECTED)
    out: dict[str, Any] | None = None
    with contextlib.suppress(json.JSONDecodeError):  # 5cfecc3: raised (see the next spec)
        out = await rt.approve(execution_id)
    assert out is None or (out["status"] != "completed" and out.get("result") != [42, 42]), out
    # From outside the runtime: rt.execution() parses the entries' results, this one included.
    assert store_sql("SELECT status FROM codemode_executions WHERE id = :e", e=execution_id) != [("completed",)]
    assert rec.calls == {"read": 1, "act": 0}


@pytest.mark.parametrize("stored", ["nul", INJECTED, ""], ids=["truncated", "injected", "empty"])
async def test_a_stored_result_that_is_not_json_fails_the_pass_as_data(make_runtime: RuntimeFactory,
                                                                      store_sql: StoreSql, stored: str) -> None:
    """A recorded result the store holds that is not one JSON value fails the resumed pass with
    an error as data naming the call (``rec.read``), not a worker crash nor an exception out of
    ``approve``; the read is not called again and the approved call does not run.

    On 5cfecc3 ``approve`` raises JSONDecodeError (``passes.local_replay_plan`` parses every
    recorded result). With s10c's splice: WorkerCrashed (truncated), the injected code's
    completion (injected), or, in-process, a bare JSONDecodeError that names no call."""
    rt, rec, execution_id = await _paused_then_stored(make_runtime, store_sql, stored)
    out = await rt.approve(execution_id)
    assert out["status"] == "error", out
    assert out["error_type"] != "WorkerCrashed"
    assert "rec.read" in out["error"]
    assert rec.calls == {"read": 1, "act": 0}


FRAMING = ("line\nfeed", "carriage\rreturn", "crlf\r\n", "nel\x85", "ls\u2028", "ps\u2029", "vt\x0b",
           "ff\x0c", "fs\x1c", "gs\x1d", "rs\x1e", "nul\x00", 'quote"}]', "back\\", "\ufeffbom", "😀", "\x7f")


async def test_results_holding_line_breaks_of_every_kind_replay_exactly(make_runtime: RuntimeFactory,
                                                                       store_sql: StoreSql) -> None:
    """A recorded result made of every character some reader treats as a line break (or a JSON
    delimiter) replays to the same value, in keys too; the read runs once in all.

    Mutation that fails it: the worker's ``loads_line`` splitting its text on ``str.splitlines``
    and parsing the first part (a reader that frames on U+2028, NEL, CR and the like)."""
    value = {"items": list(FRAMING), **{f"k{i}{c}": c for i, c in enumerate(FRAMING)}}
    rec = Rec(value)
    rt, rec, execution_id = await _paused_then_stored(make_runtime, store_sql, None, rec=rec)
    out = await rt.approve(execution_id)
    assert out["status"] == "completed", out
    assert out["result"] == [value, "the cell ran"]
    assert rec.calls == {"read": 1, "act": 1}
    assert rec.acted == [value]
