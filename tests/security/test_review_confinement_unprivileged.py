"""An unprivileged host's zygote children give up every capability before their pass (issue 12 review).

As any user but root, the zygote confines inside a user namespace of its own, and each child
gives up its capabilities there (``capset``) instead of switching to ``nobody``; the 'ready'
template of 4d6d611 then says ``uid 65534, no capabilities``. Here the host itself runs as
uid 65534 (``setpriv``), its zygote's children run unrestricted probes, and the host reads
each child's /proc/<pid>/status while they run: the kernel must agree with the template.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.executor.launcher import zygote_supported
from codemode_kernel.executor.pool import worker_command

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")

UNPRIVILEGED_PYTHON = "/usr/bin/python3.11"
NO_CAPS = "0000000000000000"

HOST = r'''
import asyncio, json, sys
from pathlib import Path
sys.path[:0] = sys.argv[2:]
from codemode_kernel.executor.isolated import Limits
from tests.security import review_confinement_support as support

def look_at(pid):
    with open(f"/proc/{pid}/status") as f:
        status = {k: v.strip() for k, v in (line.split(":", 1) for line in f.read().splitlines())}
    with open(f"/proc/{pid}/limits") as f:
        limits = {line[:26].strip(): line[26:].split()[:2] for line in f.read().splitlines()[1:]}
    return {"pid": pid, "status": status, "limits": limits}

support.look_at = look_at  # /proc/<pid>/root and fd need ptrace rights over the child: status and limits do not

async def main():
    probe = support.ProbeZygote(Path(sys.argv[1]), Limits(max_memory_bytes=512 << 20), warm=1)
    try:
        outs = [await probe.probe() for _ in range(4)]
    finally:
        await probe.aclose()
    print(json.dumps([{"error": str(o["error"]) if o["error"] else None, "result": o["result"], "seen": o["seen"],
                       "report": o["report"]} for o in outs]))

asyncio.run(main())
'''


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A folder uid 65534 may use (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="codemode-review-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_an_unprivileged_hosts_children_have_no_capabilities_while_their_pass_runs(public_dir: Path) -> None:
    """It is an error if a child that reports 'no capabilities' has one while its pass runs (kernel's view)."""
    if os.geteuid() != 0 or not shutil.which("setpriv") or not os.access(UNPRIVILEGED_PYTHON, os.X_OK):
        pytest.skip("needs root (to switch to an unprivileged user), setpriv and a world-readable python")
    repo = str(Path(__file__).resolve().parents[2])
    proc = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", UNPRIVILEGED_PYTHON, "-I", "-S", "-c", HOST,
         str(public_dir), repo, *worker_command()[-2:]],
        capture_output=True, env={}, cwd="/", timeout=180)
    assert proc.returncode == 0 and proc.stdout, proc.stderr.decode()[-3000:]
    outs: list[dict[str, Any]] = json.loads(proc.stdout)
    if outs[0]["report"]["problems"]:
        pytest.skip(f"user namespaces are not available to unprivileged users here: {outs[0]['report']['problems']}")
    for out in outs:
        assert out["error"] is None, out["error"]
        assert "probe-failed" not in out["result"], out["result"]["probe-failed"]
        assert out["report"]["user"] == "uid 65534, no capabilities"
        status = out["seen"]["status"]
        for caps in ("CapEff", "CapPrm", "CapInh", "CapAmb"):
            assert status[caps] == NO_CAPS, (caps, status[caps])
        assert status["Seccomp_filters"] == "2" and status["NoNewPrivs"] == "1"
        assert status["NSpid"].split()[-1] == "1"
        assert out["seen"]["limits"]["Max address space"] == [str(512 << 20)] * 2
        assert out["result"]["uid"] == [65534] * 4
        assert {k: v for k, v in out["result"]["attempts"].items() if not v.startswith("blocked")} == {}
    assert len({out["seen"]["pid"] for out in outs}) == 4
