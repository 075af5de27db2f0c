"""Review 15x: ``codemode run`` beside a hung MCP server prints asyncio's internal error.

Review 14x H3 saw "codemode: ERROR asyncio: Future exception was never retrieved / future:
<Future finished exception=ConnectorError('CancelledError()')>" on stderr; after its fix it is
still there: ``codemode run one.py`` (the program ``1``) in a folder whose ``[connectors.slowstart]``
server never finishes starting prints it before the outcome, and says nothing a person can use
(which connector, that it was left out).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CODEMODE = str(Path(sys.executable).with_name("codemode"))


def test_a_hung_server_leaks_no_asyncio_internals(tmp_path: Path) -> None:
    (tmp_path / "hang.py").write_text("import time\ntime.sleep(60)\n")
    (tmp_path / "codemode.toml").write_text(
        f'[connectors.slowstart]\nmcp = {{ command = "{sys.executable}", args = ["hang.py"] }}\nconnect_timeout = 2\n'
        '[executor]\nkind = "inprocess"\n')
    (tmp_path / "one.py").write_text("1\n")
    done = subprocess.run([CODEMODE, "--dir", str(tmp_path), "run", "one.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "[completed]" in done.stdout, (done.stdout, done.stderr)
    assert "never retrieved" not in done.stderr and "CancelledError" not in done.stderr, done.stderr
