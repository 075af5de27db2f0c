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
import contextlib
import dataclasses
import logging
import os
import shlex
import sqlite3
import sys
import tempfile
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

# As in the kernel: jsonschema's optional IRI format checker (rfc3987-syntax) compiles a grammar on
# first import (~2 s); argument validation uses no format checks, so the command goes without it.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

from codemode_kernel import codec
from codemode_kernel.building import STORE_ENV, runtime_for_folder
from codemode_kernel.bytes_text import json_with_bytes
from codemode_kernel.commands import COMMANDS, Command, door_text
from codemode_kernel.config import find_config, resolve_sqlite_url
from codemode_kernel.connector_traces import ConnectorTraces
from codemode_kernel.connectors.toolset import ToolSetConnector
from codemode_kernel.connectors.unavailable import named_in
from codemode_kernel.errors import (
    CodemodeError,
    InvalidStateError,
    RollbackError,
    UnknownExecutionError,
    UsageError,
)
from codemode_kernel.journal_files import existing_journal, sqlite_url
from codemode_kernel.kernel.output import ReplayFilter
from codemode_kernel.models import STEP_CONNECTOR, ExecutionState, PendingAction, Snippet, ToolLogEntry
from codemode_kernel.rollback_report import entry_state, unknown_calls, unknown_text
from codemode_kernel.runtime import CodemodeRuntime
from codemode_kernel.selection import resolve_execution, revertible_calls
from codemode_kernel.terminal import (
    GUTTER,
    ProgramOutput,
    TerminalFormatter,
    quoted_block,
    terminal_json,
    terminal_text,
)
from codemode_kernel.wording import sentence

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
once, decline rejects it); otherwise the paused outcome tells the model a person must approve with
`codemode approve ID` (which shows the call and asks) or, with --notebook, in that notebook.

Connectors run in the folder (--notebook: the notebook's), as in the kernel, so relative paths
in a table's options name the same files from every door.

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
        if command.name == "approve":  # a terminal's own option: a magic never asks
            sp.usage = f"{command.cli_usage()} [--yes]"
            sp.add_argument("--yes", action="store_true",
                            help="approve a model's pause without asking (for scripts); without it the call and "
                                 "its program are shown and the person answers")
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


def plain(value: Any, where: str = "the value") -> Any:
    """``value`` (as the runtime gives it) in plain JSON, as ``runtime.tool()`` and ``codemode mcp``
    give it (:func:`codec.to_json`): bytes as ``{"$bytes": ...}``, dates as ISO strings, tuples as
    lists. The journal codec's ``$codemode`` tags stay in the journal (review 15x M5)."""
    try:
        return codec.to_json(value, where)
    except codec.EncodeError:  # not a journal value (a transform_result's object): named, never repr()'d
        return f"<not JSON: {type(value).__name__}>"


def plain_record(record: Any) -> dict[str, Any]:
    """A record of :mod:`~codemode_kernel.models` (a dataclass of decoded values) as plain JSON."""
    return {f.name: ([plain_record(e) for e in record.log] if f.name == "log" and isinstance(record, ExecutionState)
                     else plain(getattr(record, f.name), f.name))
            for f in dataclasses.fields(record)}


def plain_outcome(out: dict[str, Any]) -> dict[str, Any]:
    """A runtime outcome in plain JSON; its pending actions' arguments come tagged (``to_dict()``)."""
    if "pending" in out:
        out = {**out, "pending": [{**p, "args": codec.decode(p["args"])} for p in out["pending"]]}
    return {k: plain(v, k) for k, v in out.items()}


@dataclasses.dataclass(frozen=True)
class Place:
    """Where a command works: the folder (the connectors' working directory), the notebook if one
    was named, whether the journal is the folder's own (no notebook, store or ``[store] url``), the
    working directory the command was started in, and the global options that reach this journal
    again from there (``--notebook X.ipynb``, ``--dir D``, ``--store <the same URL>`` or none)."""

    folder: Path
    notebook: Path | None
    folder_journal: bool
    started_in: Path
    options: str

    def command(self, words: str) -> str:
        """``codemode [OPTIONS] WORDS``: a command the person can type where they are."""
        return " ".join(filter(None, ["codemode", self.options, words]))


class Console:
    """Prints outcomes for people (or JSON for programs)."""

    def __init__(self, as_json: bool, out: TextIO | None = None, place: Place | None = None) -> None:
        self.as_json = as_json
        self.out = out if out is not None else sys.stdout
        self.place = place
        #: The configuration's problems, in this door's words (also written on stderr as the command starts).
        self.problems: list[str] = []

    def data(self, value: Any) -> None:
        """``value``, already plain JSON (:func:`plain`, :func:`plain_record`, :func:`plain_outcome`)."""
        self.out.write(terminal_json(value, indent=2) + "\n")

    def text(self, text: str) -> None:
        """A line (or block) the command writes, with hostile parts already passed through terminal_*."""
        self.out.write(text + "\n")

    def outcome(self, out: dict[str, Any]) -> None:
        shown = plain_outcome(out)
        if self.as_json:
            self.data(shown)
            return
        status = out["status"]
        self.text(f"[{status}] execution {terminal_text(str(out['execution_id']), multiline=False)}")
        if status == "completed":
            self.text(terminal_json(shown["result"], indent=2))
        elif status == "paused":
            for p in out["pending"]:  # decoded here: _call shows bytes as bytes
                call = _call(p["seq"], p["connector"], p["method"], codec.decode(p["args"]))
                self.text(f"  waiting for approval: {call}")
        else:
            self.text("  " + quoted_block(door_text(str(out["error"]), "cli")))

    def journal(self, state: ExecutionState, revertible: Sequence[ToolLogEntry], *, commands: bool = True) -> None:
        """An execution and its journal; ``revertible``: what a rollback would revert (``selection``'s rule).

        An entry whose outcome is unknown shows as ``unknown`` (review 15x H1). ``commands=False``
        leaves out the rollback command line (the demo's journal is reachable from its process only).
        """
        unknown = unknown_calls(state)
        if self.as_json:
            self.data({**plain_record(state), "can_rollback": bool(revertible), "revertible": len(revertible),
                       "unknown": [e.seq for e in unknown]})
            return
        self.text(f"execution {state.id}: {state.status}, {state.passes} pass(es)")
        for e in state.log:
            shown = (terminal_json(plain(e.result)) if e.result is not None
                     else terminal_text(e.error or "", multiline=False))
            if len(shown) > 80:
                shown = shown[:77] + "..."
            if e.connector == STEP_CONNECTOR:
                call = f"codemode.step({terminal_text(repr(e.method), multiline=False)})"
            else:
                call = (terminal_text(f"{e.connector}.{e.method}", multiline=False)
                        + f"({terminal_json(plain(e.args))})")
            self.text(f"  #{e.seq:<3} {entry_state(state, e):<9} pass {e.pass_number}  {call}  {shown}")
        if state.error:
            self.text("  error: " + quoted_block(state.error))
        for e in unknown:
            self.text("  " + quoted_block(unknown_text(e)))
        if revertible and commands:
            rollback = self.place.command(f"rollback {state.id}") if self.place else f"codemode rollback {state.id}"
            self.text(f"  can roll back: {terminal_text(rollback)} reverts {len(revertible)} call(s)")
        elif revertible:
            self.text(f"  can roll back: {len(revertible)} call(s)")


def _call(seq: Any, connector: Any, method: Any, args: Any) -> str:
    """``#SEQ connector.method({...})``: the call whole, every part inert. ``args`` are decoded (as the runtime
    gives them): JSON, with bytes as the card shows them (``b'%PDF\\n\\x00' (7 bytes)``, the first 200 of a
    longer value and its length), never base64 a person cannot read (s16o). Bytes written by Python's repr are
    ASCII with every other byte an escape: nothing in them reaches the terminal as a control character."""
    shown = json_with_bytes(args, lambda value: terminal_json(plain(value)))
    return f"#{seq} {terminal_text(f'{connector}.{method}', multiline=False)}({shown})"


async def _run_file(rt: CodemodeRuntime, console: Console, code: str, mode: str,
                    ask: Callable[[str], str], traces: ConnectorTraces | None = None) -> int:
    printed = ProgramOutput(console.out)
    # An approval runs the program again from the top: what the earlier pass printed is not printed
    # again, only what comes after it (as in the kernel; review 14x, noticed).
    live = ReplayFilter("", printed.write)
    out = await rt.execute(code, on_output=None if console.as_json else live)
    printed.end()
    eid = out["execution_id"]
    # With --json the command prints one document, the outcome it ends with (review 14x M1); every
    # pause is shown before its question all the same: in a terminal on stdout, with --json on stderr
    # beside the question (review 15 H3: a person never answers for a call they were not shown).
    while out["status"] == "paused":
        if mode == "no" or not console.as_json:
            console.outcome(out)
        elif mode == "ask":
            Console(False, sys.stderr).outcome(out)
        if mode == "no":
            return 0
        pending = out["pending"][0]
        call = terminal_text(f"{pending['connector']}.{pending['method']}", multiline=False)
        if mode != "yes":
            _say_answers(console)
        answer = "y" if mode == "yes" else _ask(ask, f"Approve {call}? [y/N] ", console)
        decision = _decision(answer)
        # Each decision names the call shown (its seq): another front end over the same journal may have
        # decided it while the person read the prompt, and a late answer must not decide a later call.
        if decision == "wait":  # as `codemode approve`'s N and `--approve no`: it waits (review 16x L7)
            if console.as_json:
                console.outcome(out)
            else:
                console.text(_still_waits(console, eid, pending["seq"], call))
            return 0
        if decision == "reject":
            if await rt.reject(eid, pending["seq"]):
                await _say_rejected(rt, console, eid, pending["seq"])
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
    if traces is not None and out["status"] == "error":
        # Where the author's own connector code raised, for the author at this terminal: never in the
        # program's error or the journal, and on stderr, so --json's stdout stays one document (16x M6).
        where = traces.shown_for(eid, str(out.get("error_type") or ""), str(out["error"]))
        if where:
            sys.stderr.write("codemode: " + quoted_block(where.rstrip("\n")) + "\n")
    return 0 if out["status"] == "completed" else 1


#: What each answer to an approval question does, said above the question in ``run`` and ``approve`` alike
#: (review 16x L7: Enter rejected the execution in ``run`` and left it waiting in ``approve``).
ANSWERS = "y approves it; r rejects it (the execution ends); n or Enter leaves it waiting."


def _say_answers(console: Console) -> None:
    """The answers' meanings, where the question is asked (stderr with ``--json``)."""
    screen = sys.stderr if console.as_json else console.out
    screen.write(f"  {ANSWERS}\n")
    screen.flush()


def _decision(answer: str) -> str:
    """``approve``, ``reject`` or ``wait`` for a person's answer (see :data:`ANSWERS`)."""
    said = answer.strip().lower()
    return "approve" if said in ("y", "yes") else "reject" if said in ("r", "reject") else "wait"


def _still_waits(console: Console, eid: str, seq: int, call: str) -> str:
    """``not approved: call #SEQ still waits``, with the commands that decide it later."""
    shown = terminal_text(eid, multiline=False)
    approve, reject = (console.place.command(f"{verb} {shown} {seq}") if console.place
                       else f"codemode {verb} {shown} {seq}" for verb in ("approve", "reject"))
    return (f"not approved: call #{seq} {call} still waits (`{terminal_text(approve)}` approves it, "
            f"`{terminal_text(reject)}` refuses it)")


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
    started_in = Path.cwd()
    notebook = args.notebook.resolve() if args.notebook is not None else None
    folder = notebook.parent if notebook is not None else (args.dir or started_in).resolve()
    # The connectors run in the folder, as the kernel runs in the notebook's (review 15x H2): a python
    # table's relative paths (options = { path = "data.sqlite" }) name the same file from every door, and
    # a rollback from another terminal folder does not revert on a new, empty file there. What the
    # person typed relative to their own folder is made absolute first: the program file, the store.
    if values.get("file") not in (None, "-"):
        values["file"] = str(started_in / values["file"])
    store = args.store or os.environ.get(STORE_ENV, "").strip() or None
    store = resolve_sqlite_url(store, started_in) if store is not None else None
    values["yes"] = bool(getattr(args, "yes", False))
    # A command that only reads leaves no empty journal behind where there was none (review 16x M7).
    default_journal = existing_journal(notebook, folder)
    fresh = None if default_journal.exists() else default_journal
    fresh_folder = not default_journal.parent.exists()
    os.chdir(folder)
    try:
        # An explicit --store that cannot open is an error, not another journal in its place (review 14x, M13).
        built = runtime_for_folder(folder, store=store, notebook=notebook, strict_store=args.store is not None)
        rt = built.runtime
        console.problems = [door_text(p, "cli") for p in built.problems]
        for p in console.problems:
            sys.stderr.write(f"configuration: {quoted_block(p)}\n")
        own = rt.store.sqlite_path
        console.place = Place(folder, notebook, notebook is None and own is not None
                              and own.resolve() == existing_journal(None, folder).resolve(), started_in,
                              _options(args, notebook, folder, started_in))
        if command.name == "mcp":
            return await _serve_mcp(args, rt, console.place)
        try:
            async with rt:
                if command.execution_argument is not None and values.get("execution") is not None:
                    values["execution"] = await _resolved(rt, values["execution"], command, console.place)
                return await _HANDLERS[command.name](rt, console, values, ask)
        finally:
            if fresh is not None and command.name != "run" and own is not None and own.resolve() == fresh.resolve():
                _drop_unused(fresh, fresh_folder)
    finally:
        with contextlib.suppress(OSError):  # embedded (tests, a host program): its folder is its own
            os.chdir(started_in)


async def _resolved(rt: CodemodeRuntime, token: str, command: Command, place: Place) -> str:
    """The execution ``token`` names; a ``last`` that names nothing in a folder's journal says which notebooks
    here keep a journal of their own, and which of them wait for a decision (review 16x M7)."""
    try:
        return await resolve_execution(rt, token, command.purpose)
    except UnknownExecutionError:
        raise
    except CodemodeError as exc:
        if token.strip() != "last" or not place.folder_journal or command.cli is None:
            raise
        hint = _notebooks_hint(place, f"{command.cli} last", paused_only=command.purpose in ("approve", "reject"))
        if not hint:
            raise
        raise CodemodeError(f"{exc} {hint}") from None


def _paused_in(journal: Path) -> int | None:
    """How many executions wait in the SQLite journal ``journal`` (read only), or None if it cannot be read."""
    try:
        # Read-write (never created): a read-only connection to a write-ahead journal leaves its -wal and -shm.
        conn = sqlite3.connect(f"file:{quote(str(journal))}?mode=rw", uri=True, timeout=1)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("SELECT COUNT(*) FROM codemode_executions WHERE status = 'paused'").fetchone()
        return int(row[0])
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def _notebooks_hint(place: Place | None, words: str, *, paused_only: bool = False) -> str:
    """For a command on a folder's own journal, where the notebooks here keep theirs, with the command that
    reaches one (``codemode --notebook a.ipynb WORDS``); '' when no notebook here has a journal. With
    ``paused_only`` (a decision), the notebooks whose journals hold a paused execution, or ''."""
    if place is None or not place.folder_journal:
        return ""
    used = [nb for nb in sorted(place.folder.glob("*.ipynb")) if existing_journal(nb, place.folder).exists()]
    waiting = [(nb, n) for nb in used[:50] if paused_only and (n := _paused_in(existing_journal(nb, place.folder)))]

    def command(nb: Path) -> str:
        shown = _shown_path(nb, place.started_in)
        return terminal_text(Place(place.folder, nb, False, place.started_in, f"--notebook {shown}").command(words))

    if paused_only:
        if not waiting:
            return ""
        said = "; ".join(f"{terminal_text(nb.name, multiline=False)} has {n} paused execution(s): "
                         f"`{command(nb)}`" for nb, n in waiting[:5])
        more = f"; and {len(waiting) - 5} more notebook(s)" if len(waiting) > 5 else ""
        return f"Each notebook keeps its own journal: {said}{more}."
    if not used:
        return ""
    names = ", ".join(terminal_text(nb.name, multiline=False) for nb in used[:10])
    names += f" and {len(used) - 10} more" if len(used) > 10 else ""
    return (f"Each notebook keeps its own journal: `{command(used[0])}` works on that notebook's (notebooks here "
            f"with a journal: {names}).")


def _drop_unused(journal: Path, made_folder: bool) -> None:
    """Remove the journal file this command created, if it holds no execution and no snippet and no other
    program has it open (SQLite leaves write-ahead mode only for a sole connection; then it is removed under
    an exclusive lock, as journal_files.move_journal moves one), and the ``.codemode`` folder it made."""
    try:
        conn = sqlite3.connect(journal, timeout=0, isolation_level=None)
    except sqlite3.Error:
        return
    try:
        if str(conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]).lower() != "delete":
            return
        conn.execute("BEGIN EXCLUSIVE")
        try:
            used = sum(int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
                       for table in ("codemode_executions", "codemode_snippets"))
            if used == 0:
                journal.unlink()
        finally:
            conn.execute("COMMIT")
    except (sqlite3.Error, OSError):
        return
    finally:
        conn.close()
    if journal.exists():
        return
    for side in ("-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            Path(str(journal) + side).unlink()
    if made_folder:
        with contextlib.suppress(OSError):
            journal.parent.rmdir()  # only if empty


def _options(args: argparse.Namespace, notebook: Path | None, folder: Path, started_in: Path) -> str:
    """The global options that reach this journal and configuration again, as typed from ``started_in``
    (a store URL is never repeated: it may hold a password)."""
    parts = []
    if notebook is not None:
        parts.append(f"--notebook {_shown_path(notebook, started_in)}")
    elif folder != started_in.resolve():
        parts.append(f"--dir {_shown_path(folder, started_in)}")
    if args.store is not None:
        parts.append("--store <the same URL>")
    return " ".join(parts)


def _shown_path(path: Path, started_in: Path) -> str:
    """``path`` as the person types it from ``started_in``: relative below it, else absolute; quoted."""
    try:
        return shlex.quote(str(path.relative_to(started_in.resolve())))
    except ValueError:
        return shlex.quote(str(path))


async def _serve_mcp(args: argparse.Namespace, rt: CodemodeRuntime, place: Place) -> int:
    """``codemode mcp``: stdio, or streamable HTTP with ``--http``; the journal is named on stderr."""
    def say(text: str) -> None:
        sys.stderr.write(f"codemode mcp: {terminal_text(text, multiline=False)}\n")
        sys.stderr.flush()

    say(f"journal {rt.store.where} (runtime {rt.name!r})")
    options: dict[str, Any] = {"approvals_mode": args.approvals, "approve_hint": _approve_hint(args, place.folder),
                               "details_hint": _details_hint(args, place.folder)}
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


def _details_hint(args: argparse.Namespace, folder: Path) -> str:
    """Where the person sees why a connector is unavailable, for the model (review 16x L4): this server's
    notebook (``%connectors`` in it), else its folder's configuration (``codemode --dir F connectors``)."""
    if args.notebook is not None:
        notebook = shlex.quote(str(args.notebook.resolve()))
        return (f"the person can see the details with %connectors in the notebook {notebook}, or with "
                f"`codemode --notebook {notebook} connectors` in a terminal")
    return f"the person can see the details with `codemode --dir {shlex.quote(str(folder))} connectors`"


def _approve_hint(args: argparse.Namespace, folder: Path | None = None) -> str:
    """Where a person approves, for the model: only doors that reach this server's journal, with absolute
    paths (the person's terminal is not the agent host's folder), never the store URL (review 15x M6)."""
    folder = folder if folder is not None else (args.dir or Path.cwd()).resolve()
    asks = "which shows the call and asks"
    if args.store is not None:
        return (f"The person approves it from a terminal with `codemode --store <the same URL> approve ID` in "
                f"{shlex.quote(str(folder))} ({asks}; `reject` refuses it).")
    if args.notebook is not None:
        notebook = args.notebook.resolve()
        return (f"The person approves it in the Code Mode panel of the notebook {shlex.quote(str(notebook))}, "
                f"with `%approve ID` in that notebook, or from a terminal with `codemode --notebook "
                f"{shlex.quote(str(notebook))} approve ID` ({asks}; `reject` refuses it).")
    return (f"The person approves it from a terminal with `codemode --dir {shlex.quote(str(folder))} approve ID` "
            f"({asks}; `reject` refuses it).")


async def _run(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    code = sys.stdin.read() if v["file"] == "-" else Path(v["file"]).read_text(encoding="utf-8")
    # The frames of the author's files (the folder's python connectors), as the kernel shows them.
    folder = console.place.folder if console.place is not None else Path.cwd()
    source = find_config(folder)  # the configuration's folder, where its modules live (maybe a parent)
    traces = ConnectorTraces(lambda: (folder, *((source.parent,) if source is not None else ())))
    traces.start()
    try:
        rc = await _run_file(rt, console, code, v["approve"], ask, traces)
    finally:
        traces.close()
    # The runtime's note names an unavailable connector with a short reason meant for a model; the
    # person at this terminal is the configuration's author and is told the whole reason (review 15x M14).
    for name, why in sorted((await rt.catalog()).unavailable.items()):
        if named_in(code, name):
            sys.stderr.write(f"codemode: connector {name!r} is unavailable: {quoted_block(sentence(why))}\n")
    return rc


async def _executions(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    states = await rt.executions(limit=v["limit"])
    if console.as_json:
        console.data([plain_record(s) for s in states])
        return 0
    for s in states:
        first = terminal_text((s.code.strip().split("\n") or [""])[0][:60], multiline=False)
        console.text(f"{s.id}  {s.status:<11} {len(s.log):>3} calls  {first}")
    if not states:
        console.text(_no_executions(rt, console.place))
    return 0


def _no_executions(rt: CodemodeRuntime, place: Place | None) -> str:
    """An empty journal, said, and where a folder's notebooks keep theirs (review 15x M4)."""
    where = terminal_text(rt.store.where, multiline=False)
    if place is None or not place.folder_journal:
        return f"No executions in the journal {where}."
    notebooks = sorted(place.folder.glob("*.ipynb"))
    text = f"No executions in this folder's journal ({where})."
    if not notebooks:
        return text
    used = [nb for nb in notebooks if existing_journal(nb, place.folder).exists()]
    listed = used or notebooks
    names = ", ".join(terminal_text(nb.name, multiline=False) for nb in listed[:10])
    names += f" and {len(listed) - 10} more" if len(listed) > 10 else ""
    example = Place(place.folder, listed[0], False, place.started_in,
                    f"--notebook {_shown_path(listed[0], place.started_in)}")
    return (f"{text} Each notebook keeps its own journal: {terminal_text(example.command('executions'))} "
            f"lists that notebook's (notebooks here{' with a journal' if used else ''}: {names}).")


async def _show(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    if v.get("page", 1) != 1 or v.get("all"):  # the options %journal pages a long journal with (commands.py)
        raise UsageError("codemode show prints every call; --page and --all are for %journal in a notebook.")
    state = await rt.execution(v["execution"])
    if state is None:
        raise CodemodeError(f"no execution {v['execution']!r}")  # escaped where it is printed, in main()
    console.journal(state, revertible_calls(state, await rt.catalog()))
    return 0


async def _pending(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    waiting = await rt.pending(v["execution"])
    if console.as_json:
        console.data([plain_record(p) for p in waiting])
    elif not waiting:
        # A folder's journal: a notebook's cell here may wait in the notebook's own journal (review 16x M7).
        hint = "" if v["execution"] is not None else _notebooks_hint(console.place, "pending", paused_only=True)
        console.text(f"Nothing is waiting for approval in this folder's journal. {hint}" if hint
                     else "Nothing is waiting for approval.")
    for p in [] if console.as_json else waiting:
        eid = terminal_text(p.execution_id, multiline=False)
        console.text(f"{eid}  {_call(p.seq, p.connector, p.method, p.args)}")
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
    if shown:
        state = await rt.execution(eid)
        # A model's pause (``codemode mcp``, runtime.tool()) reaches this command with the model's own
        # account of it: the call is shown whole, with the program, and the person answers (review 15
        # H4); ``--yes`` is for scripts. A person's own pause is shown and approved, as before.
        if state is not None and state.via_tool and not v.get("yes"):
            decision = _asked_to_approve(console, state, shown[0], ask)
            if decision == "reject":
                if await rt.reject(eid, seq):
                    await _say_rejected(rt, console, eid, seq)
                    return 0
                console.outcome(await _nothing_waits(rt, eid))
                return 1
            if decision != "approve":
                return 1
        elif not console.as_json:
            call = terminal_text(f"{shown[0].connector}.{shown[0].method}", multiline=False)
            console.text(f"approving call #{seq} {call}")
            console.text(f"  arguments: {terminal_json(plain(shown[0].args))}")
    out = await rt.approve(eid, seq=seq)
    console.outcome(out)
    return 0 if out["status"] != "error" else 1


def _asked_to_approve(console: Console, state: ExecutionState, call: PendingAction, ask: Callable[[str], str]) -> str:
    """Show a model's paused call whole (its arguments uncut, the program behind the gutter) and ask;
    with ``--json`` on stderr, so stdout stays one document. The decision (:func:`_decision`); ``wait`` is
    said here."""
    screen = Console(False, sys.stderr if console.as_json else console.out)
    eid = terminal_text(state.id, multiline=False)
    # The program first and the call last, right above the question: a long program cannot push the
    # call out of sight.
    screen.text(f"Execution {eid} was started by a model (the `codemode` tool). Its program (approved, it runs on "
                "from the top; earlier calls are replayed, not run again):")
    screen.text("\n".join("  " + GUTTER + terminal_text(line, multiline=False)
                          for line in state.code.rstrip("\n").split("\n")))
    screen.text(f"It waits for approval of call {_call(call.seq, call.connector, call.method, call.args)}")
    screen.out.flush()
    name = terminal_text(f"{call.connector}.{call.method}", multiline=False)
    _say_answers(console)
    try:
        answer = _ask(ask, f"Approve call #{call.seq} {name}? [y/N] ", console)
    except EOFError:
        answer = ""
        screen.text("\n(no answer: standard input is closed; `--yes` approves without asking)")
    decision = _decision(answer)
    if decision != "wait":
        return decision
    if console.as_json:
        console.data({"execution_id": state.id, "approved": False, "seq": call.seq})
    else:
        console.text(_still_waits(console, state.id, call.seq, name))
    return decision


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
    if ok:
        await _say_rejected(rt, console, eid, seq)
    elif console.as_json:  # one document a script can read (review 14x M1)
        console.data({"execution_id": eid, "rejected": False, "seq": seq})
    else:
        console.text("not rejected: the execution is not paused at that call")
    return 0 if ok else 1


async def _say_rejected(rt: CodemodeRuntime, console: Console, eid: str, seq: int | None) -> None:
    """A rejection, and the calls that ran before it and stay applied (a rejection undoes nothing), with
    what a rollback would revert of them (review 15x L12). ``--json``: ``{"execution_id", "status",
    "rejected": true, "seq", "applied": [seq, ...]}``."""
    state = await rt.execution(eid)
    applied = [e for e in (state.log if state is not None else [])
               if e.state == "applied" and e.connector != STEP_CONNECTOR]
    if console.as_json:
        console.data({"execution_id": eid, "status": state.status if state else "rejected", "rejected": True,
                      "seq": seq, "applied": [e.seq for e in applied]})
        return
    console.text(f"rejected: call #{seq} was not run, and the execution ended.")
    if not applied or state is None:
        return
    calls = ", ".join(f"#{e.seq} " + terminal_text(f"{e.connector}.{e.method}", multiline=False) for e in applied)
    revertible = revertible_calls(state, await rt.catalog())
    if revertible:
        rollback = console.place.command(f"rollback {eid}") if console.place else f"codemode rollback {eid}"
        undo = (f"`{terminal_text(rollback)}` reverts " + ", ".join(f"#{e.seq}" for e in reversed(revertible))
                + ("" if len(revertible) == len(applied) else " (the others have no revert)") + ".")
    else:
        undo = "None of them has a revert: undo them by hand if you need to."
    console.text(f"  Call(s) {calls} ran before it and stay applied (a rejection undoes nothing). {undo}")


async def _rollback(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    """Revert and say what was reverted, or that nothing could be (as the kernel's %rollback), and name
    every call whose outcome is unknown: never reverted, it may have been done (review 15x H1).
    ``--json``: one document, ``{"execution_id", "status", "reverted": [seq, ...], "unknown": [seq, ...]}``
    (review 14x M1); a revert that failed adds ``"error"`` (and the command fails, the message on stderr)."""
    eid = v["execution"]
    before = await rt.execution(eid)
    already = {e.seq for e in before.log if e.state == "reverted"} if before is not None else set()
    failed: RollbackError | None = None
    try:
        await rt.rollback(eid)
    except RollbackError as exc:  # every revert was tried: what was reverted is said all the same
        failed = exc
    state = await rt.execution(eid)
    reverted = [e for e in (state.log if state is not None else []) if e.state == "reverted" and e.seq not in already]
    unknown = unknown_calls(state) if state is not None else []
    status = state.status if state is not None else "deleted"
    if console.as_json:
        console.data({"execution_id": eid, "status": status, "reverted": [e.seq for e in reverted],
                      "unknown": [e.seq for e in unknown], **({"error": str(failed)} if failed else {})})
    else:
        shown = terminal_text(eid, multiline=False)
        if reverted:
            calls = ", ".join(terminal_text(f"{e.connector}.{e.method}", multiline=False) + f" (call #{e.seq})"
                              for e in reverted)
            console.text(f"{shown}: {status}; rolled back {len(reverted)} action(s): {calls}.")
        elif unknown or failed:
            console.text(f"{shown}: {status}. No action was reverted.")
        else:
            console.text(f"{shown}: {status}. Nothing to roll back: no applied action of this execution can be "
                         "reverted.")
        for e in unknown:
            console.text("  " + quoted_block(unknown_text(e)))
    if failed is None:
        return 0
    if console.as_json:  # the document above says it; the reason goes to stderr too
        sys.stderr.write(f"codemode: {quoted_block(str(failed))}\n")
        return 1
    raise failed


async def _search(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    found = await rt.search(v["query"])
    if console.as_json:
        console.data(found.to_dict())
        return 0
    # Text, as %search's table (review 15x, noticed: JSON without --json); --json is the machine form.
    for r in found.results:
        path = r.path if r.kind == "method" else f"codemode.run({r.path!r}, input)"
        summary = (r.description.strip().splitlines() or [""])[0][:100]
        needs = "  (needs approval)" if r.requires_approval else ""
        console.text(terminal_text(f"{path}{needs}  {summary}  [{r.score:.2f}]", multiline=False))
    if not found.results:
        console.text(f"Nothing matches {terminal_text(repr(v['query']), multiline=False)}. `codemode connectors` "
                     "lists every connector's methods.")
    elif found.truncated:
        console.text(f"({found.total} match(es), showing {len(found.results)})")
    return 0


async def _describe(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    # A connector that is configured but could not be loaded is not "nothing named": say why (review 15x M14).
    name = str(v["target"]).split(".")[0]
    try:
        d = await rt.describe(v["target"], full=bool(v.get("full")), page=v.get("page") or 1)
    except LookupError:
        if name not in (await rt.catalog()).unavailable:
            raise
        d = None
    missing = d is None or d.kind == "not_found"
    why = (await rt.catalog()).unavailable.get(name) if missing else None
    said = f"connector {name!r} is unavailable: {sentence(why)}" if why else None
    if console.as_json:
        console.data({**(d.to_dict() if d is not None else {}), **({"error": said} if said else {})})
    elif said:
        console.text(quoted_block(said, indent=""))
    elif d is not None:  # the answer's hints are written for a program: here they name this command (review 14x M3)
        console.out.write(terminal_text(door_text(d.types, "cli", path=d.path)).rstrip("\n") + "\n")
    return 1 if missing else 0


async def _connectors(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    """The connectors, their methods and those that need approval, and why any is unavailable (as %connectors).

    ``--json``: ``{"connectors", "unavailable", "problems", "journal"}``; ``problems`` holds the configuration's
    problems (a table it refused is in neither of the first two: review 16x, M2)."""
    catalog = await rt.catalog()
    usable = {name: {"methods": sorted(methods),
                     "requires_approval": sorted(n for n, m in methods.items() if m.tool.requires_approval)}
              for name, methods in sorted(catalog.methods.items())}
    unavailable = {name: sentence(why) for name, why in sorted(catalog.unavailable.items())}
    if console.as_json:
        console.data({"connectors": usable, "unavailable": unavailable, "problems": console.problems,
                      "journal": rt.store.where})
        return 0
    for name, about in usable.items():
        methods = about["methods"]
        listed = ", ".join(methods[:12]) + (f", ... ({len(methods)} in all)" if len(methods) > 12 else "")
        needs = ", ".join(about["requires_approval"]) or "none"
        console.text(terminal_text(f"{name}: {listed} (needs approval: {needs})", multiline=False))
    if not usable and not unavailable:  # a file that failed to parse (or tables refused) is not "no tables" (16x M5)
        console.text("No connector loaded: see the configuration's problems above (configuration: ...)."
                     if console.problems else "No connectors: add a [connectors.NAME] table to codemode.toml.")
    for name, why in unavailable.items():
        console.text(quoted_block(f"{name}: unavailable: {why}", indent=""))
    console.text(f"journal: {terminal_text(rt.store.where, multiline=False)}")
    return 0


async def _snippets(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    saved = await rt.snippets()
    if console.as_json:
        console.data([plain_record(s) for s in saved])
        return 0
    if not saved:
        console.text("No snippets saved. `codemode save-snippet NAME [ID|last]` saves a completed execution's code.")
    for snippet in saved:
        console.text(_snippet_line(snippet))
    return 0


def _snippet_line(snippet: Snippet) -> str:
    """``name  saved 2026-12-07 18:40  connectors  description``, every part inert."""
    when = datetime.fromtimestamp(snippet.saved_at / 1000).strftime("%Y-%m-%d %H:%M") if snippet.saved_at else "?"
    uses = ", ".join(snippet.connectors) or "no connectors"
    parts = [snippet.name, f"saved {when}", f"uses {uses}", snippet.description.strip().split("\n")[0][:100]]
    return "  ".join(terminal_text(p, multiline=False) for p in parts if p)


async def _save_snippet(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    """Save, and say it in words as %snippet save does (review 16x L8); ``--json``: the snippet's record."""
    before = next((s for s in await rt.snippets() if s.name == v["name"]), None)
    saved = await rt.save_snippet(v["name"], execution_id=v["execution"], description=v["description"])
    if console.as_json:
        console.data(plain_record(saved))
        return 0
    name = terminal_text(repr(saved.name), multiline=False)
    eid = terminal_text(str(saved.execution_id or v["execution"]), multiline=False)
    if before is not None:
        was = terminal_text(f"execution {before.execution_id}" if before.execution_id else "an earlier execution",
                            multiline=False)
        said = f"Replaced snippet {name} (it was from {was}) with execution {eid}'s code."
    else:
        said = f"Saved snippet {name} from execution {eid}."
    uses = terminal_text(", ".join(saved.connectors), multiline=False) or "no connector"
    console.text(f"{said} It uses {uses}. A program runs it with codemode.run({name}, input) (the code sees the "
                 "value as `input`); `codemode snippets` lists the snippets.")
    return 0


async def _expire(rt: CodemodeRuntime, console: Console, v: dict[str, Any], ask: Callable[[str], str]) -> int:
    """End the executions paused (rejected) or running (failed) for longer than the age, and name them in words
    (review 16x L8); ``--json``: the list of their ids."""
    expired = await rt.expire_paused(v["age"])
    if console.as_json:
        console.data(expired)
        return 0
    age = _age_words(v["age"])
    if not expired:
        console.text(f"Nothing expired: no execution has waited for approval or run for more than {age}.")
        return 0
    console.text(f"Expired {len(expired)} execution(s) older than {age} (a paused one is rejected, a running one "
                 "ends in an error; calls already made stay done):")
    for eid in expired:
        console.text("  " + terminal_text(eid, multiline=False))
    return 0


def _age_words(age: timedelta) -> str:
    """``1d 2h``, ``30m``, ``45s``: an age as the command's argument spells it."""
    seconds = int(age.total_seconds())
    parts = [f"{n}{unit}" for n, unit in ((seconds // 86400, "d"), (seconds % 86400 // 3600, "h"),
                                          (seconds % 3600 // 60, "m"), (seconds % 60, "s")) if n]
    return " ".join(parts) or "0s"


Handler = Callable[[CodemodeRuntime, Console, dict[str, Any], Callable[[str], str]], Awaitable[int]]

#: What each command does in a terminal, by command name (its arguments are in the table).
_HANDLERS: dict[str, Handler] = {
    "run": _run, "executions": _executions, "journal": _show, "pending": _pending, "approve": _approve,
    "reject": _reject, "rollback": _rollback, "search": _search, "describe": _describe, "snippets": _snippets,
    "save_snippet": _save_snippet, "expire": _expire, "connectors": _connectors,
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
        # No command lines: the demo's journal and its notes connector live in this process only, so a
        # `codemode rollback ID` typed afterwards would find neither (review 15x L3); the question does it.
        console.journal(state, revertible_calls(state, await rt.catalog()), commands=False)
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
        message = door_text(str(exc), "cli")
        sys.stderr.write(f"codemode: {quoted_block(message)}\n")
        if args.json:  # a script still reads one document, the reason in it (review 15x L8)
            console.data({"error": message, "error_type": type(exc).__name__})
        return 1
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\ncodemode: stopped\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
