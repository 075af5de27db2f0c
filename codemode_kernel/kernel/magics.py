"""Magics: the whole runtime API from cells, so a notebook also works headless.

A cell is either Code Mode Python, a ``%%host`` cell, ``target?`` help, or one or more
line magics (one per line). Each magic answers with a table or text in the cell; a failed
magic is a Jupyter error (so ``nbclient`` stops on it like on a failed cell).
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from codemode_kernel.errors import CodemodeError
from codemode_kernel.kernel.display import (
    cell_text,
    code_bundle,
    error_parts,
    error_traceback,
    json_text,
    plain_text,
    result_bundle,
    table_bundle,
)
from codemode_kernel.kernel.output import RecordingSink, Sink
from codemode_kernel.kernel.session import CellOutcome, NotebookSession
from codemode_kernel.models import STEP_CONNECTOR

_DOTTED = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")
_EXECUTION_REF = re.compile(r"^(last|[0-9A-HJKMNP-TV-Z]{6,26})$")
_AGE = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw]?)$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks", "": "hours"}


@dataclass(frozen=True)
class Cell:
    """What kind of cell the source is: ``code``, ``host``, ``magics``, ``help`` or ``invalid``."""

    kind: str
    body: str = ""
    lines: tuple[str, ...] = ()


def classify(source: str) -> Cell:
    """Tell Code Mode Python from magics, ``%%host`` cells and ``name?`` help."""
    stripped = source.strip()
    if stripped.startswith("%%"):
        first, _, body = stripped.partition("\n")
        if first.split()[0] == "%%host":
            return Cell("host", body)
        return Cell("invalid", f"Unknown cell magic {first.split()[0]!r}; the only cell magic is %%host "
                               "(trusted host Python). %help lists the line magics.")
    lines = [ln.strip() for ln in stripped.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if not lines:
        return Cell("code", source)
    if len(lines) == 1 and not lines[0].startswith("%"):
        target = lines[0].strip("?").strip()
        if (lines[0].endswith("?") or lines[0].startswith("?")) and _DOTTED.match(target):
            return Cell("help", target)
    magic = [ln for ln in lines if ln.startswith("%")]
    if not magic:
        return Cell("code", source)
    if len(magic) == len(lines):
        return Cell("magics", lines=tuple(magic))
    try:
        ast.parse(source)
    except SyntaxError:
        return Cell("invalid", f"{magic[0].split()[0]} is a magic: put magics in a cell of their own, without "
                               "Code Mode Python (%help lists them).")
    return Cell("code", source)


Handler = Callable[["Magics", list[str], str, Sink], Awaitable[CellOutcome | None]]


@dataclass(frozen=True)
class Magic:
    usage: str
    help: str
    run: Handler


class Magics:
    """Runs line magics against a :class:`NotebookSession`."""

    def __init__(self, session: NotebookSession) -> None:
        self.session = session

    async def run_lines(self, lines: tuple[str, ...] | list[str], sink: Sink) -> CellOutcome:
        """Run each magic line in order; stop at the first failure."""
        for line in lines:
            outcome = await self.run_line(line, sink)
            if outcome.status == "error":
                return outcome
        return CellOutcome()

    async def run_line(self, line: str, sink: Sink) -> CellOutcome:
        name, _, rest = line.strip().lstrip("%").partition(" ")
        magic = MAGICS.get(name)
        if magic is None:
            close = [m for m in MAGICS if m.startswith(name[:2])] if name else []
            hint = f" Did you mean {', '.join('%' + m for m in close)}?" if close else ""
            return _fail(sink, "UsageError", f"Unknown magic %{name}.{hint} %help lists the magics.")
        try:
            args = shlex.split(rest)
        except ValueError as exc:
            return _fail(sink, "UsageError", f"%{name}: {exc}. Usage: {magic.usage}")
        try:
            outcome = await magic.run(self, args, rest.strip(), sink)
        except _Usage as exc:
            return _fail(sink, "UsageError", f"{exc} Usage: {magic.usage}")
        except (CodemodeError, LookupError) as exc:
            return _fail(sink, type(exc).__name__, str(exc).strip("'\""))
        return outcome or CellOutcome()

    async def help_target(self, target: str, sink: Sink) -> CellOutcome:
        """``github.list_pull_requests?``: ``%describe``, shown in the pager as IPython does."""
        captured = RecordingSink()
        outcome = await self.run_line(f"%describe {target}", captured)
        if outcome.status == "error":
            ename, evalue, tb = captured.outputs[-1][1]
            sink.error(ename, evalue, tb)
            return outcome
        bundle = next(value for kind, value in captured.outputs if kind == "display")
        return CellOutcome(payload=[{"source": "page", "data": bundle, "start": 0}])


class _Usage(Exception):
    pass


def _fail(sink: Sink, ename: str, evalue: str) -> CellOutcome:
    tb = error_traceback(ename, evalue, code=None, line=None, count=None)
    sink.error(ename, evalue, tb)
    return CellOutcome.failed(ename, evalue, tb)


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S") if ms else ""


def _first_line(code: str, width: int = 60) -> str:
    for line in code.splitlines():
        if line.strip() and not line.strip().startswith("#"):
            text = line.strip()
            return text if len(text) <= width else text[: width - 1] + "…"
    return ""


def _arg(args: list[str], i: int, what: str) -> str:
    if len(args) <= i:
        raise _Usage(f"Missing {what}.")
    return args[i]


def _no_more(args: list[str], n: int) -> None:
    if len(args) > n:
        raise _Usage(f"Unexpected {' '.join(args[n:])!r}.")


# ---------------------------------------------------------------------------------------
# The magics


async def _help(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    rows = [[f"%{name}" if not name.startswith("%") else name, magic.usage.split(" ", 1)[1]
             if " " in magic.usage else "", magic.help] for name, magic in MAGICS.items()]
    rows.append(["%%host", "", "Run trusted host Python (first line of a cell); connect(connector) adds a "
                               "connector, disconnect(name) removes it; runtime and session are defined."])
    rows.append(["name?", "", "Same as %describe name (e.g. github.list_pull_requests?)."])
    bundle = table_bundle(["magic", "arguments", "what it does"], rows)
    bundle["text/plain"] = ("Code Mode magics (every cell without them is a durable Code Mode pass):\n"
                            + bundle["text/plain"])
    sink.display(bundle)


async def _connectors(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    _no_more(args, 0)
    session = m.session
    catalog = await session.runtime.catalog()
    kinds = {c.name: "python" for c in session.config.connectors}
    for c in session.config.connectors:
        kind = type(getattr(c, "inner", c)).__name__
        kinds[c.name] = {"McpConnector": "mcp", "OpenApiConnector": "openapi"}.get(kind, "python")
    kinds.update({n: "host (connect)" for n in session.host_connectors})
    rows = []
    for name, methods in sorted(catalog.methods.items()):
        approval = sorted(n for n, meth in methods.items() if meth.tool.requires_approval)
        names = sorted(methods)
        listed = ", ".join(names[:12]) + (f", … ({len(names)} in all)" if len(names) > 12 else "")
        rows.append([name, kinds.get(name, "python"), listed, ", ".join(approval) or "—",
                     session.config.hints.get(name, "")])
    sink.display(table_bundle(["connector", "kind", "methods", "needs approval", "hint"], rows,
                              empty="No connectors are configured: add a codemode.toml beside the notebook, or "
                                    "connect(...) one in a %%host cell."))
    lines = [f"Configuration: {session.config.label}", f"Store: {session.store_url}"]
    sink.stream("\n".join(lines) + "\n")
    problems = [str(p) for p in session.config.problems] + session.runtime_problems
    problems += [f"connector {n!r} is unavailable: {reason}" for n, reason in sorted(catalog.unavailable.items())]
    if problems:
        sink.stream("Problems:\n" + "".join(f"  {p}\n" for p in problems), "stderr")


async def _search(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    if not raw:
        raise _Usage("Say what you are looking for.")
    found = await m.session.runtime.search(raw)
    rows = [[r.path if r.kind == "method" else f"codemode.run({r.path!r}, …)", r.kind,
             "yes" if r.requires_approval else "", (r.description.strip().splitlines() or [""])[0],
             f"{r.score:.2f}"] for r in found.results]
    caption = f"{found.total} match(es)" + (f", showing {len(rows)}" if found.truncated else "")
    sink.display(table_bundle(["path", "kind", "approval", "description", "score"], rows, caption=caption,
                              empty=f"Nothing matches {raw!r}. %connectors lists every method."))


async def _describe(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    target = _arg(args, 0, "a connector, connector.method or snippet name")
    _no_more(args, 1)
    out = await m.session.runtime.describe(target)
    title = f"{out.kind} {out.path}" + (" — requires approval" if out.requires_approval else "")
    sink.display(code_bundle(out.types, title=title))


async def _executions(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    limit = _int(args[0], "N") if args else 20
    _no_more(args, 1)
    states = await m.session.runtime.executions(limit=limit)
    rows = [[s.id, s.status, _when(s.created_at), s.passes, len([e for e in s.log if e.connector != STEP_CONNECTOR]),
             _first_line(s.code)] for s in states]
    sink.display(table_bundle(["id", "status", "created", "passes", "calls", "code"], rows,
                              empty="No executions yet: run a cell."))


async def _journal(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    eid = await m.session.resolve(_arg(args, 0, "an execution id (or last)"), "journal")
    _no_more(args, 1)
    state = await m.session.runtime.execution(eid)
    if state is None:
        raise CodemodeError(f"No execution {eid!r}. %executions lists them.")
    head = [f"Execution {state.id}: {state.status}, {state.passes} pass(es), created {_when(state.created_at)}",
            f"Connectors: {', '.join(state.connectors) or '(none)'}"]
    if state.error:
        head.append(f"Error: {state.error}")
    sink.stream("\n".join(head) + "\n")
    sink.display(code_bundle(state.code))
    rows = [[e.seq, e.path if e.connector != STEP_CONNECTOR else f"step {e.method!r}", cell_text(e.args),
             e.error or cell_text(e.result), e.state, e.pass_number] for e in state.log]
    sink.display(table_bundle(["seq", "call", "args", "result", "state", "pass"], rows,
                              empty="No connector calls or steps."))
    if state.status in ("completed", "rolled_back") and state.result is not None:
        sink.display(result_bundle(state.result))


async def _pending(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    eid = await m.session.resolve(args[0], "approve") if args else None
    _no_more(args, 1)
    actions = await m.session.runtime.pending(eid)
    rows = [[a.execution_id, a.seq, f"{a.connector}.{a.method}", json_text(a.args, indent=None)] for a in actions]
    bundle = table_bundle(["execution", "seq", "call", "args"], rows, empty="Nothing is waiting for approval.")
    if actions:
        bundle["text/plain"] += "\nApprove with %approve <execution> (or last); reject with %reject <execution>."
    sink.display(bundle)


async def _approve(m: Magics, args: list[str], raw: str, sink: Sink) -> CellOutcome:
    eid = await m.session.resolve(_arg(args, 0, "an execution id (or last)"), "approve")
    _no_more(args, 1)
    out = await m.session.approve(eid, origin=sink)
    if out.get("status") == "error":
        ename, evalue, _ = error_parts(out)
        return CellOutcome.failed(ename, evalue, execution_id=eid)
    return CellOutcome(execution_id=eid)


async def _reject(m: Magics, args: list[str], raw: str, sink: Sink) -> CellOutcome:
    eid = await m.session.resolve(_arg(args, 0, "an execution id (or last)"), "reject")
    seq = _int(args[1], "SEQ") if len(args) > 1 else None
    _no_more(args, 2)
    if await m.session.reject(eid, seq, origin=sink):
        return CellOutcome(execution_id=eid)
    return CellOutcome.failed("InvalidStateError", f"execution {eid} was not rejected", execution_id=eid)


async def _rollback(m: Magics, args: list[str], raw: str, sink: Sink) -> CellOutcome:
    eid = await m.session.resolve(_arg(args, 0, "an execution id (or last)"), "rollback")
    _no_more(args, 1)
    try:
        await m.session.rollback(eid, origin=sink)
    except CodemodeError as exc:
        return CellOutcome.failed(type(exc).__name__, str(exc), execution_id=eid)  # already shown
    return CellOutcome(execution_id=eid)


async def _snippet(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    action = _arg(args, 0, "save, delete or show")
    name = _arg(args, 1, "the snippet name")
    session = m.session
    if action == "save":
        rest = args[2:]
        ref = "last"
        if rest and _EXECUTION_REF.match(rest[0]):
            ref, rest = rest[0], rest[1:]
        eid = await session.resolve(ref, "snippet")
        snippet = await session.save_snippet(name, eid, " ".join(rest))
        sink.stream(f"Saved snippet {snippet.name!r} from execution {eid}. Run it in a cell with "
                    f"codemode.run({snippet.name!r}, input); the code sees the value as `input`.\n")
    elif action == "delete":
        _no_more(args, 2)
        if not await session.runtime.delete_snippet(name):
            raise CodemodeError(f"No snippet named {name!r}. %snippets lists them.")
        session.notify("snippets_changed", None)
        sink.stream(f"Deleted snippet {name!r}.\n")
    elif action == "show":
        _no_more(args, 2)
        for s in await session.runtime.snippets():
            if s.name == name:
                sink.display(code_bundle(s.code, title=f"snippet {s.name}: {s.description}".rstrip(": ")))
                return
        raise CodemodeError(f"No snippet named {name!r}. %snippets lists them.")
    else:
        raise _Usage(f"Unknown action {action!r}.")


async def _snippets(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    _no_more(args, 0)
    rows = [[s.name, s.description, ", ".join(s.connectors), _when(s.saved_at), _first_line(s.code)]
            for s in await m.session.runtime.snippets()]
    sink.display(table_bundle(["name", "description", "connectors", "saved", "code"], rows,
                              empty="No snippets yet: %snippet save NAME [last] [description]."))


async def _delete(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    eid = await m.session.resolve(_arg(args, 0, "an execution id (or last)"), "delete")
    _no_more(args, 1)
    if not await m.session.delete_execution(eid):
        raise CodemodeError(f"No execution {eid!r}. %executions lists them.")
    sink.stream(f"Deleted execution {eid}.\n")


async def _prune(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    keep = _int(args[0], "KEEP") if args else m.session.config.max_executions
    _no_more(args, 1)
    n = await m.session.runtime.prune_executions(keep)
    m.session.notify("execution_deleted", None)
    sink.stream(f"Deleted {n} finished execution(s); kept the newest {keep}.\n")


async def _expire(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    age = parse_age(args[0]) if args else timedelta(hours=24)
    _no_more(args, 1)
    ids = await m.session.expire(age)
    sink.stream(f"Expired {len(ids)} execution(s) older than {age}" + (": " + ", ".join(ids) if ids else "") + ".\n")


async def _store(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    _no_more(args, 0)
    session = m.session
    states = await session.runtime.executions()
    counts: dict[str, int] = {}
    for s in states:
        counts[s.status] = counts.get(s.status, 0) + 1
    snippets = await session.runtime.snippets()
    lines = [f"Store: {session.store_url}", f"Runtime name: {session.runtime.name}",
             f"Configuration: {session.config.label}",
             f"Executions: {len(states)}" + (" (" + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + ")"
                                             if counts else ""),
             f"Snippets: {len(snippets)}", f"Retention: the newest {session.config.max_executions} finished executions"]
    sink.stream("\n".join(lines) + "\n")


async def _reload(m: Magics, args: list[str], raw: str, sink: Sink) -> CellOutcome:
    _no_more(args, 0)
    problems = await m.session.reload()
    m.session.take_unreported()
    catalog = await m.session.runtime.catalog()
    names = ", ".join(f"{n} ({len(ms)} methods)" for n, ms in sorted(catalog.methods.items())) or "none"
    sink.stream(f"Reloaded {m.session.config.label}. Connectors: {names}.\n")
    if problems or m.session.runtime_problems:
        text = "\n".join([str(p) for p in problems] + m.session.runtime_problems)
        return _fail(sink, "ConfigurationError", text)
    return CellOutcome()


async def _vars(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    _no_more(args, 0)
    rows = [[name, type(value).__name__, _short(plain_text(value))]
            for name, value in sorted(m.session.variables.items())]
    sink.display(table_bundle(["name", "type", "value"], rows,
                              empty="No names are carried over yet: assign in a cell (x = ...) and it is."))


async def _reset(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    names = args or sorted(m.session.variables)
    unknown = [n for n in names if n not in m.session.variables]
    if unknown:
        raise CodemodeError(f"Not carried over: {', '.join(unknown)}. %vars lists the carried names.")
    for n in names:
        del m.session.variables[n]
    sink.stream(f"Forgot {len(names)} name(s){': ' + ', '.join(names) if names else ''}.\n")


async def _tool(m: Magics, args: list[str], raw: str, sink: Sink) -> None:
    _no_more(args, 0)
    t = m.session.runtime.tool(connector_hints=m.session.config.hints)
    # The description quotes connector instructions (an MCP server's own words): plain text
    # in a <pre>, never Markdown (issue 10, item 1).
    shown = code_bundle(t.description, title=f"Tool {t.name}")
    shown["text/plain"] = t.description
    sink.display(shown)


def _short(text: str, width: int = 80) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _int(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _Usage(f"{what} must be a whole number, not {text!r}.") from None
    if value < 0:
        raise _Usage(f"{what} must not be negative.")
    return value


def parse_age(text: str) -> timedelta:
    """``90s``, ``30m``, ``2h``, ``7d``, ``1w``; a bare number means hours."""
    match = _AGE.match(text.strip().lower())
    if not match:
        raise _Usage(f"Cannot read the age {text!r}: write e.g. 30m, 2h, 7d (a bare number means hours).")
    return timedelta(**{_UNITS[match.group(2)]: float(match.group(1))})


MAGICS: dict[str, Magic] = {
    "help": Magic("%help", "List the magics.", _help),
    "connectors": Magic("%connectors", "Connectors, their methods, the configuration file and any problems.",
                        _connectors),
    "search": Magic("%search QUERY", "Rank methods and snippets for a natural-language query.", _search),
    "describe": Magic("%describe TARGET", "Python declarations of a connector, connector.method or snippet.",
                      _describe),
    "executions": Magic("%executions [N]", "The newest N executions (default 20) with their status.", _executions),
    "journal": Magic("%journal ID|last", "One execution: its code, status and every journaled call.", _journal),
    "pending": Magic("%pending [ID|last]", "Actions waiting for approval.", _pending),
    "approve": Magic("%approve ID|last", "Approve the pending action and run the cell on (here and in its card).",
                     _approve),
    "reject": Magic("%reject ID|last [SEQ]", "Reject a pending action; the execution ends rejected.", _reject),
    "rollback": Magic("%rollback ID|last", "Revert the actions an execution applied, newest first.", _rollback),
    "snippet": Magic("%snippet save NAME [ID|last] [DESCRIPTION] | delete NAME | show NAME",
                     "Save a completed execution's code as a snippet, delete or show one.", _snippet),
    "snippets": Magic("%snippets", "The saved snippets.", _snippets),
    "delete": Magic("%delete ID|last", "Delete an execution and its journal.", _delete),
    "prune": Magic("%prune [KEEP]", "Delete finished executions beyond the newest KEEP.", _prune),
    "expire": Magic("%expire [AGE]", "Reject paused executions older than AGE (default 24h; 30m, 2h, 7d).",
                    _expire),
    "store": Magic("%store", "Where the journal is and what it holds.", _store),
    "reload": Magic("%reload", "Re-read codemode.toml and rebuild the connectors.", _reload),
    "vars": Magic("%vars", "Names carried over from earlier cells.", _vars),
    "reset": Magic("%reset [NAME ...]", "Forget carried-over names (all when none are given).", _reset),
    "tool": Magic("%tool", "The model-facing `codemode` tool description for this notebook.", _tool),
}
