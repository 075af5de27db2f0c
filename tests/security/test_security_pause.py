"""A pause cannot be swallowed: whatever the code does with it, nothing more runs in that pass.

Through the runtime on both executors; the vault counts every call that reached it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.executor.isolated import SubprocessExecutor
from tests.security.security_support import HostSecrets, Vault

pytestmark = pytest.mark.anyio

SWALLOWS = {
    "bare-except": "try:\n    vault.transfer(amount=1)\nexcept BaseException:\n    pass\nvault.status()\n'went on'",
    "except-and-retry-forever": ("while True:\n    try:\n        vault.transfer(amount=1)\n"
                                 "    except BaseException:\n        vault.status()"),
    "finally": "try:\n    vault.transfer(amount=1)\nfinally:\n    vault.status()",
    "return-in-finally": ("def f():\n    try:\n        vault.transfer(amount=1)\n    finally:\n        return 5\n"
                          "f()\nvault.status()"),
    "mask-as-other-error": ("try:\n    vault.transfer(amount=1)\nexcept BaseException:\n"
                            "    raise ValueError('all good')"),
    "step-after-pause": ("try:\n    vault.transfer(amount=1)\nexcept BaseException:\n    pass\n"
                         "codemode.step('later', lambda: 1)"),
    "snippet-after-pause": ("try:\n    vault.transfer(amount=1)\nexcept BaseException:\n    pass\n"
                            "codemode.run('anything', {})"),
    "generator-swallow": ("def g():\n    try:\n        yield vault.transfer(amount=1)\n"
                          "    except BaseException:\n        yield vault.status()\nlist(g())"),
}


@pytest.fixture(params=["subprocess", "inprocess"])
async def runtime(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[CodemodeRuntime, Vault]]:
    host = HostSecrets.create(tmp_path / "host")
    vault = Vault(host.secret)
    executor = SubprocessExecutor() if request.param == "subprocess" else InProcessExecutor()
    rt = CodemodeRuntime([vault], store=f"sqlite:///{tmp_path / 'journal.db'}", executor=executor)
    yield rt, vault
    await rt.aclose()


@pytest.mark.parametrize("code", list(SWALLOWS.values()), ids=list(SWALLOWS))
async def test_a_caught_pause_still_pauses(runtime: tuple[CodemodeRuntime, Vault], code: str) -> None:
    """The execution is paused on the gated call; no later call or step of that pass reached the host."""
    rt, vault = runtime
    start = time.monotonic()
    out = await rt.execute(code)
    assert out["status"] == "paused"
    assert [(p["seq"], p["method"]) for p in out["pending"]] == [(0, "transfer")]
    assert sum(vault.calls.values()) == 0
    assert time.monotonic() - start < 10
    state = await rt.execution(out["execution_id"])
    assert state is not None and [e.seq for e in state.log] == [0]


async def test_approval_runs_the_gated_call_once(runtime: tuple[CodemodeRuntime, Vault]) -> None:
    """After a swallowed pause, approving runs the approved call exactly once and the pass goes on."""
    rt, vault = runtime
    out = await rt.execute(SWALLOWS["bare-except"])
    done = await rt.approve(out["execution_id"])
    assert done["status"] == "completed" and done["result"] == "went on"
    assert (vault.calls["transfer"], vault.calls["status"]) == (1, 1)


async def test_a_pass_that_spins_after_its_pause_is_stopped(tmp_path: Path) -> None:
    """Code that swallows the pause and loops forever is killed after a short grace; the execution is paused."""
    vault = Vault("token")
    rt = CodemodeRuntime([vault], store=f"sqlite:///{tmp_path / 'journal.db'}", executor=SubprocessExecutor())
    try:
        start = time.monotonic()
        out = await rt.execute("while True:\n    try:\n        vault.transfer(amount=1)\n"
                               "    except BaseException:\n        pass")
        assert out["status"] == "paused"
        assert time.monotonic() - start < 6
        assert sum(vault.calls.values()) == 0
    finally:
        await rt.aclose()
