"""What Z' prepares once for all its children grants a pass nothing another pass left behind (issue 12 review).

Commit 4d6d611 made more of a child's work once in Z': the encoded 'ready' template, the
``worker.ServePlan`` (limits, the out-of-memory hint and ``done`` line), the rlimit plan and the
seccomp program with its prepared prctl() calls. A pass that escaped the language layer can
reach all of it in its own process (the probes find Z's ``Zygote`` object in their frames)
and overwrite it, the BPF program's memory included. Each child is a fresh fork of Z', so none
of that may reach a later child: its copy must be byte for byte what the first child had, it
must be confined and report as the first one did, and ``random`` must be re-seeded in each.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.executor.isolated import Limits
from codemode_kernel.executor.launcher import zygote_supported
from tests.security.review_confinement_support import ProbeZygote, assert_confined, assert_refuses_everything, run

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="the zygote needs Linux with pidfds")

LIMITS = Limits(max_memory_bytes=512 << 20, max_open_files=24, max_cpu_seconds=40)


def passes(folder: Path, plan: list[bool], **options: Any) -> list[dict[str, Any]]:
    """One pass per entry of ``plan`` (True: that pass overwrites what Z' prepared, in its own copy)."""

    async def go() -> list[dict[str, Any]]:
        probe = ProbeZygote(folder, LIMITS, **options)
        try:
            return [await probe.probe(mutate=mutate) for mutate in plan]
        finally:
            await probe.aclose()

    outs: list[dict[str, Any]] = run(go())
    for out in outs:
        assert out["error"] is None, out["error"]
        assert "probe-failed" not in out["result"], out["result"]["probe-failed"]
    return outs


def without_pid(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key != "pid"}


@pytest.mark.parametrize("warm", [0, 1])
def test_a_pass_that_overwrites_the_zygotes_preparations_leaves_nothing_for_the_next(tmp_path: Path,
                                                                                     warm: int) -> None:
    """It is an error if a later child sees, reports or is confined by anything an earlier pass overwrote.

    warm=0: the next child is forked after the overwriting pass has run; warm=1: one is forked ahead.
    """
    first, overwriting, *later = passes(tmp_path, [False, True, False, False, True, False], warm=warm)
    assert first["result"]["found_zygote"], "the probes must reach the preparations, or this proves nothing"
    assert overwriting["result"]["mutated"] != first["result"]["prepared"]  # the overwrite took, in its copy
    for out in later:
        assert out["result"]["prepared"] == first["result"]["prepared"]
        assert without_pid(out["report"]) == without_pid(first["report"])
        assert "left by a pass" not in str(out["report"])
        assert_confined(out["seen"], LIMITS)
        assert_refuses_everything(out["result"])


def test_a_pass_that_seeds_random_leaves_its_state_for_no_one(tmp_path: Path) -> None:
    """It is an error if the child after a pass that called random.seed(1234) starts from that state."""
    seeded = random.Random(1234)
    seeded.getrandbits(64)  # what a probe draws before it takes the state's digest
    digest_if_inherited = hashlib.sha256(repr(seeded.getstate()).encode()).hexdigest()
    _first, _seeding, after = passes(tmp_path, [False, True, False])
    assert after["result"]["random"][3] != digest_if_inherited


@pytest.mark.parametrize(("faults", "warm"), [([], 0), ([], 2), (["built-report"], 0)],
                         ids=["template", "template-forked-ahead", "built-report"])
def test_random_uuid_and_urandom_differ_in_every_child(tmp_path: Path, faults: list[str], warm: int) -> None:
    """It is an error if two children of one zygote draw the same random number, UUID, urandom bytes or state."""
    outs = passes(tmp_path, [False] * 8, faults=faults, warm=warm)
    for column in zip(*(out["result"]["random"] for out in outs), strict=True):
        assert len(set(column)) == len(outs), column
