"""Review 16x: an MCP table whose command is ``python`` has another target in each door, so a pause made in a
notebook cannot be approved from ``codemode`` (and the refusal blames a connector the execution never called).

``McpConnector.from_config`` (connectors/mcp.py, ``command in ("python", "python3")``) replaces the word with
``sys.executable``, and the target an execution records (``McpConnector.target``) holds that path. The same
interpreter is ``.venv/bin/python`` in one process (a kernel started by ``python -m jupyterlab``, VS Code, a host
program run with ``python``) and ``.venv/bin/python3.11`` in another (the ``codemode`` script's shebang). The
demo folder's ``memo`` table is such a table: a cell there pauses at ``notes.add_note``, and
``codemode --notebook analysis.ipynb approve last`` answers "Execution ... made its calls on connector 'memo' as it
was configured then ... The configuration of 'memo' changed since" although codemode.toml was not touched and the
execution never called memo. Reproduced for real: kernel (sys.executable .venv/bin/python) then the CLI.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder

NOTES = '''
from codemode_kernel import ToolSetConnector

def make():
    def add_note(text: str) -> dict:
        """Add a note."""
        return {"text": text}
    return ToolSetConnector([add_note], name="notes", requires_approval={"add_note"}, target="notes in test")
'''

TOML = '''[executor]
kind = "inprocess"

[connectors.notes]
python = "notes_mod:make"

[connectors.memo]
mcp = { command = "python", args = ["-m", "codemode_kernel.demo.mcp_server", "--store", "memo.json"] }
'''


def _interpreters() -> tuple[str, str]:
    """Two names of the running interpreter, as two doors see it (``.../python`` and ``.../python3.X``)."""
    folder = Path(sys.executable).parent
    names = [folder / "python", folder / "python3", folder / f"python{sys.version_info[0]}.{sys.version_info[1]}"]
    same = [str(p) for p in names if p.exists() and os.path.realpath(p) == os.path.realpath(sys.executable)]
    if len(same) < 2:
        pytest.skip("this interpreter has no second name in its folder")
    return same[0], same[-1]


def test_a_pause_made_under_one_interpreter_name_is_approved_under_another(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    (tmp_path / "notes_mod.py").write_text(NOTES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    kernel_python, cli_python = _interpreters()

    async def pause() -> str:
        monkeypatch.setattr(sys, "executable", kernel_python)
        rt = runtime_for_folder(tmp_path).runtime
        async with rt:
            out = await rt.tool()('notes.add_note(text="hello")')
            assert out["status"] == "paused", out
            return str(out["execution_id"])

    async def approve(eid: str) -> dict:
        monkeypatch.setattr(sys, "executable", cli_python)
        rt = runtime_for_folder(tmp_path).runtime
        async with rt:
            return dict(await rt.approve(eid))

    eid = asyncio.run(pause())
    out = asyncio.run(approve(eid))
    assert out["status"] == "completed", out.get("error")


def test_a_refusal_does_not_say_calls_were_made_on_a_connector_never_called(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "codemode.toml").write_text(TOML)
    (tmp_path / "notes_mod.py").write_text(NOTES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)

    async def pause() -> str:
        rt = runtime_for_folder(tmp_path).runtime
        async with rt:
            out = await rt.tool()('notes.add_note(text="hello")')
            assert out["status"] == "paused", out
            return str(out["execution_id"])

    async def approve(eid: str) -> dict:
        rt = runtime_for_folder(tmp_path).runtime
        async with rt:
            return dict(await rt.approve(eid))

    eid = asyncio.run(pause())
    # memo is pointed at another store: a real change, but the execution never called memo.
    (tmp_path / "codemode.toml").write_text(TOML.replace("memo.json", "other.json"))
    out = asyncio.run(approve(eid))
    said = str(out.get("error") or "")
    assert "made its calls on connector 'memo'" not in said, said
