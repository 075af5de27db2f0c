"""A stale Approve approves nothing, in real kernel processes (s11a).

A cell pauses on call #0 (note 'A'), then on call #1 (note 'B'). One front end approves #0;
another, which still shows #0, clicks Approve for #0: the kernel refuses it, call #1 does not
run (the demo connector's counter, read from outside the kernel, proves it), and that front
end is told what happened and shown call #1 to decide on. Front ends: two panel comms of one
kernel, and the card of one kernel with the panel of a second kernel on the same notebook.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.kernel import panel_messages as pm
from tests.kernel.kernel_harness import Kernel, calls, notes, write_notebook_dir

TWO = "a = notes.add_note(text='A')\nb = notes.add_note(text='B')\n[a['text'], b['text']]\n"


class Panel:
    """The browser side of one panel comm."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.comm_id = kernel.open_comm(pm.TARGET_NAME)
        self.received: list[dict[str, Any]] = []
        self._next = 0
        inner = kernel.widgets.feed

        def feed(msg: dict[str, Any]) -> None:
            inner(msg)
            if msg["msg_type"] == "comm_msg" and msg["content"].get("comm_id") == self.comm_id:
                self.received.append(msg["content"]["data"])

        kernel.widgets.feed = feed  # type: ignore[method-assign]
        kernel.wait_until(lambda: any(m.get("type") == "hello" for m in self.received), what="hello")

    def ask(self, request_type: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        rid = f"{self.comm_id[:6]}-{self._next}"
        self.kernel.comm_msg(self.comm_id, {"type": request_type, "request_id": rid, **params})
        self.kernel.wait_until(lambda: any(m.get("request_id") == rid for m in self.received), timeout=60,
                               what=f"the answer to {request_type}")
        (answer,) = [m for m in self.received if m.get("request_id") == rid]
        return answer


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_notebook_dir(tmp_path / "nb")


@pytest.fixture
def kernel(folder: Path) -> Iterator[Kernel]:
    kernel = Kernel(folder)
    yield kernel
    kernel.shutdown()


def paused_on_first(kernel: Kernel, panel: Panel) -> tuple[str, str]:
    run = kernel.ok(TWO)
    card = run.card
    assert card is not None
    kernel.wait_until(lambda: bool(kernel.widgets.buttons(card, "Approve")), what="the Approve button")
    snap = panel.ask("snapshot")["data"]
    (pending,) = snap["pending"]
    assert (pending["seq"], pending["path"]) == (0, "notes.add_note")
    return pending["execution_id"], card


def test_a_second_panels_stale_approve_is_refused_and_the_next_call_does_not_run(kernel: Kernel,
                                                                                 folder: Path) -> None:
    first, second = Panel(kernel), Panel(kernel)
    eid, card = paused_on_first(kernel, first)
    assert second.ask("snapshot")["data"]["pending"][0]["seq"] == 0  # both panels show call #0

    approved = first.ask("approve", execution_id=eid, seq=0)
    assert approved["type"] == "reply" and approved["data"]["status"] == "paused"
    assert calls(folder, "add_note") == 1 and notes(folder) == ["A"]

    stale = second.ask("approve", execution_id=eid, seq=0)  # the click second's stale row sends
    assert stale["type"] == "error" and stale["error_type"] == "InvalidStateError"
    assert stale["error"] == ("Call #0 (notes.add_note) is not pending any more: it was already decided, so "
                              "nothing was approved. The execution is now paused on call #1 (notes.add_note).")
    kernel.drain(0.5)
    assert calls(folder, "add_note") == 1 and notes(folder) == ["A"], "call #1 did not run"
    assert [p["seq"] for p in second.ask("snapshot")["data"]["pending"]] == [1]
    assert "call #1" in kernel.widgets.texts(card) and kernel.widgets.buttons(card, "Approve")

    done = second.ask("approve", execution_id=eid, seq=1)  # decided on what it now shows
    assert done["type"] == "reply" and done["data"]["status"] == "completed"
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the card to complete")
    assert calls(folder, "add_note") == 2 and notes(folder) == ["A", "B"]


def test_a_stale_card_click_in_one_kernel_does_not_approve_what_another_kernel_paused_on(
        kernel: Kernel, folder: Path) -> None:
    panel = Panel(kernel)
    eid, card = paused_on_first(kernel, panel)
    approve_a = kernel.widgets.buttons(card, "Approve")[0]
    other = Kernel(folder)  # a second tab's kernel on the same notebook journal
    try:
        moved = Panel(other).ask("approve", execution_id=eid, seq=0)
        assert moved["type"] == "reply" and moved["data"]["status"] == "paused"
    finally:
        other.shutdown()
    assert calls(folder, "add_note") == 1

    kernel.click(approve_a)  # this card still shows call #0
    kernel.wait_until(lambda: "already decided" in kernel.widgets.texts(card), what="the refusal")
    kernel.drain(0.5)
    assert calls(folder, "add_note") == 1 and notes(folder) == ["A"], "call #1 did not run"
    text = kernel.widgets.texts(card)
    assert ("Call #0 (notes.add_note) is not pending any more: it was already decided, so nothing was approved. "
            "The execution is now paused on call #1 (notes.add_note). Review it below.") in text
    assert "call #1" in text and '"text": "B"' in text
    (approve_b,) = kernel.widgets.buttons(card, "Approve")
    assert approve_b != approve_a
    kernel.wait_until(lambda: not kernel.widgets.models[approve_b]["disabled"], what="the new call's Approve, armed")

    kernel.click(approve_b)
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the card to complete")
    assert calls(folder, "add_note") == 2 and notes(folder) == ["A", "B"]
