"""Review 14x: README says "``SyncRuntime`` has the same methods, blocking"; seven are missing.

``CodemodeRuntime``'s documented API (README "The rest of the API"): ``reject``, ``pending``,
``expire_paused``, ``executions``, ``execution``, ``delete_execution``, ``prune_executions``,
``save_snippet``, ``snippets``, ``delete_snippet``, ``search``, ``describe``, ``interrupt`` and
``tool()``. ``SyncRuntime`` (sync.py) has no ``search``, ``describe``, ``delete_execution``,
``prune_executions``, ``delete_snippet``, ``interrupt`` or ``tool``: a script without asyncio
cannot discover methods, clean up, or hand the runtime to a model.
"""

from __future__ import annotations

from pathlib import Path

from codemode_kernel import InProcessExecutor, SyncRuntime, ToolSetConnector

DOCUMENTED = ["reject", "pending", "expire_paused", "executions", "execution", "delete_execution",
              "prune_executions", "save_snippet", "snippets", "delete_snippet", "search", "describe",
              "interrupt", "tool"]


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_sync_runtime_has_the_documented_methods(tmp_path: Path) -> None:
    with SyncRuntime([ToolSetConnector([add], name="calc")], store=f"sqlite:///{tmp_path / 's.db'}",
                     executor=InProcessExecutor()) as rt:
        missing = [name for name in DOCUMENTED if not callable(getattr(rt, name, None))]
        assert missing == [], f"SyncRuntime has no {missing}"
        found = rt.search("add two numbers")
        assert found.results[0].path == "calc.add"
        assert "def add(" in rt.describe("calc.add").types
