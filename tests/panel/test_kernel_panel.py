"""The panel comm in a real Code Mode kernel process, driven over ZMQ like JupyterLab does.

The demo connector counts every executed call in a SQLite file, so exactly-once is proven
from outside the kernel process.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.kernel import panel_messages as pm
from tests.kernel.kernel_harness import Kernel, calls, notes, write_notebook_dir

PAUSING = "seen = notes.list_notes()\nmade = notes.add_note(text={text!r})\n[len(seen), made['text']]\n"


class PanelClient:
    """The browser side of the comm: sends requests, collects what the kernel sends back."""

    def __init__(self, kernel: Kernel, subshell_id: str | None = None) -> None:
        self.kernel = kernel
        self.subshell_id = subshell_id
        self.received: list[dict[str, Any]] = []
        if subshell_id is None:
            self.comm_id = kernel.open_comm(pm.TARGET_NAME)
        else:
            self.comm_id = uuid.uuid4().hex
            msg = kernel.kc.session.msg("comm_open", {"comm_id": self.comm_id, "target_name": pm.TARGET_NAME,
                                                      "data": {}})
            msg["header"]["subshell_id"] = subshell_id
            kernel.kc.shell_channel.send(msg)
        self._next = 0
        self.closed = False
        kernel.widgets.feed = self._feed(kernel.widgets.feed)  # type: ignore[method-assign]

    def _feed(self, inner: Any) -> Any:
        def feed(msg: dict[str, Any]) -> None:
            inner(msg)
            content = msg["content"]
            if content.get("comm_id") == self.comm_id:
                if msg["msg_type"] == "comm_msg":
                    self.received.append(content["data"])
                elif msg["msg_type"] == "comm_close":
                    self.closed = True
        return feed

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.received if m.get("type") == kind]

    def send(self, data: Any) -> None:
        msg = self.kernel.kc.session.msg("comm_msg", {"comm_id": self.comm_id, "data": data})
        if self.subshell_id is not None:
            msg["header"]["subshell_id"] = self.subshell_id
        self.kernel.kc.shell_channel.send(msg)

    def ask(self, request_type: str, timeout: float = 60, **params: Any) -> dict[str, Any]:
        self._next += 1
        rid = f"k{self._next}"
        self.send({"type": request_type, "request_id": rid, **params})
        self.kernel.wait_until(lambda: any(m.get("request_id") == rid for m in self.received),
                               timeout=timeout, what=f"the answer to {request_type}")
        found = [m for m in self.received if m.get("request_id") == rid]
        assert len(found) == 1
        return found[0]

    def data(self, request_type: str, **params: Any) -> Any:
        answer = self.ask(request_type, **params)
        assert answer["type"] == "reply", answer
        return answer["data"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_notebook_dir(tmp_path_factory.mktemp("panel") / "nb")


@pytest.fixture(scope="module")
def kernel(folder: Path) -> Iterator[Kernel]:
    kernel = Kernel(folder)
    yield kernel
    kernel.shutdown()


@pytest.fixture
def panel(kernel: Kernel) -> PanelClient:
    client = PanelClient(kernel)
    kernel.wait_until(lambda: bool(client.of_type("hello")), what="hello")
    return client


def pause(kernel: Kernel, text: str) -> str:
    run = kernel.ok(PAUSING.format(text=text))
    assert run.card is not None
    paused = [e for e in run.messages if e["msg_type"] == "display_data"]
    assert paused
    return run.card


def paused_id(panel: PanelClient) -> str:
    snap = panel.data("snapshot")
    newest = snap["executions"][0]
    assert newest["status"] == "paused"
    return str(newest["id"])


def test_hello_names_the_runtime_and_its_connectors(panel: PanelClient) -> None:
    (hello,) = panel.of_type("hello")
    assert hello == {"type": "hello", "protocol": pm.PROTOCOL_VERSION, "runtime": "default", "connectors": ["notes"]}


def test_a_cell_that_pauses_is_shown_and_approved_from_the_panel(kernel: Kernel, panel: PanelClient,
                                                                  folder: Path) -> None:
    """Run a cell that reads then pauses; approve from the panel; the cell's card completes."""
    before = calls(folder, "add_note")
    card = pause(kernel, "from the panel")
    kernel.wait_until(lambda: any(e["event"] == "execution_changed" for e in panel.of_type("event")),
                      what="an execution event")
    eid = paused_id(panel)
    snap = panel.data("snapshot")
    assert [p["path"] for p in snap["pending"] if p["execution_id"] == eid] == ["notes.add_note"]
    detail = panel.data("get_execution", execution_id=eid)
    assert [(e["path"], e["state"]) for e in detail["entries"]] == [("notes.list_notes", "applied"),
                                                                    ("notes.add_note", "pending")]

    (seq,) = [p["seq"] for p in snap["pending"] if p["execution_id"] == eid]
    reply = panel.data("approve", execution_id=eid, seq=seq)
    assert reply["status"] == "completed"
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the cell's card to complete")
    assert "from the panel" in kernel.widgets.texts(card)
    assert calls(folder, "add_note") == before + 1
    detail = panel.data("get_execution", execution_id=eid)
    assert [(e["state"], e["pass_number"]) for e in detail["entries"]] == [("applied", 1), ("applied", 2)]
    assert detail["passes"] == 2

    again = panel.data("approve", execution_id=eid, seq=seq)  # a second click, or a late one from another tab
    assert again["status"] == "completed"
    assert again["message"] == f"Already approved: execution {eid} ran on after its approval and completed."
    late = panel.data("reject", execution_id=eid, seq=seq)  # a Reject clicked in a stale view
    assert late["status"] == "completed"
    assert late["message"].startswith(f"Too late to reject: execution {eid} was already approved and completed.")
    assert calls(folder, "add_note") == before + 1


def test_roll_back_from_the_panel_reverts_once(kernel: Kernel, panel: PanelClient, folder: Path) -> None:
    pause(kernel, "to undo")
    eid = paused_id(panel)
    panel.data("approve", execution_id=eid, seq=1)
    assert "to undo" in notes(folder)
    reply = panel.data("rollback", execution_id=eid)
    assert reply == {"execution_id": eid, "status": "rolled_back", "reverted": 1}
    assert "to undo" not in notes(folder)
    assert calls(folder, "revert_add_note") == 1
    assert panel.data("get_execution", execution_id=eid)["status"] == "rolled_back"


def test_malformed_messages_get_errors_and_the_kernel_stays_usable(kernel: Kernel, panel: PanelClient) -> None:
    for data in (None, "x", {"type": "approve"}, {"type": "nope", "request_id": "z1"},
                 {"type": "get_execution", "request_id": "z2", "execution_id": 3}):
        before = len(panel.received)
        panel.send(data)
        kernel.wait_until(lambda b=before: len(panel.received) > b, what="an error reply")  # type: ignore[misc]
        assert panel.received[-1]["type"] == "error" and panel.received[-1]["error_type"] == "PanelRequestError"
    unknown = panel.ask("get_execution", execution_id="NO-SUCH-ID")
    assert unknown["error_type"] == "UnknownExecutionError"
    assert kernel.ok("1 + 1").result == {"text/plain": "2"}


def test_requests_over_a_subshell_are_served(kernel: Kernel) -> None:
    """JupyterLab sends comm messages over a kernel subshell when the kernel supports them."""
    msg = kernel.kc.session.msg("create_subshell_request", {})
    kernel.kc.control_channel.send(msg)
    deadline = time.monotonic() + 30
    while True:
        reply = kernel.kc.control_channel.get_msg(timeout=max(0.1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            break
    subshell_id = reply["content"]["subshell_id"]
    client = PanelClient(kernel, subshell_id=subshell_id)
    kernel.wait_until(lambda: bool(client.of_type("hello")), what="hello")
    snap = client.data("snapshot")
    assert snap["connectors"] == ["notes"]
    assert client.data("list_connectors")[0]["name"] == "notes"


def test_the_panel_reconnects_after_a_restart_and_sees_the_journal(folder: Path) -> None:
    """The journal is in SQLite beside the notebook: a restarted kernel serves the same executions."""
    other = write_notebook_dir(folder.parent / "restart")
    kernel = Kernel(other)
    try:
        kernel.ok("notes.list_notes()")
        first = PanelClient(kernel)
        kernel.wait_until(lambda: bool(first.of_type("hello")), what="hello")
        before = [e["id"] for e in first.data("snapshot")["executions"]]
        assert len(before) == 1
        kernel.restart()
        second = PanelClient(kernel)
        kernel.wait_until(lambda: bool(second.of_type("hello")), what="hello after restart")
        assert [e["id"] for e in second.data("snapshot")["executions"]] == before
    finally:
        kernel.shutdown()


def test_the_panel_is_answered_while_a_cell_runs(kernel: Kernel, panel: PanelClient) -> None:
    """Panel requests on the main shell are served while a long cell is still running."""
    msg_id = kernel.kc.execute("time.sleep(3)\nnotes.list_notes()\n'slept'")
    started = time.monotonic()
    kernel.wait_until(lambda: any(e["event"] == "execution_started" for e in panel.of_type("event")),
                      what="the cell to start")
    snap = panel.data("snapshot")
    answered = time.monotonic() - started
    assert snap["executions"][0]["status"] == "running" and snap["executions"][0]["first_line"] == "time.sleep(3)"
    assert answered < 2.5
    reply = kernel.shell_reply(msg_id)
    assert reply["content"]["status"] == "ok"
    assert panel.data("get_execution", execution_id=snap["executions"][0]["id"])["status"] == "completed"
