"""Review 14x: a whole command line in an ``mcp`` table's ``command``.

``mcp = { command = "python -m codemode_kernel.demo.mcp_server" }`` (a person copying the line
they type in a terminal) is reported as "the command 'python -m codemode_kernel.demo.mcp_server'
was not found in this Python's bin folder (...) or on PATH. Install it into this environment, or
give its absolute path": advice to install something that is installed. README documents both
right forms: ``command`` with ``args = [...]``, or ``mcp = "a command line"``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from codemode_kernel.building import runtime_for_folder


def test_a_command_line_in_command_is_told_to_use_args(tmp_path: Path) -> None:
    (tmp_path / "codemode.toml").write_text(
        '[connectors.memo]\nmcp = { command = "python -m codemode_kernel.demo.mcp_server" }\n', encoding="utf-8")
    built = runtime_for_folder(tmp_path)

    async def said() -> str:
        async with built.runtime as rt:
            catalog = await rt.catalog()
            return " ".join([*map(str, built.problems), *catalog.unavailable.values()])

    text = asyncio.run(said())
    assert "args" in text, text
    assert "Install it" not in text, text
