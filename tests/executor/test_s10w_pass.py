"""A pass's carried-over variables are serialized once in the worker (issue 12, s10w): the same
variables are kept within the budget as before. Beside them, the outcomes a call's value and a
replayed entry must keep whatever path returns them (the codec's decoding, a recorded error).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from codemode_kernel import codec
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.language import ConnectorError
from codemode_kernel.executor.sandbox import run_pass


class _Answer:
    def __init__(self, value: Any = 1) -> None:
        self.value = value
        self.requests = 0

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.requests += 1
        return {"value": self.value}

    def notify(self, message: dict[str, Any]) -> None:
        pass


def _trimmed_before(variables: dict[str, Any], budget: int) -> dict[str, Any]:
    """What the worker did before: each encoded value serialized again, first come first within ``budget``."""
    out: dict[str, Any] = {}
    used = 0
    for name, value in variables.items():
        size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
        if used + size > budget:
            continue
        out[name] = value
        used += size
    return out


CELL = "a = 'x' * 10\nb = list(range(40))\nc = 'é' * 5\nd = {'k': (1, 2), 'when': None}\ne = 3\n'done'"


@pytest.mark.parametrize("budget", [0, 1, 12, 13, 20, 25, 150, 200, 10_000])
def test_the_variables_kept_within_a_budget_are_the_ones_trimmed_before(budget: int) -> None:
    """First come first: a value that would overflow the budget is left out and later smaller ones
    still fit, exactly as the worker's second serialization decided."""
    everything = run_pass(CELL, {}, {}, _Answer())["variables"]
    assert list(everything) == ["a", "b", "c", "d", "e"]
    kept = run_pass(CELL, {}, {}, _Answer(), variables_budget=budget)["variables"]
    assert kept == _trimmed_before(everything, budget)
    assert list(kept) == list(_trimmed_before(everything, budget))


@pytest.mark.anyio
async def test_the_isolated_worker_keeps_variables_within_max_result_chars() -> None:
    """Through a worker: the carried-over variables fit in max_result_chars, first come first."""
    executor = SubprocessExecutor(Limits(max_result_chars=60))
    try:
        out = await executor.execute("a = 'x' * 30\nb = 'y' * 40\nc = 'z' * 10\n1", {}, host=_host,
                                     capture_variables=True)
    finally:
        await executor.aclose()
    assert out.error is None, out.error
    assert set(out.variables) == {"a", "c"}


async def _host(message: dict[str, Any]) -> dict[str, Any]:
    return {"value": None}


@pytest.mark.parametrize("value", [1, "text", True, None, 1.5, [1, {"$codemode": "tuple", "v": [2]}],
                                   {"$codemode": "bytes", "v": "aGk="}, {"$codemode": "dict", "v": {"$codemode": 1}}])
def test_a_call_s_value_is_decoded_as_the_codec_decodes_it(value: Any) -> None:
    """Plain values come back as they are; anything else through the codec (tags, floats)."""
    done = run_pass("v = bench.ping()\n[v, str(type(v))]", {"bench": ["ping"]}, {}, _Answer(value),
                    capture_variables=False)
    assert "error" not in done, done
    decoded = codec.decode(value)
    assert done["result"] == codec.encode([decoded, str(type(decoded))])


def test_a_replayed_error_and_a_replayed_tagged_value_come_back_as_recorded() -> None:
    """A plan entry's error is raised as the host would raise it; a tagged value is decoded."""
    plan = [{"c": "bench", "m": "ping", "a": '{"i":1}', "v": {"$codemode": "tuple", "v": [1, 2]}},
            {"c": "bench", "m": "ping", "a": '{"i":2}', "r": {"type": "ConnectorError", "message": "boom"}}]
    channel = _Answer()
    code = ("first = bench.ping(i=1)\ntry:\n    bench.ping(i=2)\n    second = 'no error'\n"
            "except ConnectorError as e:\n    second = str(e)\n[str(type(first)), list(first), second]")
    done = run_pass(code, {"bench": ["ping"]}, {}, channel, capture_variables=False, replay=plan)
    assert done["result"] == ["<class 'tuple'>", [1, 2], "boom"], done
    assert channel.requests == 0
    assert issubclass(ConnectorError, Exception)
