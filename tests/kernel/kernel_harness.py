"""The kernel test harness: a notebook folder with a demo connector, and a real kernel process.

The demo connector (``kernel_notes.py``, written into each test's folder and referenced
from its ``codemode.toml``) keeps its notes *and a row per executed call* in a SQLite file,
so a test can count, from outside the kernel process, how often an action really ran.
"""

from __future__ import annotations

import html
import os
import re
import sqlite3
import textwrap
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from codemode_kernel.kernel.widgets import ARMING_TIP

NOTES_MODULE = textwrap.dedent('''
    """A notes connector for the kernel tests; every executed call leaves a row in `calls`."""
    import sqlite3

    from codemode_kernel import ToolSetConnector


    def make(counter: str, approval: bool = True):
        def db():
            c = sqlite3.connect(counter, timeout=10)
            c.execute("create table if not exists notes(id integer primary key, text text)")
            c.execute("create table if not exists calls(method text, key text)")
            return c

        def count(c, method, ctx):
            c.execute("insert into calls values (?, ?)", (method, ctx.idempotency_key if ctx else ""))

        def list_notes(ctx=None) -> list:
            """List every note."""
            with db() as c:
                count(c, "list_notes", ctx)
                return [{"id": i, "text": t} for i, t in c.execute("select id, text from notes order by id")]

        def add_note(text: str, ctx=None) -> dict:
            """Add a note with the given text."""
            with db() as c:
                count(c, "add_note", ctx)
                cur = c.execute("insert into notes(text) values (?)", (text,))
                return {"id": cur.lastrowid, "text": text}

        def fail(message: str) -> dict:
            """Always fails with the message."""
            raise ValueError(message)

        def revert_add(args, result, ctx):
            with db() as c:
                count(c, "revert_add_note", ctx)
                c.execute("delete from notes where id = ?", (result["id"],))

        return ToolSetConnector([list_notes, add_note, fail], name="notes",
                                instructions="A small note store.",
                                requires_approval={"add_note"} if approval else (),
                                reverts={"add_note": revert_add})
''')


# The executor the test notebooks use: "" is the product default (the isolated executor).
EXECUTOR = ""


def write_notebook_dir(folder: Path, *, extra_toml: str = "", executor: str = EXECUTOR) -> Path:
    """A notebook folder: the demo connector module and a codemode.toml that uses it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel_notes.py").write_text(NOTES_MODULE, encoding="utf-8")
    counter = folder / "calls.sqlite"
    toml = f'[connectors.notes]\npython = "kernel_notes:make"\noptions = {{ counter = "{counter}" }}\n'
    toml += 'hint = "the analyst\'s notes"\n'
    if executor:
        toml += f"\n[executor]\n{executor}\n"
    (folder / "codemode.toml").write_text(toml + extra_toml, encoding="utf-8")
    return folder


def calls(folder: Path, method: str | None = None) -> int:
    """How many times the demo connector really executed ``method`` (all methods when None)."""
    db = folder / "calls.sqlite"
    if not db.exists():
        return 0
    with sqlite3.connect(db) as c:
        c.execute("create table if not exists calls(method text, key text)")
        if method is None:
            return int(c.execute("select count(*) from calls").fetchone()[0])
        return int(c.execute("select count(*) from calls where method = ?", (method,)).fetchone()[0])


def notes(folder: Path) -> list[str]:
    db = folder / "calls.sqlite"
    if not db.exists():
        return []
    with sqlite3.connect(db) as c:
        c.execute("create table if not exists notes(id integer primary key, text text)")
        return [t for (t,) in c.execute("select text from notes order by id")]


def plain_cells_until(kernel: Kernel, said: str, attempts: int = 240) -> list[str]:
    """Run plain cells (``0``, ``1``, ...) until one's stderr holds ``said``; their stderr texts. The first cell
    does not wait for a server it does not name (review 15x M13): a warm-up's note comes with the first cell
    that runs once the failure is known."""
    texts: list[str] = []
    for n in range(attempts):
        run = kernel.execute(str(n), timeout=120)
        assert run.status == "ok", (run.error, run.stderr)
        texts.append(run.stderr)
        if said in run.stderr:
            break
        time.sleep(0.25)
    return texts


@dataclass
class Run:
    """One execute request: its reply and the IOPub messages it caused."""

    reply: dict[str, Any]
    messages: list[dict[str, Any]]

    @property
    def status(self) -> str:
        return str(self.reply["content"]["status"])

    def of(self, msg_type: str) -> list[dict[str, Any]]:
        return [m["content"] for m in self.messages if m["msg_type"] == msg_type]

    @property
    def stdout(self) -> str:
        return "".join(c["text"] for c in self.of("stream") if c["name"] == "stdout")

    @property
    def stderr(self) -> str:
        return "".join(c["text"] for c in self.of("stream") if c["name"] == "stderr")

    @property
    def result(self) -> dict[str, Any] | None:
        results = self.of("execute_result")
        return results[0]["data"] if results else None

    @property
    def error(self) -> dict[str, Any] | None:
        errors = self.of("error")
        return errors[0] if errors else None

    @property
    def card(self) -> str | None:
        """The model id of the widget this cell displayed (its approval card)."""
        for c in self.of("display_data"):
            view = c["data"].get("application/vnd.jupyter.widget-view+json")
            if view:
                return str(view["model_id"])
        return None


@dataclass
class Widgets:
    """A mirror of every widget model's state, kept from comm_open and comm_msg on IOPub."""

    models: dict[str, dict[str, Any]] = field(default_factory=dict)

    def feed(self, msg: dict[str, Any]) -> None:
        content = msg["content"]
        if msg["msg_type"] == "comm_open" and content.get("target_name") == "jupyter.widget":
            self.models[content["comm_id"]] = dict(content["data"]["state"])
        elif msg["msg_type"] == "comm_msg" and content["comm_id"] in self.models:
            data = content["data"]
            if data.get("method") in ("update", "echo_update"):
                self.models[content["comm_id"]].update(data["state"])

    def children(self, model_id: str) -> list[str]:
        out: list[str] = []
        for ref in self.models.get(model_id, {}).get("children", []):
            child = str(ref).removeprefix("IPY_MODEL_")
            out += [child, *self.children(child)]
        return out

    def within(self, root: str) -> list[str]:
        return [root, *self.children(root)]

    def buttons(self, root: str, description: str) -> list[str]:
        return [m for m in self.within(root) if self.models.get(m, {}).get("_model_name") == "ButtonModel"
                and self.models[m].get("description") == description and self._shown(root, m)]

    def _shown(self, root: str, model: str) -> bool:
        layout = str(self.models[model].get("layout", "")).removeprefix("IPY_MODEL_")
        return self.models.get(layout, {}).get("display") != "none"

    def texts(self, root: str) -> str:
        """Every HTML value and every output text inside the card, as one string."""
        parts = []
        for m in self.within(root):
            state = self.models.get(m, {})
            if state.get("_model_name") == "HTMLModel":
                parts.append(html.unescape(re.sub(r"<[^>]+>", "", str(state.get("value", "")))))
            if state.get("_model_name") == "OutputModel":
                for out in state.get("outputs", []):
                    parts.append(out.get("text") or str(out.get("data", {}).get("text/plain", ""))
                                 or f"{out.get('ename')}: {out.get('evalue')}")
        return "\n".join(parts)

    def header(self, root: str) -> str:
        first = str(self.models[root]["children"][0]).removeprefix("IPY_MODEL_")
        return str(self.models[first]["value"])

    def find(self, root: str, model_name: str, **state: Any) -> list[str]:
        return [m for m in self.within(root) if self.models.get(m, {}).get("_model_name") == model_name
                and all(self.models[m].get(k) == v for k, v in state.items())]


class Kernel:
    """A real Code Mode kernel process driven over ZMQ with jupyter_client."""

    def __init__(self, folder: Path, *, notebook: str | None = "analysis.ipynb",
                 env: dict[str, str] | None = None) -> None:
        self.folder = folder
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "CODEMODE_"))}
        environ["IPYTHONDIR"] = str(folder / ".ipython")
        environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
        if notebook:
            environ["JPY_SESSION_NAME"] = str(folder / notebook)
        environ.update(env or {})
        self.km = KernelManager(kernel_name="codemode")
        self.km.start_kernel(cwd=str(folder), env=environ)
        self.kc: BlockingKernelClient = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.widgets = Widgets()

    def restart(self) -> None:
        self.kc.stop_channels()
        self.km.restart_kernel(now=True)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.widgets = Widgets()

    def shutdown(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def _iopub(self, timeout: float) -> dict[str, Any]:
        msg: dict[str, Any] = self.kc.get_iopub_msg(timeout=timeout)
        self.widgets.feed(msg)
        return msg

    def execute(self, code: str, timeout: float = 60, *, cell_id: str | None = None) -> Run:
        if cell_id is None:
            msg_id = self.kc.execute(code)
        else:  # as JupyterLab sends it: the cell's id in the request metadata
            content = {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                       "allow_stdin": False, "stop_on_error": True}
            msg = self.kc.session.msg("execute_request", content, metadata={"cellId": cell_id})
            self.kc.shell_channel.send(msg)
            msg_id = msg["header"]["msg_id"]
        deadline = time.monotonic() + timeout
        messages: list[dict[str, Any]] = []
        while True:
            msg = self._iopub(max(0.1, deadline - time.monotonic()))
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            messages.append(msg)
        while True:
            reply = self.kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                return Run(reply, messages)

    def ok(self, code: str, timeout: float = 60, *, cell_id: str | None = None) -> Run:
        run = self.execute(code, timeout, cell_id=cell_id)
        assert run.status == "ok", (run.error, run.stderr, run.stdout)
        return run

    def shell_reply(self, msg_id: str, timeout: float = 30) -> dict[str, Any]:
        """The shell reply to request ``msg_id`` (other replies are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            reply: dict[str, Any] = self.kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply

    def comm_msg(self, comm_id: str, data: dict[str, Any]) -> None:
        self.kc.shell_channel.send(self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data}))

    def click(self, button: str, *, when_armed: bool = True) -> None:
        """Click ``button`` as a person does: once a freshly shown call's buttons are armed
        (``widgets.ARMING_SECONDS`` after they appear; ``when_armed=False`` clicks at once)."""
        if when_armed:
            self.wait_until(lambda: self.widgets.models.get(button, {}).get("tooltip") != ARMING_TIP,
                            timeout=10, what="the button to be armed")
        self.comm_msg(button, {"method": "custom", "content": {"event": "click"}})

    def set_value(self, model: str, value: Any) -> None:
        self.comm_msg(model, {"method": "update", "state": {"value": value}, "buffer_paths": []})

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 30, what: str = "condition") -> None:
        """Pump IOPub (keeping the widget mirror current) until ``predicate()`` holds."""
        deadline = time.monotonic() + timeout
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {what}")
            try:
                self._iopub(min(remaining, 0.5))
            except Exception:  # queue.Empty: nothing yet
                continue

    def drain(self, seconds: float = 0.3) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self._iopub(0.05)
            except Exception:
                continue

    def open_comm(self, target: str, data: dict[str, Any] | None = None) -> str:
        comm_id = uuid.uuid4().hex
        self.kc.shell_channel.send(self.kc.session.msg(
            "comm_open", {"comm_id": comm_id, "target_name": target, "data": data or {}}))
        return comm_id
