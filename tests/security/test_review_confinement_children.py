"""Every child of the zygote is confined before its pass runs: pass after pass, and after the zygote is replaced.

A review of issue 12's confinement path (commit 4d6d611: the child's 'ready' line encoded once in
Z', rlimits through a prepared plan, the user switch split, seccomp installed with two prepared
prctl() calls). The zygote is the real one; its children run unrestricted probes (as code would
after escaping the language layer), and the host reads each child's /proc entries from outside
while the probes run, so the kernel, not the child, says how it is confined.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits
from codemode_kernel.executor.launcher import zygote_supported
from tests.security.review_confinement_support import (
    ProbeZygote,
    assert_confined,
    assert_refuses_everything,
    look_at,
    run,
)

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")

LIMITS = Limits(max_memory_bytes=512 << 20, max_open_files=24, max_cpu_seconds=40)


@pytest.mark.parametrize("warm", [0, 1])
def test_every_child_is_confined_while_its_pass_runs(tmp_path: Path, warm: int) -> None:
    """It is an error if any of 12 passes in a row (back to back) runs in a worker less confined than the first."""

    async def passes() -> list[dict[str, Any]]:
        probe = ProbeZygote(tmp_path, LIMITS, warm=warm)
        try:
            return [await probe.probe() for _ in range(12)]
        finally:
            await probe.aclose()

    outs = run(passes())
    for out in outs:
        assert out["error"] is None, out["error"]
        assert_confined(out["seen"], LIMITS)
        assert_refuses_everything(out["result"])
    assert len({out["seen"]["pid"] for out in outs}) == 12  # single use: a new process each time
    assert len({out["seen"]["status"]["PPid"] for out in outs}) == 1  # all forked by one zygote (Z')


def test_a_worker_waiting_for_its_pass_is_already_confined(tmp_path: Path) -> None:
    """It is an error if a ready worker, to which no code has been sent yet, is not yet fully confined."""

    async def idle_workers() -> list[dict[str, Any]]:
        probe = ProbeZygote(tmp_path, LIMITS, warm=1)
        seen = []
        try:
            for _ in range(6):
                report = await probe.executor.warm_up()
                assert report is not None
                seen.append(look_at(int(report["pid"])))  # idle: ready, and nothing sent to it
                out = await probe.probe()  # takes that worker (and its pass leaves)
                assert out["error"] is None, out["error"]
                assert out["seen"]["pid"] == seen[-1]["pid"]
        finally:
            await probe.aclose()
        return seen

    seen = run(idle_workers())
    for worker in seen:
        assert_confined(worker, LIMITS)
    assert len({worker["pid"] for worker in seen}) == 6


def test_the_children_of_a_replacement_zygote_are_confined(tmp_path: Path) -> None:
    """It is an error if, after the zygote was killed and replaced, a pass runs in a less confined worker."""

    async def across_a_replacement() -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
        probe = ProbeZygote(tmp_path, LIMITS, warm=1)
        try:
            before = [await probe.probe() for _ in range(3)]
            forker = int(before[-1]["seen"]["status"]["PPid"])  # Z', as the host sees it
            os.kill(forker, signal.SIGKILL)
            for _ in range(200):  # until the launcher has seen it die (its control socket closes)
                zygote = probe.executor._pool.launcher.zygote  # type: ignore[attr-defined]
                if zygote is None or zygote.dead:
                    break
                await asyncio.sleep(0.01)
            told = await probe.probe()
            after = [await probe.probe() for _ in range(4)]
        finally:
            await probe.aclose()
        return before, told, after

    before, told, after = run(across_a_replacement())
    assert told["error"] is not None and "zygote" in told["error"].message, told["error"]
    assert told["seen"] is None  # the pass that was told ran nothing
    for out in before + after:
        assert out["error"] is None, out["error"]
        assert_confined(out["seen"], LIMITS)
        assert_refuses_everything(out["result"])
    forkers_before = {out["seen"]["status"]["PPid"] for out in before}
    assert {out["seen"]["status"]["PPid"] for out in after}.isdisjoint(forkers_before)


def test_the_children_of_zygotes_rotated_after_their_quota_are_confined(tmp_path: Path) -> None:
    """It is an error if a pass runs in a less confined worker after the zygote was rotated out (its fork quota)."""

    async def across_rotations() -> list[dict[str, Any]]:
        probe = ProbeZygote(tmp_path, LIMITS, warm=1)
        probe.executor._pool.launcher.max_children = 3  # type: ignore[attr-defined]  # ZYGOTE_MAX_CHILDREN, smaller
        try:
            return [await probe.probe() for _ in range(10)]
        finally:
            await probe.aclose()

    outs = run(across_rotations())
    for out in outs:
        assert out["error"] is None, out["error"]
        assert_confined(out["seen"], LIMITS)
        assert_refuses_everything(out["result"])
    assert len({out["seen"]["status"]["PPid"] for out in outs}) >= 3  # forked by at least three zygotes


def test_without_the_zygotes_layer_a_child_still_refuses_every_change_of_identity(tmp_path: Path) -> None:
    """It is an error if a child whose zygote has no seccomp layer of its own may call setuid, setgid or setgroups.

    zygote.py promises each child a filter with no fork, no rlimits, no user switch and no
    namespaces; when the zygote's layer is refused, the child installs the whole policy instead.
    """

    async def one() -> dict[str, Any]:
        probe = ProbeZygote(tmp_path, LIMITS, faults=["zygote-layer-refused"])
        try:
            return await probe.probe()
        finally:
            await probe.aclose()

    out = run(one())
    assert out["error"] is None, out["error"]
    assert "zygote seccomp: prctl() failed: Invalid argument" in out["report"]["problems"]
    assert out["seen"]["status"]["Seccomp_filters"] == "1"  # the child's whole policy, alone
    assert out["report"]["seccomp"] is True
    assert_refuses_everything(out["result"])


def test_passes_at_once_each_get_their_own_confined_child(tmp_path: Path) -> None:
    """It is an error if passes running at the same time share a worker or any of them runs less confined."""

    async def at_once() -> list[dict[str, Any]]:
        probe = ProbeZygote(tmp_path, LIMITS, warm=2)
        try:
            await probe.executor.warm_up()
            outs: list[dict[str, Any]] = []
            for _ in range(2):
                outs += await asyncio.gather(*(probe.probe() for _ in range(4)))
            return outs
        finally:
            await probe.aclose()

    outs = run(at_once())
    for out in outs:
        assert out["error"] is None, out["error"]
        assert_confined(out["seen"], LIMITS)
        assert_refuses_everything(out["result"])
    assert len({out["seen"]["pid"] for out in outs}) == 8
