"""A zygote's child reports the truth: the encoded template never speaks for a child whose step failed.

A review of issue 12 (commit 4d6d611): Z' encodes once the 'ready' line of a child whose own
steps (rlimits, user switch, seccomp layer) all succeed. Here the kernel really refuses a step
of the child (a capability taken from the zygote's bounding set, a hard limit below what the
child asks, a seccomp program the kernel rejects), and the report the host shows must say so,
as the report built step by step does. The host also reads the child's /proc entries: the
report must match what the kernel says.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from codemode_kernel.executor.launcher import zygote_supported
from tests.security.review_confinement_support import ProbeZygote, run

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")

needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                reason="taking capabilities from the zygote needs root and setpriv")

LIMITS = Limits(max_memory_bytes=512 << 20, max_cpu_seconds=30)
#: What is the pass's worker's own, not its confinement: who it is and where it runs.
PER_WORKER = ("pid", "priority")


def probe_once(folder: Path, limits: Limits = LIMITS, **options: Any) -> dict[str, Any]:
    async def one() -> dict[str, Any]:
        probe = ProbeZygote(folder, limits, **options)
        try:
            return await probe.probe()
        finally:
            await probe.aclose()

    out: dict[str, Any] = run(one())
    return out


def confinement(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key not in PER_WORKER}


def test_the_encoded_report_is_the_one_built_step_by_step(tmp_path: Path) -> None:
    """It is an error if the report a child sends from Z's template differs from the one it would build itself."""
    template = probe_once(tmp_path / "template")
    built = probe_once(tmp_path / "built", faults=["built-report"])
    assert template["error"] is None and built["error"] is None, (template["error"], built["error"])
    assert confinement(template["report"]) == confinement(built["report"])
    assert template["report"]["pid"] == template["seen"]["pid"]


def test_a_forked_worker_reports_the_confinement_of_a_spawned_one(tmp_path: Path) -> None:
    """It is an error if a zygote's child reports its rlimits, user or seccomp filter differently from a spawned worker.

    A spawned worker builds its report in ``confinement.confine``, step by step, with none of
    the zygote's preparations; only the PID namespace (and the zygote's note) differ.
    """
    forked = probe_once(tmp_path)

    async def spawned_report() -> dict[str, Any] | None:
        executor = SubprocessExecutor(LIMITS, zygote=False, warm=0)
        try:
            return await executor.warm_up()
        finally:
            await executor.aclose()

    spawned = run(spawned_report())
    assert spawned is not None and forked["error"] is None
    differ = ("pids", "pid_namespace", "zygote")
    assert {k: v for k, v in confinement(forked["report"]).items() if k not in differ} == {
        k: v for k, v in confinement(spawned).items() if k not in differ}


@needs_root
def test_a_child_whose_cpu_limit_the_kernel_refuses_reports_it(tmp_path: Path) -> None:
    """It is an error if a child that could not set RLIMIT_CPU reports 'CPU 30 s' among its limits.

    The zygote's hard CPU limit is 30 s and it has no CAP_SYS_RESOURCE: the child's (30, 31)
    raises the hard limit, which the kernel refuses.
    """
    out = probe_once(tmp_path, faults=["cpu-hard=30"], drop_caps=["sys_resource"])
    assert out["error"] is None, out["error"]
    report = out["report"]
    assert out["seen"]["limits"]["Max cpu time"] == ["30", "30"]  # what the kernel says: not (30, 31)
    assert "CPU 30 s" not in report["rlimits"]
    assert [p for p in report["problems"] if p.startswith("RLIMIT_CPU: ")], report["problems"]
    assert "address space 512 MiB" in report["rlimits"]  # the others took
    assert report["seccomp"] is True  # a failed limit is not reported as a failed filter


@needs_root
def test_a_child_that_cannot_drop_root_says_it_is_root(tmp_path: Path) -> None:
    """It is an error if a child that is still root after its user switch failed reports 'nobody'."""
    out = probe_once(tmp_path, drop_caps=["setuid", "setgid"])
    assert out["error"] is None, out["error"]
    report = out["report"]
    assert out["seen"]["status"]["Uid"].split()[0] == "0"  # what the kernel says
    assert report["user"].startswith("root: could not switch to nobody: "), report["user"]
    assert report["user"] in report["problems"]
    assert "nobody (65534)" not in str(report)


def test_a_child_whose_seccomp_layer_the_kernel_refuses_reports_it(tmp_path: Path) -> None:
    """It is an error if a child whose own seccomp layer was refused reports it as installed."""
    out = probe_once(tmp_path, faults=["bad-layer"])
    assert out["error"] is None, out["error"]
    report = out["report"]
    assert out["seen"]["status"]["Seccomp_filters"] == "1"  # the zygote's layer only: the kernel refused the child's
    assert report["seccomp"] is False
    assert report["syscalls"].startswith("not filtered: prctl() failed: Invalid argument"), report["syscalls"]
    assert "seccomp: prctl() failed: Invalid argument" in report["problems"]


def test_with_require_isolation_a_child_without_its_layer_runs_nothing(tmp_path: Path) -> None:
    """It is an error if, with require_isolation, a child whose seccomp layer was refused runs the pass."""
    out = probe_once(tmp_path, Limits(max_memory_bytes=512 << 20, require_isolation=True), faults=["bad-layer"])
    assert out["error"] is not None and "Limits.require_isolation is set" in out["error"].message, out["error"]
    assert "system calls cannot be filtered" in out["error"].message
    assert out["seen"] is None  # the probe never ran: the host was never asked to look
    assert out["result"] is None


def test_a_limit_that_reads_like_the_templates_stand_ins_is_reported_as_set(tmp_path: Path) -> None:
    """It is an error if a limit equal to a stand-in number of the template is reported as a pid or a priority."""
    for size in (7_340_021_111, 7_340_022_222):  # Zygote._ready_line's stand-ins for the pid and the priority
        out = probe_once(tmp_path / str(size), Limits(max_memory_bytes=512 << 20, max_file_size=size))
        assert out["error"] is None, out["error"]
        report = out["report"]
        assert f"file size {size} bytes" in report["rlimits"], report["rlimits"]
        # The child runs at the host's priority (pytest under `nice` gives it nice 10).
        assert report["pid"] == out["seen"]["pid"]
        assert report["priority"] == f"nice {os.getpriority(os.PRIO_PROCESS, 0)}"
        assert out["seen"]["limits"]["Max file size"] == [str(size)] * 2


@needs_root
@pytest.mark.parametrize(("faults", "drop_caps"), [([], ["setuid", "setgid"]), (["cpu-hard=30"], ["sys_resource"])],
                         ids=["still-root", "no-cpu-limit"])
def test_with_require_isolation_a_child_whose_user_switch_or_limit_failed_runs_nothing(
        tmp_path: Path, faults: list[str], drop_caps: list[str]) -> None:
    """It is an error if, with require_isolation, a child whose user switch or rlimit was refused runs the pass."""
    limits = Limits(max_memory_bytes=512 << 20, max_cpu_seconds=30, require_isolation=True)
    out = probe_once(tmp_path, limits, faults=faults, drop_caps=drop_caps)
    assert out["report"]["problems"], out["report"]  # the step did fail, and the report says so
    assert out["seen"] is None, "the probe ran in a worker that was not fully confined"
    assert out["error"] is not None and "Limits.require_isolation is set" in out["error"].message
