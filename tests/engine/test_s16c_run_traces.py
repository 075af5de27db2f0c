"""s16c: ``codemode run`` writes where the author's python connector raised, as the kernel does (review 16x M6).

On stderr, for the author at the terminal: never in the outcome (the program's error, ``--json``'s document),
and not at all when the program caught the error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.cli import main

NOTES = '''from codemode_kernel import ToolSetConnector


def make():
    def boom(x: int) -> int:
        """Explode."""
        return 1 // (x - x)
    return ToolSetConnector([boom], name="notes")
'''

CAUGHT = """try:
    notes.boom(x=1)
except ConnectorError as e:
    said = str(e)
said
"""


def _project(folder: Path, executor: str) -> str:
    """The project, with a module name of its own (a module imported by an earlier test is cached)."""
    module = f"s16c_traces_{executor}_{folder.name}".replace("-", "_")
    (folder / "codemode.toml").write_text(f'[executor]\nkind = "{executor}"\n\n[connectors.notes]\n'
                                          f'python = "{module}:make"\n')
    (folder / f"{module}.py").write_text(NOTES)
    return module


@pytest.mark.parametrize("executor", ["inprocess", "subprocess"])
def test_the_frame_is_on_stderr_and_the_outcome_is_untouched(executor: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    module = _project(tmp_path, executor)
    (tmp_path / "p.py").write_text("notes.boom(x=1)\n")
    rc = main(["--dir", str(tmp_path), "--json", "run", str(tmp_path / "p.py")], ask=lambda q: "n")
    said = capsys.readouterr()
    out = json.loads(said.out)
    assert rc == 1 and out["status"] == "error" and "ZeroDivisionError" in out["error"], out
    assert f"{module}.py" not in said.out and "line 7" not in said.out, said.out
    assert f'{module}.py", line 7, in boom' in said.err and "1 // (x - x)" in said.err, said.err


def test_a_caught_error_shows_no_frame(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = _project(tmp_path, "inprocess")
    (tmp_path / "p.py").write_text(CAUGHT)
    assert main(["--dir", str(tmp_path), "run", str(tmp_path / "p.py")], ask=lambda q: "n") == 0
    said = capsys.readouterr()
    assert "ZeroDivisionError" in said.out, said.out
    assert f"{module}.py" not in said.out + said.err, said
