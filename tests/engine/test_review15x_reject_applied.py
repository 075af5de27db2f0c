"""Review 15x: rejecting the second action of a program does not say the first one stays done.

``codemode run two.py`` (two writes that need approval), answering y then n: the output ends with
``rejected`` (rc 1). The first write ran and stays (README: rejecting ends the execution "without
undoing earlier calls"); nothing says so or how to undo it (``codemode rollback ID``). The
kernel's ``%reject`` answers "Rejected: the action was not run and the execution ended." - the
same silence about call #0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel.cli import main

MODULE = '''
from codemode_kernel import ToolSetConnector

DONE = []

def add(text: str) -> dict:
    """Add an item."""
    DONE.append(text)
    return {"id": len(DONE), "text": text}

def items():
    return ToolSetConnector([add], name="items", requires_approval={"add"},
                            reverts={"add": lambda args, result, ctx: DONE.remove(result["text"])})
'''


def test_a_rejection_names_the_actions_that_stay_applied(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "review15x_reject_items.py").write_text(MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.items]\npython = "review15x_reject_items:items"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "two.py").write_text('a = items.add(text="one")\nb = items.add(text="two")\n[a, b]\n')
    answers = iter(["y", "r"])  # r rejects; n or Enter leaves it waiting (review 16x L7, s16c)
    rc = main(["--dir", str(tmp_path), "run", str(tmp_path / "two.py")], ask=lambda q: next(answers))
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert rc == 1 and "rejected" in said, said
    after = said.split('#1 items.add({"text": "two"})')[-1]  # what is said once the person answered r
    assert "#0" in after and "rollback" in after, said  # call #0 stays applied; codemode rollback ID undoes it
