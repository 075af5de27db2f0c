"""Approval cards in a real kernel: clicks sent as the buttons' comm messages.

Each test asserts what the cell shows (the card's widget state, mirrored from IOPub) and,
with the demo connector's call counter, that an approved action ran exactly once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, calls, notes

PAUSING = "print('before')\nfirst = notes.add_note(text={text!r})\nprint('after', first['text'])\nfirst['text']\n"


def pause(kernel: Kernel, text: str) -> str:
    run = kernel.ok(PAUSING.format(text=text))
    assert run.stdout == "before\n"
    assert run.result is None
    card = run.card
    assert card is not None, "a paused cell shows an approval card"
    kernel.wait_until(lambda: bool(kernel.widgets.buttons(card, "Approve")), what="the Approve button")
    return card


def test_a_paused_cell_shows_one_card_per_pending_action(kernel: Kernel) -> None:
    run = kernel.ok("notes.add_note(text='card')")
    card = run.card
    assert card is not None
    w = kernel.widgets
    assert "Waiting for approval" in w.header(card)
    text = w.texts(card)
    assert "notes.add_note" in text and '"text": "card"' in text
    assert len(w.buttons(card, "Approve")) == 1 and len(w.buttons(card, "Reject")) == 1
    assert w.buttons(card, "Approve all") == []  # only one action pending
    summary = next(c for c in run.of("display_data"))["data"]["text/plain"]
    assert "notes.add_note(text='card')" in summary and "%approve" in summary


def test_approve_replays_and_shows_what_follows_in_the_same_cell(kernel: Kernel, notebook_dir: Path) -> None:
    card = pause(kernel, "one")
    assert calls(notebook_dir, "add_note") == 0
    kernel.click(kernel.widgets.buttons(card, "Approve")[0])
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the card to complete")
    text = kernel.widgets.texts(card)
    assert "after one\n" in text and "'one'" in text
    assert "before" not in text, "output already shown by the first pass is not repeated"
    assert calls(notebook_dir, "add_note") == 1
    assert notes(notebook_dir) == ["one"]
    assert kernel.widgets.buttons(card, "Roll back"), "an applied revertable action can be rolled back"
    assert kernel.widgets.buttons(card, "Save as snippet…")


def test_a_double_click_applies_the_action_once(kernel: Kernel, notebook_dir: Path) -> None:
    card = pause(kernel, "twice")
    button = kernel.widgets.buttons(card, "Approve")[0]
    kernel.click(button)
    kernel.click(button)
    kernel.click(button)
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the card to complete")
    kernel.drain(0.5)
    assert calls(notebook_dir, "add_note") == 1
    assert notes(notebook_dir) == ["twice"]


def test_a_stale_card_refuses_and_applies_nothing(kernel: Kernel, notebook_dir: Path) -> None:
    """Another host approves first (same store, another process); the card's click is refused."""
    card = pause(kernel, "stale")
    from codemode_kernel import CodemodeRuntime, InProcessExecutor
    from codemode_kernel.config import load_config

    config = load_config(notebook_dir)

    async def approve_elsewhere() -> None:
        journal = notebook_dir / ".codemode" / "analysis.codemode.db"
        other = CodemodeRuntime(config.connectors, store=f"sqlite:///{journal}", executor=InProcessExecutor())
        try:
            pending = await other.pending()
            out = await other.approve(pending[0].execution_id)
            assert out["status"] == "completed"
        finally:
            await other.aclose()

    asyncio.run(approve_elsewhere())
    assert calls(notebook_dir, "add_note") == 1
    kernel.click(kernel.widgets.buttons(card, "Approve")[0])
    kernel.wait_until(lambda: "Already approved" in kernel.widgets.texts(card), what="the late answer")
    assert "ran on after its approval and completed" in kernel.widgets.texts(card)
    assert calls(notebook_dir, "add_note") == 1
    assert all(kernel.widgets.models[b]["disabled"] for b in kernel.widgets.find(card, "ButtonModel",
                                                                                  description="Approve"))


def test_reject_ends_the_execution_and_offers_rollback_of_earlier_actions(kernel: Kernel,
                                                                         notebook_dir: Path) -> None:
    run = kernel.ok("a = notes.add_note(text='kept')\nb = notes.add_note(text='refused')\n[a, b]")
    card = run.card
    assert card is not None
    kernel.wait_until(lambda: bool(kernel.widgets.buttons(card, "Approve")), what="first approval")
    kernel.click(kernel.widgets.buttons(card, "Approve")[0])
    kernel.wait_until(lambda: '"refused"' in kernel.widgets.texts(card) and
                      bool(kernel.widgets.buttons(card, "Reject")), what="the second approval")
    kernel.click(kernel.widgets.buttons(card, "Reject")[0])
    kernel.wait_until(lambda: "Roll back reverts them" in kernel.widgets.texts(card), what="the rejection")
    assert "Rejected" in kernel.widgets.header(card)
    assert notes(notebook_dir) == ["kept"]
    rollback = kernel.widgets.buttons(card, "Roll back")
    assert rollback
    kernel.click(rollback[0])
    kernel.wait_until(lambda: "Roll back this execution?" in kernel.widgets.texts(card), what="the confirmation")
    assert "newest first (1 call)" in kernel.widgets.texts(card)
    assert calls(notebook_dir, "revert_add_note") == 0, "Roll back asks before it reverts anything"
    kernel.click(kernel.widgets.buttons(card, "Roll back now")[0])
    kernel.wait_until(lambda: "Rolled back 1 action" in kernel.widgets.texts(card), what="the rollback")
    assert notes(notebook_dir) == []
    assert calls(notebook_dir, "add_note") == 1 and calls(notebook_dir, "revert_add_note") == 1
    kernel.click(rollback[0])  # stale click on a disabled button: nothing is reverted twice
    kernel.drain(0.5)
    assert calls(notebook_dir, "revert_add_note") == 1


def test_save_as_snippet_from_the_card(kernel: Kernel, notebook_dir: Path) -> None:
    card = pause(kernel, "snip")
    kernel.click(kernel.widgets.buttons(card, "Approve")[0])
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="completion")
    w = kernel.widgets
    kernel.click(w.buttons(card, "Save as snippet…")[0])
    name_box = w.find(card, "TextModel", description="Name")[0]
    desc_box = w.find(card, "TextModel", description="Description")[0]
    kernel.set_value(name_box, "add_one_note")
    kernel.set_value(desc_box, "Adds a note")
    kernel.wait_until(lambda: bool(w.buttons(card, "Save")), what="the snippet form")
    kernel.click(w.buttons(card, "Save")[0])
    kernel.wait_until(lambda: "Saved as snippet 'add_one_note'" in w.texts(card), what="the snippet")
    listing = kernel.ok("%snippets")
    assert "add_one_note" in listing.of("display_data")[0]["data"]["text/plain"]
    assert "Adds a note" in listing.of("display_data")[0]["data"]["text/plain"]


def test_approve_last_in_another_cell_also_updates_the_card(kernel: Kernel, notebook_dir: Path) -> None:
    card = pause(kernel, "magic")
    run = kernel.ok("%approve last")
    assert run.stdout == "after magic\n"
    assert run.result == {"text/plain": "'magic'"}
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the card")
    assert calls(notebook_dir, "add_note") == 1
    again = kernel.ok("%approve last")
    assert again.error is None and again.stdout.startswith("Nothing waits for approval. Already approved: ")
    assert calls(notebook_dir, "add_note") == 1


def test_late_approvals_and_rejections_answer_with_the_actual_state(kernel: Kernel, notebook_dir: Path) -> None:
    """A click approved it; every later decision, typed or clicked, says so kindly and changes nothing."""
    card = pause(kernel, "late")
    kernel.click(kernel.widgets.buttons(card, "Approve")[0])
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the card to complete")
    eid = kernel.ok("%executions 1").of("display_data")[0]["data"]["text/plain"].splitlines()[2].split()[0]
    answers = {line: kernel.ok(line) for line in
               ("%approve last", f"%approve {eid}", f"%approve {eid[:8]}", "%reject last", f"%reject {eid}")}
    for line, run in answers.items():
        assert run.error is None and run.stderr == "", line
    assert answers["%approve last"].stdout == (
        f"Nothing waits for approval. Already approved: execution {eid} ran on after its approval and completed.\n")
    assert answers[f"%approve {eid}"].stdout == answers[f"%approve {eid[:8]}"].stdout == (
        f"Already approved: execution {eid} ran on after its approval and completed.\n")
    assert answers[f"%reject {eid}"].stdout == (
        f"Too late to reject: execution {eid} was already approved and completed. "
        f"%rollback {eid} reverts what it applied.\n")
    assert answers["%reject last"].stdout.startswith("Nothing waits for approval. Too late to reject: ")
    assert calls(notebook_dir, "add_note") == 1 and notes(notebook_dir) == ["late"]
    rejected = kernel.ok("notes.add_note(text='no')")
    kernel.ok("%reject last")
    assert rejected.card is not None
    again = kernel.ok("%approve last")
    assert "was rejected (or expired), so nothing is left to approve" in again.stdout
    assert kernel.ok("%reject last").stdout == again.stdout.replace("to approve", "to reject")
    never = kernel.ok("notes.list_notes()")
    assert never.error is None
    assert kernel.ok("%approve last").stdout.startswith("Nothing waits for approval. Already decided: ")
    plain = kernel.ok("%executions 1").of("display_data")[0]["data"]["text/plain"].splitlines()[2].split()[0]
    assert kernel.ok(f"%approve {plain}").stdout == (
        f"Nothing to approve: execution {plain} never waited for approval; it is completed.\n")
    assert kernel.execute("%approve 01NOSUCHEXECUTION0000000000").status == "error", "an unknown id is an error"
    assert calls(notebook_dir, "add_note") == 1


def test_a_replayed_pass_sees_the_names_it_started_with(kernel: Kernel, notebook_dir: Path) -> None:
    kernel.ok("k = 2")
    paused = kernel.ok("note = notes.add_note(text=str(k))\nk2 = k * 10")
    assert paused.card is not None
    kernel.ok("k = 3")
    kernel.ok("%approve last")
    assert notes(notebook_dir) == ["2"]
    assert kernel.ok("k").result == {"text/plain": "3"}, "a late approval does not put back old values"
    assert kernel.ok("k2").result == {"text/plain": "20"}


def test_divergence_on_replay_is_a_named_error_in_the_card(kernel: Kernel, notebook_dir: Path) -> None:
    run = kernel.ok("notes.add_note(text=str(random.random()))")
    card = run.card
    assert card is not None
    kernel.wait_until(lambda: bool(kernel.widgets.buttons(card, "Approve")), what="the card")
    kernel.click(kernel.widgets.buttons(card, "Approve")[0])
    kernel.wait_until(lambda: "Failed" in kernel.widgets.header(card), what="the failure")
    text = kernel.widgets.texts(card)
    assert "ReplayDivergence" in text and "codemode.step" in text
    assert calls(notebook_dir, "add_note") == 0


def test_the_panel_approves_through_the_same_path_as_the_button(kernel: Kernel, notebook_dir: Path) -> None:
    card = pause(kernel, "panel")
    eid = kernel.ok("%pending").of("display_data")[0]["data"]["text/plain"].split("\n")[2].split()[0]
    comm = kernel.open_comm("codemode.panel")
    kernel.comm_msg(comm, {"type": "approve", "request_id": "r1", "execution_id": eid, "seq": 0})
    kernel.wait_until(lambda: "Completed" in kernel.widgets.header(card), what="the card to complete")
    assert "after panel" in kernel.widgets.texts(card)
    assert calls(notebook_dir, "add_note") == 1


def test_restart_loses_nothing_a_paused_cell_is_approved_after_it(kernel: Kernel, notebook_dir: Path) -> None:
    pause(kernel, "durable")
    kernel.restart()
    run = kernel.ok("%approve last")
    assert run.stdout == "after durable\n"
    assert run.result == {"text/plain": "'durable'"}
    assert calls(notebook_dir, "add_note") == 1
    assert run.card is not None, "the approving cell offers Roll back and Save as snippet"


def test_rerunning_a_paused_cell_says_the_old_run_still_waits(kernel: Kernel) -> None:
    first = kernel.ok("notes.add_note(text='again')", cell_id="cell-7")
    assert first.stderr == ""
    second = kernel.ok("notes.add_note(text='again')", cell_id="cell-7")
    assert "previous run of this cell" in second.stderr and "%reject" in second.stderr
    kernel.ok("%reject last")
    other = kernel.ok("1", cell_id="cell-8")
    assert other.stderr == ""
