"""``codemode``: the runtime from a terminal, over the same store and configuration as the kernel.

    codemode run script.py            run a program; when it pauses, answer the approval at the prompt
    codemode executions               list executions (newest first)
    codemode show ID|last             one execution and its journal
    codemode pending                  calls waiting for approval
    codemode approve ID|last          approve and resume (replays the journal)
    codemode reject ID|last [SEQ]     reject the pending call
    codemode rollback ID|last         revert applied calls in reverse order
    codemode search QUERY             rank methods and snippets
    codemode describe TARGET          Python declarations of a connector, method or snippet
    codemode snippets                 saved snippets
    codemode save-snippet NAME ID     save a completed execution as a snippet
    codemode expire [--hours H]       reject stale paused executions, fail stale running ones
    codemode demo                     a guided terminal demo of approvals, replay and rollback
    codemode mcp                      serve the runtime over MCP (stdio) as one tool named `codemode`

Connectors come from ``codemode.toml`` (or ``[tool.codemode]`` in ``pyproject.toml``) found from
``--dir`` (default: the working directory), exactly as the kernel finds them; ``--store`` or
``CODEMODE_STORE`` overrides the store URL. Output is JSON with ``--json``.

Everything shown that the command did not write itself (print output, results, errors, journal
entries, descriptions, logs) goes through :mod:`codemode_kernel.terminal`: control characters
appear as visible escapes, and a program's lines sit behind a ``| `` gutter.
"""

# ruff: noqa: E402 - the rfc3987 guard below must run before jsonschema is imported
from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, TextIO

# As in the kernel: jsonschema's optional IRI format checker (rfc3987-syntax) compiles a grammar on
# first import (~2 s); argument validation uses no format checks, so the command goes without it.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

from codemode_kernel import codec
from codemode_kernel.building import runtime_for_folder
from codemode_kernel.connectors.toolset import ToolSetConnector
from codemode_kernel.errors import CodemodeError
from codemode_kernel.models import STEP_CONNECTOR, ExecutionState
from codemode_kernel.runtime import CodemodeRuntime
from codemode_kernel.selection import resolve_execution
from codemode_kernel.terminal import ProgramOutput, TerminalFormatter, quoted_block, terminal_json, terminal_text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codemode", description="Code Mode runtime from a terminal.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=(__doc__ or "").split("\n\n")[1])
    parser.add_argument("--dir", type=Path, default=None, help="folder whose codemode.toml configures connectors")
    parser.add_argument("--store", default=None, help="SQLAlchemy URL of the journal (overrides the config)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    run = sub.add_parser("run", help="run a program (a file, or - for stdin)")
    run.add_argument("file")
    run.add_argument("--approve", choices=["ask", "yes", "no"], default="ask",
                     help="answer approvals: ask at the prompt (default), approve all, or leave paused")
    sub.add_parser("executions", help="list executions").add_argument("--limit", type=int, default=20)
    sub.add_parser("show", help="one execution and its journal").add_argument("id")
    sub.add_parser("pending", help="calls waiting for approval")
    sub.add_parser("approve", help="approve a paused execution").add_argument("id")
    rej = sub.add_parser("reject", help="reject a paused execution")
    rej.add_argument("id")
    rej.add_argument("seq", nargs="?", type=int, default=None)
    sub.add_parser("rollback", help="revert applied calls").add_argument("id")
    sub.add_parser("search", help="rank methods and snippets").add_argument("query", nargs="+")
    sub.add_parser("describe", help="Python declarations").add_argument("target")
    sub.add_parser("snippets", help="saved snippets")
    save = sub.add_parser("save-snippet", help="save a completed execution as a snippet")
    save.add_argument("name")
    save.add_argument("id")
    save.add_argument("--description", default="")
    sub.add_parser("expire", help="expire stale executions").add_argument("--hours", type=float, default=24.0)
    sub.add_parser("demo", help="guided terminal demo (approvals, replay, rollback)")
    sub.add_parser("mcp", help="serve the runtime over MCP on stdio (one tool: codemode)")
    return parser


class Console:
    """Prints outcomes for people (or JSON for programs)."""

    def __init__(self, as_json: bool, out: TextIO | None = None) -> None:
        self.as_json = as_json
        self.out = out if out is not None else sys.stdout

    def data(self, value: Any) -> None:
        self.out.write(terminal_json(codec.encode(value) if codec.is_encodable(value) else value, indent=2) + "\n")

    def text(self, text: str) -> None:
        """A line (or block) the command writes, with hostile parts already passed through terminal_*."""
        self.out.write(text + "\n")

    def outcome(self, out: dict[str, Any]) -> None:
        if self.as_json:
            self.data(out)
            return
        status = out["status"]
        self.text(f"[{status}] execution {terminal_text(str(out['execution_id']), multiline=False)}")
        if status == "completed":
            self.text(terminal_json(codec.encode(out["result"]), indent=2))
        elif status == "paused":
            for p in out["pending"]:
                call = terminal_text(f"{p['connector']}.{p['method']}", multiline=False)
                self.text(f"  waiting for approval: #{p['seq']} {call}({terminal_json(codec.encode(p['args']))})")
        else:
            self.text("  " + quoted_block(str(out["error"])))

    def journal(self, state: ExecutionState) -> None:
        if self.as_json:
            self.data(state.to_dict())
            return
        self.text(f"execution {state.id}: {state.status}, {state.passes} pass(es)")
        for e in state.log:
            shown = (terminal_json(codec.encode(e.result)) if e.result is not None
                     else terminal_text(e.error or "", multiline=False))
            if len(shown) > 80:
                shown = shown[:77] + "..."
            if e.connector == STEP_CONNECTOR:
                call = f"codemode.step({terminal_text(repr(e.method), multiline=False)})"
            else:
                call = (terminal_text(f"{e.connector}.{e.method}", multiline=False)
                        + f"({terminal_json(codec.encode(e.args))})")
            self.text(f"  #{e.seq:<3} {e.state:<9} pass {e.pass_number}  {call}  {shown}")
        if state.error:
            self.text("  error: " + quoted_block(state.error))


async def _run_file(rt: CodemodeRuntime, console: Console, code: str, mode: str,
                    ask: Callable[[str], str]) -> int:
    printed = ProgramOutput(console.out)
    on_output = None if console.as_json else printed.write
    out = await rt.execute(code, on_output=on_output)
    printed.end()
    while out["status"] == "paused":
        console.outcome(out)
        if mode == "no":
            return 0
        pending = out["pending"][0]
        call = terminal_text(f"{pending['connector']}.{pending['method']}", multiline=False)
        answer = "y" if mode == "yes" else ask(f"Approve {call}? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            await rt.reject(out["execution_id"], pending["seq"])
            console.text("rejected")
            return 1
        out = await rt.approve(out["execution_id"], on_output=on_output)
        printed.end()
    console.outcome(out)
    return 0 if out["status"] == "completed" else 1


async def _command(args: argparse.Namespace, console: Console, ask: Callable[[str], str]) -> int:
    if args.command == "demo":
        return await demo(console, ask)
    folder = (args.dir or Path.cwd()).resolve()
    built = runtime_for_folder(folder, store=args.store)
    rt = built.runtime
    for p in built.problems:
        sys.stderr.write(f"configuration: {quoted_block(p)}\n")
    if args.command == "mcp":
        from codemode_kernel.serve import serve_stdio

        await serve_stdio(rt)
        return 0
    async with rt:
        cmd = args.command
        if cmd == "run":
            code = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
            return await _run_file(rt, console, code, args.approve, ask)
        if cmd == "executions":
            states = await rt.executions(limit=args.limit)
            if console.as_json:
                console.data([s.to_dict() for s in states])
            for s in [] if console.as_json else states:
                first = terminal_text((s.code.strip().split("\n") or [""])[0][:60], multiline=False)
                console.text(f"{s.id}  {s.status:<11} {len(s.log):>3} calls  {first}")
            return 0
        if cmd == "show":
            state = await rt.execution(await resolve_execution(rt, args.id, "show"))
            if state is None:
                raise CodemodeError(f"no execution {args.id!r}")  # escaped where it is printed, in main()
            console.journal(state)
            return 0
        if cmd == "pending":
            console.data([p.to_dict() for p in await rt.pending()])
            return 0
        if cmd == "approve":
            out = await rt.approve(await resolve_execution(rt, args.id, "approve"))
            console.outcome(out)
            return 0 if out["status"] != "error" else 1
        if cmd == "reject":
            ok = await rt.reject(await resolve_execution(rt, args.id, "reject"), args.seq)
            console.text("rejected" if ok else "not rejected: the execution is not paused at that call")
            return 0 if ok else 1
        if cmd == "rollback":
            eid = await resolve_execution(rt, args.id, "rollback")
            await rt.rollback(eid)
            state = await rt.execution(eid)
            console.text(f"{terminal_text(eid, multiline=False)}: {state.status if state else 'deleted'}")
            return 0
        if cmd == "search":
            console.data((await rt.search(" ".join(args.query))).to_dict())
            return 0
        if cmd == "describe":
            d = await rt.describe(args.target)
            if console.as_json:
                console.data(d.to_dict())
            else:
                console.out.write(terminal_text(d.types))
            return 0
        if cmd == "snippets":
            console.data([s.to_dict() for s in await rt.snippets()])
            return 0
        if cmd == "save-snippet":
            saved = await rt.save_snippet(args.name, execution_id=await resolve_execution(rt, args.id, "snippet"),
                                          description=args.description)
            console.data(saved.to_dict())
            return 0
        if cmd == "expire":
            console.data(await rt.expire_paused(timedelta(hours=args.hours)))
            return 0
    return 2  # pragma: no cover - argparse refuses unknown commands


DEMO_PROGRAM = """\
notes_so_far = notes.list_notes()
print("notes before:", len(notes_so_far))
stamp = codemode.step("stamp", lambda: datetime.datetime.now().isoformat(timespec="seconds"))
created = notes.add_note(text="Reviewed the journal at " + stamp)
print("created note", created["id"])
len(notes.list_notes())
"""


async def demo(console: Console, ask: Callable[[str], str]) -> int:
    """Read, pause for approval, resume by replay, show the journal, offer a rollback."""
    folder = Path(tempfile.mkdtemp(prefix="codemode-demo-"))
    store: list[dict[str, Any]] = []

    def list_notes() -> list[dict[str, Any]]:
        """List all notes."""
        return [dict(n) for n in store]

    def add_note(text: str) -> dict[str, Any]:
        """Add a note (needs approval)."""
        note = {"id": len(store) + 1, "text": text}
        store.append(note)
        return dict(note)

    def forget(args: dict[str, Any], result: Any, ctx: Any) -> None:
        store[:] = [n for n in store if n["id"] != result["id"]]

    notes = ToolSetConnector([list_notes, add_note], name="notes", requires_approval={"add_note"},
                             reverts={"add_note": forget})
    w = console.out.write
    printed = ProgramOutput(console.out)
    async with CodemodeRuntime([notes], store=f"sqlite:///{folder / 'demo.codemode.db'}") as rt:
        w("Code Mode terminal demo. The program:\n\n" + "".join(f"    {ln}\n" for ln in DEMO_PROGRAM.splitlines()))
        w("\nPass 1 runs until the call that needs approval:\n")
        out = await rt.execute(DEMO_PROGRAM, on_output=printed.write)
        printed.end()
        console.outcome(out)
        if out["status"] != "paused":
            return 1
        if ask("Approve notes.add_note? [y/N] ").strip().lower() not in ("y", "yes"):
            await rt.reject(out["execution_id"])
            w("Rejected: nothing was written.\n")
            return 0
        w("\nPass 2 replays the read and the step from the journal, then runs the approved call once:\n")
        out = await rt.approve(out["execution_id"], on_output=printed.write)
        printed.end()
        console.outcome(out)
        state = await rt.execution(out["execution_id"])
        assert state is not None
        w("\nThe journal:\n")
        console.journal(state)
        if ask("Roll back the applied actions? [y/N] ").strip().lower() in ("y", "yes"):
            await rt.rollback(out["execution_id"])
            state = await rt.execution(out["execution_id"])
            w(f"Rolled back: status {state.status if state else '?'}, notes now {len(store)}.\n")
        w(f"\nThe journal is kept in {folder / 'demo.codemode.db'}.\n")
    return 0


def _log_to_terminal() -> None:
    """Warnings on stderr, escaped; set before the MCP server's own logging setup, which then keeps it."""
    root = logging.getLogger()
    if root.handlers:  # embedded (tests, a host program): its logging is its own
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(TerminalFormatter("codemode: %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None, ask: Callable[[str], str] = input) -> int:
    """Entry point of the ``codemode`` command."""
    args = build_parser().parse_args(argv)
    console = Console(args.json)
    _log_to_terminal()
    try:
        return asyncio.run(_command(args, console, ask))
    except (CodemodeError, LookupError, OSError) as exc:
        sys.stderr.write(f"codemode: {quoted_block(str(exc))}\n")
        return 1
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\ncodemode: stopped\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
