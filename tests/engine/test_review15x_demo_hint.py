"""Review 15x: ``codemode demo`` prints a rollback command that cannot work.

After the approved pass, the demo prints the journal and "can roll back: codemode rollback ID
reverts 1 call(s)", then asks "Roll back the applied actions? [y/N]". A person who answers N
and types that command, in the same terminal, gets "codemode: No execution 'ID' in runtime
'default'" (rc 1) - the demo's journal is a temporary file ("The journal is kept in
/tmp/codemode-demo-.../demo.codemode.db") and its notes connector lives in the demo's process
- and the command has just created ``.codemode/`` in the working folder.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from codemode_kernel.cli import main


def test_a_command_the_demo_suggests_works(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    answers = iter(["y", "n"])
    assert main(["demo"], ask=lambda question: next(answers, "n")) == 0
    out = capsys.readouterr().out
    suggested = re.findall(r"(codemode [^\n]*?rollback \w+)", out)
    for command in suggested:
        rc = main(shlex.split(command)[1:], ask=lambda question: "n")
        err = capsys.readouterr().err
        assert rc == 0, (command, err)
