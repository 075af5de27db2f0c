"""Review 16x: a table named ``print``, ``input`` or ``printed`` takes every other connector down with it.

README (codemode.toml reference): "A bad table costs only its own connector". The configuration loader refuses a
table named ``codemode`` on its own, but lets ``[connectors.print]`` (and ``input``, ``printed``) through with the
review 15x M17 note "is named like the builtin print(): in cells, print is this connector and that is out of
reach". The runtime then refuses the whole set (catalog.py ``RESERVED_NAMES``, ``check_connector_names``), and
building.py answers "The connectors could not be used together: a connector cannot be named 'print' ... Running
without connectors". Every cell runs with no connector, and the two notes contradict each other.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder

TEAM = '''
from codemode_kernel import ToolSetConnector

def make():
    def list_people() -> list:
        """Everyone."""
        return ["ada"]
    return ToolSetConnector([list_people], name="team")
'''


@pytest.mark.parametrize("reserved", ["print", "input", "printed"])
def test_a_reserved_table_name_costs_only_that_table(reserved: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "team_mod.py").write_text(TEAM)
    (tmp_path / "codemode.toml").write_text(
        f'[executor]\nkind = "inprocess"\n\n[connectors.team]\npython = "team_mod:make"\n\n'
        f'[connectors.{reserved}]\npython = "team_mod:make"\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    built = runtime_for_folder(tmp_path)

    async def names() -> list[str]:
        async with built.runtime as rt:
            return sorted((await rt.catalog()).methods)

    assert asyncio.run(names()) == ["team"], built.problems
    said = " ".join(built.problems)
    assert f"[connectors.{reserved}]" in said, said
    assert "out of reach" not in said, said  # the table is refused, not shadowing
