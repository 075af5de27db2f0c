"""s15k (review 15x L11): 'name?' of a carried name, the codemode API or a pre-imported module is
answered in the pager (the cell does not fail); connectors and methods still get their description."""

from __future__ import annotations

import json

from tests.kernel.kernel_harness import Kernel


def paged(kernel: Kernel, code: str) -> str:
    run = kernel.execute(code)
    assert run.status == "ok", run.error
    return json.dumps(run.reply["content"].get("payload", []))


def test_each_kind_of_name_is_answered(shared_kernel: Kernel) -> None:
    shared_kernel.ok("s15k_conf = {'a': 1}")
    assert "dict, carried from an earlier cell" in paged(shared_kernel, "s15k_conf?")
    assert "codemode.search" in paged(shared_kernel, "codemode?")
    assert "codemode.describe(target" in paged(shared_kernel, "codemode.describe?")
    assert "Python's own" in paged(shared_kernel, "json.dumps?")
    assert "add_note" in paged(shared_kernel, "notes.add_note?")
