"""``codemode mcp`` runs a folder's connectors in that folder, whatever folder the agent host starts
it in (review 15x H2), and its ``next_step`` names a notebook given by a relative path absolutely
(review 15x M6) - a person's terminal is not the agent host's folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.serving.serving_support import CODEMODE, server_env

pytestmark = pytest.mark.anyio

NOTES = '''
from codemode_kernel import ToolSetConnector


def notes(path: str):
    def write(text: str) -> str:
        """Write a note."""
        with open(path, "a") as f:
            f.write(text + "\\n")
        return text

    def add(text: str) -> str:
        """Add a note (needs approval)."""
        return write(text)

    return ToolSetConnector([write, add], name="notes", requires_approval={"add"})
'''


def project(folder: Path) -> Path:
    folder.mkdir()
    (folder / "s15c_notes.py").write_text(NOTES)
    (folder / "codemode.toml").write_text('[connectors.notes]\npython = "s15c_notes:notes"\n'
                                          'options = { path = "notes.txt" }\n[executor]\nkind = "inprocess"\n')
    notebook = folder / "analysis.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return notebook


async def test_the_server_writes_in_the_notebooks_folder_and_names_it_absolutely(tmp_path: Path) -> None:
    notebook = project(tmp_path / "project")
    host = tmp_path / "agent-host"  # where an agent host starts its servers (often $HOME)
    host.mkdir()
    params = StdioServerParameters(command=CODEMODE, args=["--notebook", "../project/analysis.ipynb", "mcp"],
                                   env=server_env(), cwd=str(host))
    async with Client(params) as client:
        done = await client.call_tool("codemode", {"code": "notes.write(text='from the model')"})
        paused = await client.call_tool("codemode", {"code": "notes.add(text='later')"})
    assert done.structured_content is not None and done.structured_content["status"] == "completed", done
    assert (notebook.parent / "notes.txt").read_text() == "from the model\n"
    assert not (host / "notes.txt").exists()
    assert paused.structured_content is not None and paused.structured_content["status"] == "paused"
    step = paused.structured_content["next_step"]
    assert f"codemode --notebook {notebook} approve ID" in step, step
