"""The approval card: the widget a cell shows for one execution (the one home of ipywidgets).

A card is passive: it shows state and turns clicks into calls of :class:`CardActions`,
which the session supplies. **Roll back asks first**, on the card as in the side panel (issue
16, item 7; the one rule: a *button* that reverts applied actions confirms, naming how many
calls it reverts; a typed ``%rollback`` is its own confirmation). Approve and Reject do not
ask: the card already shows the call and its arguments, and the button is the decision.

Every button disables itself (and its siblings) *before* the action runs, so a double click
sends one action; the session also refuses a second action on the same execution while one
is in flight, and the runtime's compare-and-set refuses a stale one. Each Approve and Reject
names the call its row shows (its ``seq``): the runtime applies it only if that call is still
the pending one, so a click can never approve a later call another tab moved the execution on
to (s11a); the card then says so and shows the call that waits now. What follows an
approval (more output, the result, the next approval) is appended to the card's ``Output``,
so it appears in the cell that paused.

Clicks arrive as comm messages on the kernel's event loop; state changes made here are
trait updates, which the frontend renders in place (a ``print`` in a click handler would
go nowhere visible).

An ``HTML`` widget's value becomes ``innerHTML`` in the browser, unsanitized, and the card
shows a hostile program's arguments and messages: every value goes through :func:`_show`,
which takes only :class:`~.markup.Html` (escaped by construction; issue 10, item 1).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as w

from codemode_kernel.bytes_text import json_with_bytes
from codemode_kernel.kernel.display import Bundle, json_text
from codemode_kernel.kernel.markup import Html, block, element, join, preformatted

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

# Font Awesome icons (JupyterLab loads them for ipywidgets buttons): Unicode symbols such
# as ⏸ are missing from many system fonts and render as boxes.
_STATUS = {
    "paused": ("fa-pause-circle", "Waiting for approval", "#b26a00"),
    "running": ("fa-spinner fa-spin", "Running", "#1a66c2"),
    "completed": ("fa-check-circle", "Completed", "#2e7d32"),
    "error": ("fa-exclamation-circle", "Failed", "#c62828"),
    "rejected": ("fa-ban", "Rejected", "#6d4c41"),
    "rolled_back": ("fa-undo", "Rolled back", "#6a1b9a"),
}
# Wrapped, never scrolled sideways: a value padded with spaces kept its tail out of view (review 13).
#: Seconds a freshly shown call's Approve, Reject and Approve all stay disabled. After an approval the
#: cell often pauses again within milliseconds, the next call's row where the last one was: the second
#: click of a double-click on Approve lands on a disabled button, not on a call nobody has read yet.
#: (The panel waits as long: labextension/src/executions.tsx, ARMING_DELAY_MS.)
ARMING_SECONDS = 0.6
ARMING_TIP = "This call just appeared: read it first"
_APPROVE_ALL_TIP = "Approve the actions listed above (each by its call number)"
_ARGS_STYLE = "margin:2px 0 6px 0;max-height:16em;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere"


def _show(widget: w.HTML, content: Html | None) -> None:
    """Set an HTML widget from escaped markup only (a plain ``str`` is refused by the type)."""
    widget.value = block(content).source if content is not None else ""


def _html(content: Html) -> w.HTML:
    widget = w.HTML()
    _show(widget, content)
    return widget


@dataclass(frozen=True)
class CardActions:
    """What the card's buttons do (the session's coroutines, scheduled as tasks).

    Every Approve names the call its row showed: ``approve_call(seq)`` for one row,
    ``approve_calls(rows)`` for "Approve all" (the rows listed when it was clicked, each with its
    seq), so a click can never approve a call the person did not see.
    """

    approve_call: Callable[[int], None]
    approve_calls: Callable[[list[dict[str, Any]]], None]
    reject: Callable[[int | None], None]
    rollback: Callable[[], None]
    save_snippet: Callable[[str, str], None]


class ExecutionCard:
    """Approval, follow-up output, roll back and save-as-snippet for one execution."""

    def __init__(self, execution_id: str, actions: CardActions) -> None:
        self.execution_id = execution_id
        self.actions = actions
        self.status = "running"
        self.locked = False
        self.header = w.HTML()
        self.history = w.HTML()
        self._history: list[Html] = []
        self.pending_box = w.VBox()
        self.approve_all = w.Button(description="Approve all", button_style="success", icon="check-double",
                                    tooltip=_APPROVE_ALL_TIP,
                                    layout=w.Layout(display="none", width="auto"))
        self.approve_all.on_click(lambda b: self._approve_all(b))
        self.output = w.Output()
        self.rollback_button = w.Button(description="Roll back", button_style="warning", icon="undo",
                                        tooltip="Revert the actions this execution applied, newest first",
                                        layout=w.Layout(width="auto"))
        self.rollback_button.on_click(lambda b: self._rollback(b))
        self.snippet_button = w.Button(description="Save as snippet…", icon="bookmark",
                                       tooltip="Save this cell's code as a snippet, re-runnable with codemode.run",
                                       layout=w.Layout(width="auto"))
        self.snippet_button.on_click(lambda _b: self._toggle_form())
        self.footer = w.HBox([self.rollback_button, self.snippet_button], layout=w.Layout(display="none"))
        self._revertible = 0
        self.confirm_text = w.HTML()
        self.confirm_yes = w.Button(description="Roll back now", button_style="warning", icon="undo",
                                    layout=w.Layout(width="auto"))
        self.confirm_yes.on_click(lambda b: self._confirm_rollback(b))
        self.confirm_no = w.Button(description="Cancel", layout=w.Layout(width="auto"))
        self.confirm_no.on_click(lambda _b: self._cancel_rollback())
        self.confirm = w.VBox([self.confirm_text, w.HBox([self.confirm_yes, self.confirm_no])],
                              layout=w.Layout(display="none"))
        self.snippet_name = w.Text(placeholder="snippet_name", description="Name")
        self.snippet_description = w.Text(placeholder="What it does", description="Description")
        self.snippet_save = w.Button(description="Save", button_style="primary", icon="save")
        self.snippet_save.on_click(lambda b: self._save(b))
        self.form = w.HBox([self.snippet_name, self.snippet_description, self.snippet_save],
                           layout=w.Layout(display="none"))
        self.message = w.HTML()
        self.root = w.VBox([self.header, self.history, self.pending_box, self.approve_all, self.output,
                            self.footer, self.confirm, self.form, self.message])
        self.root.add_class("codemode-card")
        self._action_buttons: list[w.Button] = []
        self._pending: list[dict[str, Any]] = []  # the rows shown now, as shown (Approve all takes these)
        self._shown = 0  # counts what the buttons showed: a late arming timer enables nothing newer
        self._set_header("running")

    # -- display ---------------------------------------------------------------------------

    def bundle(self, summary: str) -> Bundle:
        """A display bundle: the widget, with ``summary`` for frontends without widgets."""
        return {WIDGET_MIME: {"model_id": self.root.model_id, "version_major": 2, "version_minor": 0},
                "text/plain": summary}

    def _set_header(self, status: str, detail: str = "") -> None:
        self.status = status
        icon, label, color = _STATUS.get(status, ("fa-circle", status, "#555"))
        _show(self.header, element(
            "span",
            element("span", element("i", cls=f"fa {icon}"), " ", label, style=f"color:{color};font-weight:600"),
            element("span", " · execution ", element("code", self.execution_id), f" · {detail}" if detail else "",
                    style="color:#777")))

    def notice(self, text: str, level: str = "info") -> None:
        color = {"info": "#555", "error": "#c62828", "ok": "#2e7d32"}.get(level, "#555")
        _show(self.message, element("span", text, style=f"color:{color}") if text else None)

    # -- states ----------------------------------------------------------------------------

    def show_pending(self, pending: Sequence[Mapping[str, Any]]) -> None:
        """One row per pending action: connector.method, its arguments as JSON, the buttons.

        On the kernel's loop the buttons are made disabled, saying why (:data:`ARMING_TIP`), and
        enabled :data:`ARMING_SECONDS` later: every front end's first sight of them is disabled.
        """
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # not on the kernel's loop (a card built outside a session): no timer to arm it
            loop = None
        rows = []
        tips: list[tuple[w.Button, str]] = []

        def button(description: str, style: str, icon: str, tip: str) -> w.Button:
            made = w.Button(description=description, button_style=style, icon=icon, disabled=loop is not None,
                            tooltip=ARMING_TIP if loop is not None else tip)
            tips.append((made, tip))
            return made

        for p in pending:
            seq = p.get("seq")
            title = _html(element("span", element("b", element("code", f"{p.get('connector')}.{p.get('method')}")),
                                  " ", element("span", f"call #{seq}", style="color:#777")))
            approve = button("Approve", "success", "check", "Run this action, then continue the cell")
            reject = button("Reject", "danger", "times", "Do not run it; the execution ends as rejected")
            approve.on_click(lambda b, s=seq: self._approve(b, s if isinstance(s, int) else None))
            reject.on_click(lambda b, s=seq: self._reject(b, s if isinstance(s, int) else None))
            # Bytes as b'...' with their length, not the codec's base64 tag (bytes_text).
            shown = json_with_bytes(p.get("args"), lambda v: json_text(v, reveal=True), tagged=True)
            args = _html(preformatted(shown, style=_ARGS_STYLE))
            rows.append(w.VBox([w.HBox([title, approve, reject]), args]))
        several = len(pending) > 1
        if several:  # shown again: disabled first, like the rows
            tips.append((self.approve_all, _APPROVE_ALL_TIP))
            self.approve_all.disabled = loop is not None
            self.approve_all.tooltip = ARMING_TIP if loop is not None else _APPROVE_ALL_TIP
        self._action_buttons = [b for b, _ in tips]
        self.pending_box.children = tuple(rows)
        self._pending = [dict(p) for p in pending]
        self.approve_all.layout.display = "" if several else "none"
        self.footer.layout.display = "none"
        self.locked = False
        self._set_header("paused", f"{len(pending)} action(s) to review")
        self.notice("")
        self._shown += 1
        if loop is not None:
            self._arm_later(loop, tips)

    def _arm_later(self, loop: asyncio.AbstractEventLoop, tips: list[tuple[w.Button, str]]) -> None:
        """Enable the new rows' buttons (with their own tooltips) :data:`ARMING_SECONDS` from now."""
        shown = self._shown

        def arm() -> None:
            if shown != self._shown or self.locked:
                return  # the card moved on (a click, an end, other rows) meanwhile
            for b, tip in tips:
                b.disabled = False
                b.tooltip = tip

        loop.call_later(ARMING_SECONDS, arm)

    def moved_on(self, text: str, pending: Sequence[Mapping[str, Any]]) -> None:
        """A click named a call that was decided elsewhere: say so, and show the call waiting now."""
        self.show_pending(pending)
        self.notice(text, "error")

    def busy(self, text: str) -> None:
        """Lock every button while an action runs (the double-click guard)."""
        self.locked = True
        self._shown += 1
        for b in [*self._action_buttons, self.rollback_button, self.snippet_save]:
            b.disabled = True
        self._set_header("running")
        self.notice(text)

    def decided(self, text: str, *, approved: bool = True) -> None:
        """Move the pending rows into the history (``notes.add (call #1) approved``)."""
        icon = "fa-check" if approved else "fa-ban"
        self._history.append(element("div", element("i", cls=f"fa {icon}"), " ", text, style="color:#555"))
        _show(self.history, join(self._history))
        self.pending_box.children = ()
        self.approve_all.layout.display = "none"
        self._action_buttons = []
        self._pending = []
        self._shown += 1

    def finished(self, status: str, *, can_rollback: bool, can_save: bool, detail: str = "",
                 revertible: int = 0) -> None:
        """The execution ended: offer Roll back (``revertible`` calls) and Save as snippet where they apply."""
        self.locked = False
        self._revertible = revertible
        self.confirm.layout.display = "none"
        self.pending_box.children = ()
        self.approve_all.layout.display = "none"
        self._action_buttons = []
        self._pending = []
        self._shown += 1
        self._set_header(status, detail)
        self.notice("")
        self.rollback_button.layout.display = "" if can_rollback else "none"
        self.rollback_button.disabled = not can_rollback
        self.snippet_button.layout.display = "" if can_save else "none"
        self.snippet_save.disabled = False
        self.footer.layout.display = "" if (can_rollback or can_save) else "none"

    def refused(self, text: str, *, retry: bool, level: str = "error") -> None:
        """The runtime refused the action (a stale card, a missing connector…).

        ``level="info"`` when it was decided elsewhere first: not an error, just late.
        """
        self.locked = False
        for b in self._action_buttons:
            b.disabled = not retry
        if not retry and self.status == "running":
            self._set_header("paused", "stale")
        self.notice(text, level)

    def rolled_back(self, text: str, *, reverted: bool, can_rollback: bool, revertible: int = 0) -> None:
        self.locked = False
        self._revertible = revertible
        self.rollback_button.disabled = not can_rollback
        if reverted:
            self._set_header("rolled_back")
        self.notice(text, "ok" if reverted else "info")

    @property
    def offers_rollback(self) -> bool:
        """Whether the card shows an enabled Roll back button."""
        return (self.footer.layout.display != "none" and self.rollback_button.layout.display != "none"
                and not self.rollback_button.disabled)

    def rollback_failed(self, text: str) -> None:
        self.locked = False
        self.rollback_button.disabled = False
        self.notice(text, "error")

    def snippet_saved(self, text: str) -> None:
        self.locked = False
        self.snippet_save.disabled = True
        self.form.layout.display = "none"
        self.notice(text, "ok")

    def snippet_failed(self, text: str) -> None:
        self.locked = False
        self.snippet_save.disabled = False
        self.notice(text, "error")

    # -- output (the card is a Sink) -----------------------------------------------------------

    def stream(self, text: str, name: str = "stdout") -> None:
        if text:
            self.output.outputs += ({"output_type": "stream", "name": name, "text": text},)

    def display(self, bundle: Bundle, *, result: bool = False) -> None:
        self.output.outputs += ({"output_type": "display_data", "data": dict(bundle), "metadata": {}},)

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None:
        self.output.outputs += ({"output_type": "error", "ename": ename, "evalue": evalue,
                                 "traceback": list(traceback)},)

    # -- clicks ----------------------------------------------------------------------------

    # A click can arrive for a button the kernel already disabled (the frontend had not yet
    # seen the change, or a second frontend shows the same card): it is ignored.

    def _approve(self, button: w.Button, seq: int | None) -> None:
        """One row's Approve: the call that row shows, by its seq."""
        if self.locked or button.disabled:
            return
        if seq is None:  # a row without a call number names no call: nothing to approve
            self.notice("This row names no call number, so nothing was approved.", "error")
            return
        self.busy("Approved: running the cell again from the top, replaying earlier calls…")
        self.actions.approve_call(seq)

    def _approve_all(self, button: w.Button) -> None:
        """Approve all: exactly the calls listed now, each by its seq, in order."""
        if self.locked or button.disabled:
            return
        shown = [dict(p) for p in self._pending if isinstance(p.get("seq"), int)]
        if not shown:
            return
        self.busy("Approved: running the cell again from the top, replaying earlier calls…")
        self.actions.approve_calls(shown)

    def _reject(self, button: w.Button, seq: int | None) -> None:
        if self.locked or button.disabled:
            return
        if seq is None:  # a row without a call number names no call: nothing to reject
            self.notice("This row names no call number, so nothing was rejected.", "error")
            return
        self.busy("Rejecting…")
        self.actions.reject(seq)

    def _rollback(self, button: w.Button) -> None:
        """Ask first: the same question as the side panel's dialog."""
        if self.locked or button.disabled:
            return
        calls = f"{self._revertible} call{'s' if self._revertible != 1 else ''}" if self._revertible else "its calls"
        _show(self.confirm_text, element(
            "span", element("b", "Roll back this execution?"),
            f" Each applied call that has a revert is undone, newest first ({calls}).", style="margin-right:8px"))
        self.confirm_yes.disabled = False
        self.confirm.layout.display = ""

    def _confirm_rollback(self, button: w.Button) -> None:
        if self.locked or button.disabled or self.rollback_button.disabled:
            return
        self.confirm.layout.display = "none"
        button.disabled = True
        self.locked = True
        self.rollback_button.disabled = True
        self.notice("Rolling back…")
        self.actions.rollback()

    def _cancel_rollback(self) -> None:
        self.confirm.layout.display = "none"

    def _toggle_form(self) -> None:
        self.form.layout.display = "none" if self.form.layout.display != "none" else ""

    def _save(self, button: w.Button) -> None:
        if self.locked or button.disabled:
            return
        name = self.snippet_name.value.strip()
        if not name:
            self.notice("Give the snippet a name first (letters, digits, '_', '-' or '.').", "error")
            return
        self.locked = True
        self.snippet_save.disabled = True
        self.notice("Saving…")
        self.actions.save_snippet(name, self.snippet_description.value.strip())
