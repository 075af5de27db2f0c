"""``codemode run`` and ``codemode pending`` show a waiting call's bytes as the card does (session 15's note).

A call waiting for approval with a bytes argument was printed as ``{"data": {"$bytes": "JVBERi0xLjcKAP8="}}``:
base64, which a person deciding on the call cannot read. The card, ``%pending`` and the panel show
``b'%PDF-1.7\\n\\x00\\xff' (11 bytes)``, and the first 200 bytes of a longer value with a note of its length.

The right outcome: the terminal shows bytes that way too, and never the base64.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel.cli import main

CONNECTOR_MODULE = '''
from codemode_kernel import ToolSetConnector

def store(name: str, data: bytes) -> int:
    """Store a file."""
    return len(data)

def files():
    return ToolSetConnector([store], name="files", requires_approval={"store"})
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cli_files.py").write_text(CONNECTOR_MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.files]\npython = "cli_files:files"\n'
                                            '[executor]\nkind = "inprocess"\n')
    return tmp_path


@pytest.mark.parametrize(("data", "shown"), [
    ("b'%PDF-1.7\\n\\x00\\xff'", "b'%PDF-1.7\\n\\x00\\xff' (11 bytes)"),
    ("b'\\x1b[2J' + b'z' * 5000", "b'\\x1b[2Jzzz"),
], ids=["short", "long"])
def test_a_waiting_calls_bytes_read_as_python_writes_them(project: Path, capsys: pytest.CaptureFixture[str],
                                                        data: str, shown: str) -> None:
    (project / "prog.py").write_text(f"files.store(name='a', data={data})\n")
    assert main(["--dir", str(project), "run", "--approve", "no", str(project / "prog.py")]) == 0
    ran = capsys.readouterr().out
    assert main(["--dir", str(project), "pending"]) == 0
    pending = capsys.readouterr().out
    for out in (ran, pending):
        assert shown in out, out
        assert "$bytes" not in out and "\x1b" not in out, out
        if "5000" in data:
            assert "(the first 200 of 5,004 bytes)" in out and "z" * 201 not in out, out
