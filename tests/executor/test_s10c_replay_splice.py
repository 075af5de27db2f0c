"""The replay plan's recorded values go to the worker as the journal stored them (issue 12, s10c).

A recorded value is stored as the codec's compact JSON text; the plan keeps that text beside the
parsed value (``RecordedValue.text``) when it may stand for the value as it is, and the isolated
executor splices it into the run message instead of serializing the value again: the very bytes
the message had before for what the codec wrote, and the same JSON for any other one-line text.
Text other writers left (whitespace with line breaks, padding, NaN, escaped surrogates) is
serialized again from its value, as before; text that is not JSON fails as before.
"""

from __future__ import annotations

import copy
import json
import pickle
from datetime import date, datetime
from typing import Any

import pytest

from codemode_kernel import codec
from codemode_kernel.executor.base import RecordedValue
from codemode_kernel.executor.isolated import _run_line
from codemode_kernel.executor.worker import dumps_line, loads_line
from codemode_kernel.journal import EntryRow
from codemode_kernel.models import STEP_CONNECTOR
from codemode_kernel.passes import local_replay_plan

VALUES: list[Any] = [
    0, -7, 2**70, 1.5, 1e-300, True, None, "", "plain", "é ünïcode ✓ 𝄞", 'quote " back \\ slash\n\t\x00',
    [], {}, [1, [2, [3]]], {"b": 1, "a": {"z": [None, "x"]}}, b"\x00\xffbytes", (1, "two"),
    datetime(2026, 1, 2, 3, 4, 5), date(2026, 1, 2), {"$codemode": 1},
]


def _entry(seq: int, state: str, *, connector: str = "crm", method: str = "get", args: str = '{"i":1}',
           result: str | None = None, error: str | None = None) -> EntryRow:
    return EntryRow(seq, connector, method, args, result, False, False, state, error, 1, 0, 0)


def _journal() -> dict[int, EntryRow]:
    entries = [_entry(i, "applied", method=f"m{i % 3}", args=codec.canonical_encoded({"i": i, "s": "ü\"x"}),
                      result=codec.dumps(value)) for i, value in enumerate(VALUES)]
    entries.append(_entry(len(entries), "applied", result=None))  # a stored null
    entries.append(_entry(len(entries), "error", error="KeyError: 'missing'"))
    entries.append(_entry(len(entries), "applied", connector=STEP_CONNECTOR, method="a step", args="null",
                          result=codec.dumps({"step": [1, 2]})))
    entries.append(_entry(len(entries), "applied", result=codec.dumps("after the error")))
    return {e.seq: e for e in entries}


def _plain(plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in item.items()} for item in plan]


RUN = {"op": "run", "code": "x = 'code with a lone \ud800 surrogate'", "namespaces": {"crm": ["get", "m0"]},
       "inputs": {"n": 1}, "capture_variables": False}


def test_the_run_line_has_the_bytes_of_the_plan_serialized_again() -> None:
    plan = local_replay_plan(_journal())
    assert sum(type(item) is RecordedValue and item.text is not None for item in plan) == len(VALUES) + 3
    expected = dumps_line({**RUN, "replay": [dict(item) for item in plan]})
    assert _run_line(dict(RUN), plan) == expected
    message = loads_line(expected)
    assert [codec.decode(item["v"]) for item in message["replay"][: len(VALUES)]] == VALUES


def test_a_stored_text_is_sent_as_it_is() -> None:
    journal = {0: _entry(0, "applied", result='{"b": [1, 2],\t"a": "x"}')}  # spaced, one line: the same JSON
    line = _run_line(dict(RUN), local_replay_plan(journal))
    assert b'"v":{"b": [1, 2],\t"a": "x"}}]}' in line
    assert loads_line(line)["replay"][0]["v"] == {"b": [1, 2], "a": "x"}


@pytest.mark.parametrize("stored", ['{\n  "a": 1\n}', '{"a":1}\n', ' {"a":1}', '{"a":1}\r\n', '[NaN]', '[1e999]',
                                    '"\\ud800"', '"\\uD83D\\uDE00"'])
def test_other_stored_texts_are_serialized_again_from_their_value(stored: str) -> None:
    plan = local_replay_plan({0: _entry(0, "applied", result=stored)})
    assert type(plan[0]) is RecordedValue and plan[0].text is None
    assert plan[0]["v"] == json.loads(stored) or stored in ('[NaN]',)
    try:
        expected: bytes | type[Exception] = dumps_line({**RUN, "replay": [dict(plan[0])]})
    except ValueError:
        expected = ValueError
    if expected is ValueError:
        with pytest.raises(ValueError):
            _run_line(dict(RUN), plan)
    else:
        assert _run_line(dict(RUN), plan) == expected


@pytest.mark.parametrize("stored", ["nul", "", '1}],"code":"[42, 42]","x":[{"q":1', "1 2"])
def test_the_plan_stops_at_a_stored_text_that_is_not_one_json_value(stored: str) -> None:
    """Text json.loads refuses is never shipped to the sandbox: the plan ends before it, and the host
    answers that call (it ends the pass as a StoreError naming the call: test_review10_replay_plan)."""
    with pytest.raises(json.JSONDecodeError):
        json.loads(stored)
    journal = {0: _entry(0, "applied", result="1"), 1: _entry(1, "applied", result=stored),
               2: _entry(2, "applied", result="3")}
    assert [item["v"] for item in local_replay_plan(journal)] == [1]


def test_a_plan_without_recorded_values_is_dumped_as_before() -> None:
    plan = [{"c": "crm", "m": "get", "a": "{}", "r": {"type": "KeyError", "message": "x"}}]
    assert _run_line(dict(RUN), plan) == dumps_line({**RUN, "replay": plan})
    assert _run_line(dict(RUN), []) == dumps_line({**RUN, "replay": []})


def test_a_recorded_value_is_the_plain_dict_it_stands_for() -> None:
    entry = RecordedValue("crm", "get", '{"i":1}', {"b": [1, 2]}, '{"b":[1,2]}')
    plain = {"c": "crm", "m": "get", "a": '{"i":1}', "v": {"b": [1, 2]}}
    assert entry == plain and dict(entry) == plain and {**entry} == plain
    assert json.loads(json.dumps(entry)) == plain
    assert codec.dumps_encoded([entry]) == codec.dumps_encoded([plain])
    assert pickle.loads(pickle.dumps(entry)) == plain
    assert copy.deepcopy(entry) == plain
