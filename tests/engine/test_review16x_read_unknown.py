"""Review 16x: a read-only MCP tool that was running when its pass stopped is rolled back as "outcome unknown ...
undo it by hand".

Review 15x M8 made a read-only tool's *timeout* a plain error when ``approval_from_annotations`` is on (the author
trusts the server's annotations): nothing was changed. A pass that stops while such a call runs (its wall-clock
timeout, an interrupt) still leaves the entry ``executing``; rollback names it among the unknown outcomes ("check
memo and undo it by hand if it was done") and the pass's error says "it was not stopped and may still take effect
... Look at the journal before you send it again": advice to undo a read.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder
from codemode_kernel.rollback_report import unknown_calls

TOML = '''[executor]
kind = "inprocess"
timeout = 1

[connectors.memo]
mcp = { command = "python", args = ["-m", "codemode_kernel.demo.mcp_server", "--store", "memo.json"] }
approval_from_annotations = true
reverts = { add_note = { method = "delete_note", args = { note_id = "$result.id" } } }
'''


def test_a_read_cut_off_by_the_pass_is_not_an_unknown_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    monkeypatch.chdir(tmp_path)

    async def run() -> tuple[dict, list[str]]:
        async with runtime_for_folder(tmp_path).runtime as rt:
            out = await rt.execute('memo.add_note(title="a")\nmemo.slow(seconds=3)')
            assert out["status"] == "error", out
            await rt.rollback(out["execution_id"])
            state = await rt.execution(out["execution_id"])
            assert state is not None
            return out, [f"{e.connector}.{e.method}" for e in unknown_calls(state)]

    out, unknown = asyncio.run(run())
    assert "may still take effect" not in out["error"], out["error"]
    assert unknown == [], unknown  # what rollback (%rollback, codemode rollback, show) names as unknown
