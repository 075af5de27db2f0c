"""A console's ``notes?`` (inspect) answers in the magics' words, as %describe does (review 14x M3)."""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_inspecting_a_connector_points_at_the_magics(shared_kernel: Kernel) -> None:
    reply = shared_kernel.shell_reply(shared_kernel.kc.inspect("notes", 3))["content"]
    text = reply["data"]["text/plain"]
    assert "class notes" in text
    assert "%describe notes.<method>" in text and "codemode.describe(" not in text, text
