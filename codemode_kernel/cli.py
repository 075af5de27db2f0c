"""``codemode``: the runtime from a terminal, over the same store and configuration as the kernel.

``codemode --help`` lists the commands; they, their arguments and what ``last`` means come
from :mod:`codemode_kernel.commands`, the table the notebook's magics are generated from too
(``codemode show ID`` is ``%journal ID``, ``codemode save-snippet`` is ``%snippet save``).

Connectors come from ``codemode.toml`` (or ``[tool.codemode]`` in ``pyproject.toml``) found from
``--dir`` (default: the working directory), exactly as the kernel finds them; ``--notebook
X.ipynb`` works on that notebook's journal (and its folder's configuration); ``--store`` or
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
import shlex
import sys
import tempfile
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

# As in the kernel: jsonschema's optional IRI format checker (rfc3987-syntax) compiles a grammar on
# first import (~2 s); argument validation uses no format checks, so the command goes without it.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

from codemode_kernel import codec
from codemode_kernel.building import runtime_for_folder
from codemode_kernel.commands import COMMANDS, Command, door_text
from codemode_kernel.connectors.toolset import ToolSetConnector
from codemode_kernel.errors import CodemodeError, InvalidStateError, UnknownExecutionError, UsageError
from codemode_kernel.journal_files import sqlite_url
from codemode_kernel.kernel.output import ReplayFilter
from codemode_kernel.models import STEP_CONNECTOR, ExecutionState, ToolLogEntry
from codemode_kernel.runtime import CodemodeRuntime
from codemode_kernel.selection import resolve_execution, revertible_calls
from codemode_kernel.terminal import ProgramOutput, TerminalFormatter, quoted_block, terminal_json, terminal_text

MCP_HELP = """Serve the runtime over MCP to an agent host: two tools, `codemode` (run a program) and
`codemode_status` (follow an execution this server started, read-only, optionally waiting).

Transport: stdio by default; --http HOST:PORT serves streamable HTTP on http://HOST:PORT/mcp with a
bearer token (CODEMODE_MCP_TOKEN, else generated and printed to stderr), loopback only unless
--allow-remote.

Journal: the same store rules as every codemode command, printed to stderr at start:
--store URL (or CODEMODE_STORE), else [store] url in codemode.toml, else --notebook X.ipynb's
journal (.codemode/X.codemode.db beside it, the file its kernel and panel use), else one named
after --dir's folder (.codemode/<folder>.codemode.db; default: the working directory). Serve a
notebook's journal to approve in its panel.

Approvals stay with a person: a client that supports elicitation asks them (accept runs the call
once, decline rejects it); otherwise the paused outcome tells the model a person must approve in
the notebook, its panel, or with `codemode approve ID`.

Connector commands (mcp = { command = "mcp-server-time" }) are found in this Python's bin folder
first, then on PATH, so `/path/.venv/bin/codemode mcp` works without activating the virtualenv; a
connector whose command is found nowhere is listed to the model as unavailable, with the reason."""


def build_parser() -> argparse.ArgumentParser:
    """The ``codemode`` parser: global options, then one subcommand per CLI command of the table.

    argparse reads the options and prints the help; the positional words go to
    :meth:`Command.parse`, which the magics use too, so both doors read them alike.
    """
    parser = argparse.ArgumentParser(prog="codemode", description="Code Mode runtime from a terminal.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_epilog())
    parser.add_argument("--dir", type=Path, default=None, help="folder whose codemode.toml configures connectors "
                        "(default: the working directory); the journal is named after it "
                        "(.codemode/<folder>.codemode.db)")
    parser.add_argument("--notebook", type=Path, default=None, metavar="X.ipynb",
                        help="use this notebook's journal (.codemode/X.codemode.db, the very file its kernel "
                             "uses) and its folder's codemode.toml")
    parser.add_argument("--store", default=None, help="SQLAlchemy URL of the journal (overrides the config and "
                        "the default file); CODEMODE_STORE does the same")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    for command in COMMANDS:
        if command.cli is None:
            continue
        listed = "".join(f"\n  {a.usage().strip('[]'):<22} {a.help}" for a in command.arguments)
        sp = sub.add_parser(command.cli, description=command.help, usage=command.cli_usage(),
                            epilog=f"arguments:{listed}" if listed else None,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
        for arg in command.options:
            if arg.kind == "flag":
                sp.add_argument(arg.flag, action="store_const", const="yes", default=None, help=argparse.SUPPRESS)
            else:
                sp.add_argument(arg.flag, metavar=arg.metavar, default=None, help=argparse.SUPPRESS)
        if command.name == "mcp":
            sp.description, sp.epilog = MCP_HELP, None
            sp.usage = ("codemode [--notebook X.ipynb | --dir DIR] [--store URL] mcp [--http HOST:PORT "
                        "[--allow-remote]] [--approvals ask|outside]")
            sp.add_argument("--http", metavar="HOST:PORT", default=None,
                            help="serve streamable HTTP on http://HOST:PORT/mcp instead of stdio (port 0: any free "
                                 "port); clients send `Authorization: Bearer TOKEN`, TOKEN from CODEMODE_MCP_TOKEN or "
                                 "generated and printed to stderr")
            sp.add_argument("--allow-remote", action="store_true",
                            help="allow --http on a non-loopback address (put TLS in front of it)")
            sp.add_argument("--approvals", choices=("ask", "outside"), default="ask",
                            help="ask: a paused call asks the person through clients that support elicitation "
                                 "(default); outside: never, a person approves in the notebook, panel or CLI")
        sp.add_argument("words", nargs="*", help=argparse.SUPPRESS)  # read by Command.parse, as in a magic
        sp.set_defaults(_command=command, _parser=sp)
    return parser


def _epilog() -> str:
    lines = ["commands (codemode COMMAND --help says more):"]
    for c in COMMANDS:
        if c.cli:
            lines.append(f"  {c.cli_usage()}")
            lines += textwrap.wrap(c.help, 96, initial_indent=" " * 6, subsequent_indent=" " * 6)
    return "\n".join(lines)


def _parse(argv: Sequence[str] | None) -> tuple[argparse.Namespace, Command, dict[str, Any]]:
    """Global options, the command and its values; a bad word exits with the usage (status 2)."""
    args = build_parser().parse_args(argv)
    command: Command = args._command
    options = {a.name: getattr(args, a.name) for a in command.options}
    try:
        values = command.parse(getattr(args, "words", []), options)
        if args.notebook is not None and args.dir is not None:
            raise UsageError("Give --notebook or --dir, not both: a notebook's folder is its configuration folder.")
        if args.notebook is not None and args.notebook.suffix != ".ipynb":
            raise UsageError(f"--notebook needs a notebook file (X.ipynb), not {str(args.notebook)!r}.")
        if command.name == "mcp" and args.http is not None:
            from codemode_kernel.serve.http import parse_bind, token_from_env

            args.bind = parse_bind(args.http, allow_remote=args.allow_remote)
            args.token = token_from_env()
    except UsageError as exc:
        args._parser.error(str(exc))
    return args, command, values


def parse_command(argv: Sequence[str]) -> tuple[Command, dict[str, Any]]:
    """The command ``codemode ARGV`` names and its values (as :func:`~.kernel.magics.parse_magic` for a magic)."""
    _, command, values = _parse(argv)
    return command, values


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

    def journal(self, state: ExecutionState, revertible: Sequence[ToolLogEntry]) -> None:
        """An execution and its journal; ``revertible``: what a rollback would revert (``selection``'s rule)."""
        if self.as_json:
            self.data({**state.to_dict(), "can_rollback": bool(revertible), "revertible": len(revertible)})
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
        if revertible:
            self.text(f"  can roll back: codemode rollback {state.id} reverts {len(revertible)} call(s)")


async def _run_file(rt: CodemodeRuntime, console: Console, code: str, mode: str,
                    ask: Callable[[str], str]) -> int:
    printed = ProgramOutput(console.out)
    # An approval runs the program again from the top: what the earlier pass printed is not printed
    # again, only what comes after it (as in the kernel; review 14x, noticed).
    live = ReplayFilter("", printed.write)
    out = await rt.execute(code, on_output=None if console.as_json else live)
    printed.end()
    eid = out["execution_id"]
    # With --json the command prints one document, the outcome it ends with (review 14x M1); in a
    # terminal every pause is shown before its question.
    while out["status"] == "paused":
        if mode == "no" or not console.as_json:
            console.outcome(out)
        if mode == "no":
            return 0
        pending = out["pending"][0]
        call = terminal_text(f"{pending['connector']}.{pending['method']}", multiline=False)
        answer = "y" if mode == "yes" else _ask(ask, f"Approve {call}? [y/N] ", console)
        # Each decision names the call shown (its seq): another front end over the same journal may have
        # decided it while the person read the prompt, and a late answer must not decide a later call.
        if answer.strip().lower() not in ("y", "yes"):
            if await rt.reject(eid, pending["seq"]):
                if console.as_json:
                    state = await rt.execution(eid)
                    console.data({"execution_id": eid, "status": state.status if state else "rejected",
                                  "rejected": True, "seq": pending["seq"]})
                else:
                    console.text("rejected")
                return 1
            if not console.as_json:
                console.text(f"not rejected: call #{pending['seq']} {call} was decided elsewhere meanwhile")
        else:
            live = ReplayFilter(live.printed, printed.write)
            out = await rt.approve(eid, seq=pending["seq"], on_output=None if console.as_json else live)
            printed.end()
            if not out.get("refused"):
                continue
            if not console.as_json:
                console.outcome(out)  # what the call is now, and that nothing was approved
        waiting = await rt.pending(eid)
        if not waiting:  # running elsewhere or ended: that front end shows the outcome
            if console.as_json:
                console.outcome(out)
            return 1
        out = {"execution_id": eid, "status": "paused", "pending": [p.to_dict() for p in waiting]}
    console.outcome(out)
    return 0 if out["status"] == "completed" else 1


def _ask(ask: Callable[[str], str], prompt: str, console: Console) -> str:
    """The person's answer; with ``--json`` the prompt goes to stderr, so stdout stays one JSON document."""
    if not console.as_json:
        return ask(prompt)
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return ask("")


async def _command(args: argparse.Namespace, command: Command, values: dict[str, Any], console: Console,
                   ask: Callable[[str], str]) -> int:
    if command.name == "demo":
        return await demo(console, ask)
    # A mistyped path is an error before anything is made there (review 14x, M13).
    if args.notebook is not None and not args.notebook.is_file():
        raise UsageError(f"--notebook {str(args.notebook)!r}: no such notebook file; give the path of an "
                         "existing .ipynb (nothing was created).")
    if args.dir is not None and not args.dir.is_dir():
        raise UsageError(f"--dir {str(args.dir)!r}: no such folder; give the folder that holds codemode.toml "
                         "(nothing was created).")
    notebook = args.notebook.resolve() if args.notebook is not None else None
    folder = notebook.parent if notebook is not None else (args.dir or Path.cwd()).resolve()
    # An explicit --store that cannot open is an error, not another journal in its place (review 14x, M13).
    built = runtime_for_folder(folder, store=args.store, notebook=notebook, strict_store=args.store is not None)
    rt = built.runtime
    for p in built.problems:
        sys.stderr.write(f"configuration: {quoted_block(p)}\n")
    if command.name == "mcp":
        return await _serve_mcp(args, rt)
    async with rt:
        if command.execution_argument is not None and values.get("execution") is not None:
            values["execution"] = await resolve_execution(rt, values["execution"], command.purpose)
        return await _HANDLERS[command.name](rt, console, values, ask)


async def _serve_mcp(args: argparse.Namespace, rt: CodemodeRuntime) -> int:
    """``codemode mcp``: stdio, or streamable HTTP with ``--http``; the journal is named on stderr."""
    def say(text: str) -> None:
        sys.stderr.write(f"codemode mcp: {terminal_text(text, multiline=False)}\n")
        sys.stderr.flush()

    say(f"journal {rt.store.where} (runtime {rt.name!r})")
    options: dict[str, Any] = {"approvals_mode": args.approvals, "approve_hint": _approve_hint(args)}
    if args.http is None:
        from codemode_kernel.serve import serve_stdio

        await serve_stdio(rt, **options)
        return 0
    from codemode_kernel.serve.http import TOKEN_ENV as token_env
    from codemode_kernel.serve.http import serve_http

    (host, port), (token, generated) = args.bind, args.token

    def announce(url: str) -> None:
        say(f"serving {url} (streamable HTTP; send `Authorization: Bearer <token>`)")
        if generated:
            say(f"bearer token: {token}   (generated; set {token_env} to choose one)")

    await serve_http(rt, host, port, token, announce=announce, **options)
    return 0


def _approve_hint(args: argparse.Namespace) -> str:
    """Where a person approves, for the model: the command over this server's journal (never the store URL)."""
    if args.store is not None:
        where = "`codemode --store <the same URL> approve ID`"
    elif args.notebook is not None:
        where = f"`codemode --notebook {shlex.quote(str(args.notebook))} approve ID`"
    elif args.dir is not None:
        where = f"`codemode --dir {shlex.quote(str(args.dir))} approve ID`"
    else:
        where = "`codemode approve ID` (in the folder this server was started in)"
    return (f"The person approves it in the notebook's Code Mode panel, with `%approve ID` in the notebook, or from "
            f"a terminal with {where} (`reject` to refuse it).")


async def _run(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    code = sys.stdin.read() if v["file"] == "-" else Path(v["file"]).read_text(encoding="utf-8")
    return await _run_file(rt, console, code, v["approve"], ask)


async def _executions(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    states = await rt.executions(limit=v["limit"])
    if console.as_json:
        console.data([s.to_dict() for s in states])
    for s in [] if console.as_json else states:
        first = terminal_text((s.code.strip().split("\n") or [""])[0][:60], multiline=False)
        console.text(f"{s.id}  {s.status:<11} {len(s.log):>3} calls  {first}")
    return 0


async def _show(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    state = await rt.execution(v["execution"])
    if state is None:
        raise CodemodeError(f"no execution {v['execution']!r}")  # escaped where it is printed, in main()
    console.journal(state, revertible_calls(state, await rt.catalog()))
    return 0


async def _pending(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    console.data([p.to_dict() for p in await rt.pending(v["execution"])])
    return 0


async def _approve(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    # The command names no call: it approves the call pending now, by its number, and says which one.
    # With none pending it approves nothing: the runtime's "whatever is pending" (seq None) could
    # approve a call another host's pass paused on after this read, which nobody was shown (s12a).
    # ``approve ID SEQ`` approves call #SEQ only if it is still the pending one (the runtime checks it in
    # its claim): the person names the call they were shown, and a later call is never approved for it.
    eid, seq = v["execution"], v.get("seq")
    waiting = await rt.pending(eid)
    if not waiting and seq is None:
        console.outcome(await _nothing_waits(rt, eid))
        return 1
    if seq is None:
        seq = waiting[0].seq
    shown = [p for p in waiting if p.seq == seq]
    if shown and not console.as_json:
        call = terminal_text(f"{shown[0].connector}.{shown[0].method}", multiline=False)
        console.text(f"approving call #{seq} {call}")
    out = await rt.approve(eid, seq=seq)
    console.outcome(out)
    return 0 if out["status"] != "error" else 1


async def _nothing_waits(rt: CodemodeRuntime, execution_id: str) -> dict[str, Any]:
    """The refusal of an approval that found no pending call (the runtime's own words for it)."""
    state = await rt.execution(execution_id)
    if state is None:
        error_type, message = "UnknownExecutionError", door_text(str(UnknownExecutionError(execution_id, rt.name)),
                                                                 "cli")
    elif state.status == "paused":  # a call became pending after the read: nobody was shown it
        error_type, message = "InvalidStateError", (
            f"Execution {execution_id!r} paused on a new call after this command looked (another approval "
            "ran first); nothing was approved. Run the command again to see that call and approve it.")
    else:
        error_type, message = "InvalidStateError", str(InvalidStateError(execution_id, state.status, "approve",
                                                                         ["paused"]))
    return {"status": "error", "execution_id": execution_id, "error": message, "error_type": error_type,
            "refused": True}


async def _reject(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    eid, seq = v["execution"], v["seq"]
    if seq is None:  # as for approve: the call pending now, by its number, or nothing
        waiting = await rt.pending(eid)
        seq = waiting[0].seq if waiting else None
    ok = seq is not None and await rt.reject(eid, seq)
    if console.as_json:  # one document a script can read (review 14x M1)
        console.data({"execution_id": eid, "rejected": ok, "seq": seq})
    else:
        console.text("rejected" if ok else "not rejected: the execution is not paused at that call")
    return 0 if ok else 1


async def _rollback(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    """Revert and say what was reverted, or that nothing could be (as the kernel's %rollback); ``--json``:
    one document, ``{"execution_id", "status", "reverted": [seq, ...]}`` (review 14x M1)."""
    eid = v["execution"]
    before = await rt.execution(eid)
    already = {e.seq for e in before.log if e.state == "reverted"} if before is not None else set()
    await rt.rollback(eid)
    state = await rt.execution(eid)
    reverted = [e for e in (state.log if state is not None else []) if e.state == "reverted" and e.seq not in already]
    status = state.status if state is not None else "deleted"
    if console.as_json:
        console.data({"execution_id": eid, "status": status, "reverted": [e.seq for e in reverted]})
        return 0
    shown = terminal_text(eid, multiline=False)
    if reverted:
        calls = ", ".join(terminal_text(f"{e.connector}.{e.method}", multiline=False) + f" (call #{e.seq})"
                          for e in reverted)
        console.text(f"{shown}: {status}; rolled back {len(reverted)} action(s): {calls}.")
    else:
        console.text(f"{shown}: {status}. Nothing to roll back: no applied action of this execution can be "
                     "reverted.")
    return 0


async def _search(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    console.data((await rt.search(v["query"])).to_dict())
    return 0


async def _describe(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    d = await rt.describe(v["target"], full=bool(v.get("full")), page=v.get("page") or 1)
    if console.as_json:
        console.data(d.to_dict())
    else:  # the answer's hints are written for a program: here they name this command (review 14x M3)
        console.out.write(terminal_text(door_text(d.types, "cli", path=d.path)).rstrip("\n") + "\n")
    return 0


async def _snippets(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    console.data([s.to_dict() for s in await rt.snippets()])
    return 0


async def _save_snippet(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    saved = await rt.save_snippet(v["name"], execution_id=v["execution"], description=v["description"])
    console.data(saved.to_dict())
    return 0


async def _expire(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    console.data(await rt.expire_paused(v["age"]))
    return 0


Handler = Callable[[CodemodeRuntime, Console, dict[str, Any], Callable[[str], str]], Awaitable[int]]

#: What each command does in a terminal, by command name (its arguments are in the table).
_HANDLERS: dict[str, Handler] = {
    "run": _run, "executions": _executions, "journal": _show, "pending": _pending, "approve": _approve,
    "reject": _reject, "rollback": _rollback, "search": _search, "describe": _describe, "snippets": _snippets,
    "save_snippet": _save_snippet, "expire": _expire,
}


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
    async with CodemodeRuntime([notes], store=sqlite_url(folder / "demo.codemode.db")) as rt:
        w("Code Mode terminal demo. The program:\n\n" + "".join(f"    {ln}\n" for ln in DEMO_PROGRAM.splitlines()))
        w("\nPass 1 runs until the call that needs approval:\n")
        live = ReplayFilter("", printed.write)
        out = await rt.execute(DEMO_PROGRAM, on_output=live)
        printed.end()
        console.outcome(out)
        if out["status"] != "paused":
            return 1
        shown = out["pending"][0]["seq"]  # each decision names the call the person was shown
        if ask("Approve notes.add_note? [y/N] ").strip().lower() not in ("y", "yes"):
            await rt.reject(out["execution_id"], shown)
            w("Rejected: nothing was written.\n")
            return 0
        w("\nPass 2 replays the read and the step from the journal, then runs the approved call once:\n")
        out = await rt.approve(out["execution_id"], seq=shown, on_output=ReplayFilter(live.printed, printed.write))
        printed.end()
        console.outcome(out)
        state = await rt.execution(out["execution_id"])
        assert state is not None
        w("\nThe journal:\n")
        console.journal(state, revertible_calls(state, await rt.catalog()))
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
    args, command, values = _parse(argv)
    console = Console(args.json)
    _log_to_terminal()
    try:
        return asyncio.run(_command(args, command, values, console, ask))
    except (CodemodeError, LookupError, OSError) as exc:  # the library's hints, in this command's words
        sys.stderr.write(f"codemode: {quoted_block(door_text(str(exc), 'cli'))}\n")
        return 1
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\ncodemode: stopped\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
