"""The journal keeps a bounded amount of a pass's output, whatever executor ran it (issue 16, item 1).

The built-in executors keep at most ``max_kept_output_chars`` (200,000 by default, at most
1,000,000); the runtime bounds what it stores too, for an executor of someone else's making.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime
from codemode_kernel.executor.base import ExecuteResult, HostHandler, OutputCallback
from codemode_kernel.executor.stream import MAX_STORED_OUTPUT_CHARS, bounded_lines

pytestmark = pytest.mark.anyio


class VerboseExecutor:
    """An executor (not a built-in one) whose passes report three million characters of logs."""

    def __init__(self) -> None:
        self.passes = 0

    async def execute(self, code: str, namespaces: Mapping[str, Sequence[str]], *, host: HostHandler,
                      inputs: Mapping[str, Any] | None = None, on_output: OutputCallback | None = None,
                      capture_variables: bool = False, replay: Sequence[Mapping[str, Any]] = ()) -> ExecuteResult:
        self.passes += 1
        return ExecuteResult(result="done", logs=["y" * 99] * 30_000)

    def interrupt(self) -> bool:
        return False

    async def aclose(self) -> None:
        pass


async def test_the_journal_keeps_a_bounded_part_of_a_pass_output(tmp_path: Path) -> None:
    executor = VerboseExecutor()
    runtime = CodemodeRuntime(connectors=[], store=f"sqlite:///{tmp_path / 'out.codemode.db'}", executor=executor)
    out = await runtime.execute("anything")
    assert out["status"] == "completed" and executor.passes == 1
    state = await runtime.execution(out["execution_id"])
    assert state is not None
    stored = "\n".join(state.logs) + "\n"
    assert len(stored) <= MAX_STORED_OUTPUT_CHARS + 200
    assert state.logs[0] == "y" * 99
    assert state.logs[-1].startswith("[Code Mode: ") and "more characters of output were not kept" in state.logs[-1]
    assert out["logs"] == state.logs, "the caller hears what the journal keeps"


def test_bounded_lines_says_how_much_it_left_out() -> None:
    assert bounded_lines(["ab", "cd"], 100) == ["ab", "cd"]
    kept = bounded_lines(["abc", "defgh", "ij"], 7)  # each line counted with its line break
    assert kept[:2] == ["abc", "de"]
    assert kept[2] == ("[Code Mode: 7 more characters of output were not kept (a pass's logs are journaled "
                       "up to 7 characters).]")
    assert bounded_lines(["x" * 50], 10)[0] == "x" * 9, "a line longer than the bound keeps its start"
