"""Magics: the whole runtime API from cells, so a notebook also works headless.

A cell is either Code Mode Python, a ``%%host`` cell, ``target?`` help, or one or more
line magics (one per line). Each magic answers with a table or text in the cell; a failed
magic is a Jupyter error (so ``nbclient`` stops on it like on a failed cell).

The magics' names and arguments come from :mod:`codemode_kernel.commands`, the table the
``codemode`` command is generated from too; this module keeps what each one shows.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from codemode_kernel.bytes_text import json_with_bytes
from codemode_kernel.commands import Command, door_text, find_magic, magic_groups
from codemode_kernel.errors import CodemodeError, UsageError, clip
from codemode_kernel.journal_files import shown_store
from codemode_kernel.kernel.display import (
    MAX_TABLE_ROWS,
    cell_text,
    code_bundle,
    error_parts,
    error_traceback,
    inert_bundle,
    json_text,
    plain_text,
    result_bundle,
    table_bundle,
    table_html,
    text_table,
)
from codemode_kernel.kernel.markup import bundle
from codemode_kernel.kernel.notebook_runtime import NO_CONNECTORS_HINT
from codemode_kernel.kernel.output import CellOutcome, RecordingSink, Sink, Tee
from codemode_kernel.kernel.session import NotebookSession
from codemode_kernel.kernel.variables import carried_reads, not_carried_text, snippet_reads_text
from codemode_kernel.models import STEP_CONNECTOR
from codemode_kernel.terminal import terminal_text
from codemode_kernel.wording import sentence

_DOTTED = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")


@dataclass(frozen=True)
class Cell:
    """What kind of cell the source is: ``code``, ``host``, ``magics``, ``help``, ``exit`` or ``invalid``."""

    kind: str
    body: str = ""
    lines: tuple[str, ...] = ()


_EXIT = re.compile(r"^(?:exit|quit)(?:\(\s*(keep_kernel\s*=\s*True)?\s*\))?$")


#: IPython magics a Code Mode cell does not have, with what does their work here (review 15x L2).
IPYTHON_HABITS = {
    "who": "%vars lists the names carried from cell to cell.",
    "whos": "%vars lists the names carried from cell to cell, with their types and values.",
    "who_ls": "%vars lists the names carried from cell to cell.",
    "pip": "Code Mode cells cannot install packages: connectors run in the kernel's environment (install "
           "there from a terminal, then %reload).",
    "conda": "Code Mode cells cannot install packages: connectors run in the kernel's environment (install "
             "there from a terminal, then %reload).",
    "history": "%executions lists this notebook's cells as executions; %journal ID shows one.",
}
# More habits (s16o): what does the work of IPython's timing, plotting, extension, folder, file and shell magics.
_TIMING = ("Code Mode has no %time or %timeit: time part of a cell with time.perf_counter() (pre-imported), e.g. "
           "t = time.perf_counter(); ...; print(time.perf_counter() - t). A cell that waited for an approval ran "
           "again from the top, its earlier calls replayed.")
_PLOTS = ("Code Mode cells cannot draw plots (the sandbox has no matplotlib): make the data in a cell (its names "
          "are carried), then plot it in a %%host cell, trusted Python in the kernel, with matplotlib if the "
          "kernel's environment has it (session.variables['rows'] is the carried name rows there).")
_RELOADING = ("Code Mode has no IPython extensions: %reload reads codemode.toml again and reloads the connectors' "
              "modules (after you edit one).")
_ENVIRONMENT = ("Code Mode cells cannot see environment variables: use os.environ in a %%host cell (trusted Python "
                "in the kernel); a connector's ${VAR} settings are read when it starts (%reload after a change).")
_FOLDERS = ("Code Mode cells have no files or folders (the sandbox reads none): a %%host cell (trusted Python in "
            "the kernel) can use os and pathlib; codemode.toml is read from the notebook's folder.")
_FILES = ("Code Mode cells run the cell's own code and read no files: paste the program into a cell, run a file "
          "from a terminal with codemode run FILE, or read and write files in a %%host cell (trusted Python in "
          "the kernel), e.g. open('notes.txt', 'w').write(text).")
_CAPTURE = ("A Code Mode cell's output is shown as it comes: keep what you need in a variable instead (it is "
            "carried to later cells), or end the cell with it to show it as the cell's result.")
_SHELL = ("Shell commands do not run in Code Mode cells (the sandbox starts no processes): run them in a %%host "
          "cell (trusted Python in the kernel, e.g. subprocess.run([...])) or in a terminal.")
IPYTHON_HABITS.update(
    {name: _TIMING for name in ("time", "timeit")}
    | {"matplotlib": _PLOTS, "pylab": _PLOTS}
    | {name: _RELOADING for name in ("load_ext", "reload_ext", "unload_ext", "autoreload", "aimport")}
    | {name: _ENVIRONMENT for name in ("env", "set_env")}
    | {name: _FOLDERS for name in ("cd", "pwd", "ls", "pushd", "popd", "dhist", "bookmark")}
    | {name: _FILES for name in ("run", "load", "writefile", "save", "edit", "pycat")}
    | {"capture": _CAPTURE}
    | {name: _SHELL for name in ("bash", "sh", "script", "system", "sx")}
    | {"lsmagic": "%help lists the magics Code Mode has."}
)


def classify(source: str) -> Cell:
    """Tell Code Mode Python from magics, ``%%host`` cells, ``name?`` help and ``exit``/``quit``.

    ``exit`` and ``quit`` (``exit()``, ``quit(keep_kernel=True)``) end a console session as in
    IPython (kind ``exit``; body ``keep`` when the kernel is to stay).
    """
    stripped = source.strip()
    leaving = _EXIT.match(stripped)
    if leaving:
        return Cell("exit", "keep" if leaving.group(1) else "")
    if stripped.startswith("%%"):
        first, _, body = stripped.partition("\n")
        if first.split()[0] == "%%host":
            return Cell("host", body)
        habit = IPYTHON_HABITS.get(first.split()[0][2:])
        return Cell("invalid", f"Unknown cell magic {first.split()[0]!r}; the only cell magic is %%host "
                               f"(trusted host Python).{' ' + habit if habit else ''} %help lists the line magics.")
    lines = [ln.strip() for ln in stripped.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if not lines:
        return Cell("code", source)
    if len(lines) == 1 and not lines[0].startswith("%"):
        target = lines[0].strip("?").strip()
        if (lines[0].endswith("?") or lines[0].startswith("?")) and _DOTTED.match(target):
            return Cell("help", target)
    magic = [ln for ln in lines if ln.startswith("%")]
    if not magic:
        return _habit(source, lines) or Cell("code", source)
    if len(magic) == len(lines):
        return Cell("magics", lines=tuple(magic))
    try:
        ast.parse(source)
    except SyntaxError:
        return Cell("invalid", f"{magic[0].split()[0]} is a magic: put magics in a cell of their own, without "
                               "Code Mode Python (%help lists them).")
    return Cell("code", source)


#: What a Code Mode cell says to IPython's shell escape (``!ls``, ``x = !ls``), review 15x L2.
SHELL_HINT = ("Shell commands ({line}) do not run in Code Mode cells: the sandbox starts no processes. Run them "
              "in a %%host cell (trusted Python in the kernel, e.g. subprocess.run([...])) or in a terminal.")


def _habit(source: str, lines: list[str]) -> Cell | None:
    """A cell that is not Python because of an IPython habit (``!ls``, ``x?`` among other lines): what
    to do instead. None when the cell parses (a ``!`` inside a string) or is some other mistake."""
    shell = next((ln for ln in lines if ln.startswith("!") or re.match(r"^[A-Za-z_][\w, ]*=\s*!", ln)), None)
    helped = next((ln for ln in lines if (ln.endswith("?") or ln.startswith("?"))
                   and _DOTTED.match(ln.strip("?").strip())), None)
    if shell is None and helped is None:
        return None
    try:
        ast.parse(source)
    except SyntaxError:
        pass
    else:
        return None
    if shell is not None:
        return Cell("invalid", SHELL_HINT.format(line=shell if len(shell) <= 60 else shell[:59] + "…"))
    assert helped is not None
    target = helped.strip("?").strip()
    return Cell("invalid", f"{helped} asks for help only alone in a cell: run {target}? in a cell of its own "
                           f"(or %describe {target} for a connector).")


def looked_at(source: str, connectors: Sequence[str]) -> str | None:
    """The connector (or ``connector.method``) a cell only looks at: ``notes``, ``notes.add_note``,
    ``help(notes.add_note)``, ``dir(notes)``. Such a cell makes no call; evaluating a connector is a
    codec error about an internal type and ``help``/``dir`` are not in the sandbox, so the kernel shows
    the description instead (review 14x M12). ``None`` for any other cell."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    node = tree.body[0].value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("help", "dir")
            and len(node.args) == 1 and not node.keywords):
        node = node.args[0]
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in connectors or len(parts) > 1:
        return None
    return ".".join([node.id, *parts])


Handler = Callable[["Magics", dict[str, Any], Sink], Awaitable[CellOutcome | None]]


@dataclass(frozen=True)
class Magic:
    """One ``%name`` as ``%help`` lists it: the commands under it (``%snippet`` has three)."""

    commands: tuple[Command, ...]

    @property
    def usage(self) -> str:
        first, *others = [c.magic_usage() for c in self.commands]
        # "%snippet delete NAME" goes on as "delete NAME": the action word stays (review 14x M4).
        return " | ".join([first, *(u.split(" ", 1)[-1] for u in others)])

    @property
    def help(self) -> str:
        return " ".join(c.help for c in self.commands)


#: Every magic, by the word after ``%`` (generated from :data:`codemode_kernel.commands.COMMANDS`).
MAGICS: dict[str, Magic] = {name: Magic(group) for name, group in magic_groups().items()}


def parse_magic(line: str) -> tuple[Command, dict[str, Any]]:
    """The command a magic line names and its values; :class:`UsageError` says what is wrong and the usage."""
    name, _, rest = line.strip().lstrip("%").partition(" ")
    magic = MAGICS.get(name)
    if magic is None:
        close = [m for m in MAGICS if m.startswith(name[:2])] if name else []
        hint = f" Did you mean {', '.join('%' + m for m in close)}?" if close else ""
        hint = f" {IPYTHON_HABITS[name]}" if name in IPYTHON_HABITS else hint
        raise UsageError(f"Unknown magic %{name}.{hint} %help lists the magics.")
    usage = magic.usage
    try:
        words = shlex.split(_without_comment(rest))
        command, words = find_magic(name, words)
        usage = command.magic_usage()
        return command, command.parse(words)
    except ValueError as exc:  # shlex: an unclosed quote
        raise UsageError(f"%{name}: {sentence(str(exc))} Usage: {usage}") from None
    except UsageError as exc:
        raise UsageError(f"{exc} Usage: {usage}") from None


def _without_comment(rest: str) -> str:
    """A magic's arguments without a trailing comment: ``%executions 5  # the recent ones``. Only a
    ``#`` standing alone as a word, outside quotes, starts one (``%search issue #12`` keeps its ``#12``)."""
    quote = ""
    for i, char in enumerate(rest):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or rest[i - 1].isspace()) and (i + 1 == len(rest) or rest[i + 1].isspace()):
            return rest[:i]
    return rest


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
        try:
            command, values = parse_magic(line)
        except UsageError as exc:
            return _fail(sink, "UsageError", str(exc))
        try:
            if command.name in ("approve", "reject") and values.get("execution") is not None:
                late = await self.session.actions.settled(command.name, values["execution"])
                if late is not None:  # decided already (a click, another tab): not an error (issue 16)
                    sink.stream(late + "\n")
                    return CellOutcome()
            if command.execution_argument is not None and values.get("execution") is not None:
                values["execution"] = await self.session.resolve(values["execution"], command.purpose or "")
            outcome = await _HANDLERS[command.name](self, values, sink)
        except (CodemodeError, LookupError) as exc:  # the library's hints, in the magics' words (review 14x M2)
            return _fail(sink, type(exc).__name__, door_text(_error_text(exc), "magic"))
        return outcome or CellOutcome()

    async def look(self, target: str, sink: Sink) -> CellOutcome:
        """A cell that only looks at a connector or method (:func:`looked_at`): its description, and how
        to ask for it (review 14x M12)."""
        try:
            await _describe(self, {"target": target, "full": False, "page": 1}, sink,
                            note=f"{target} is described here, not run: %describe {target} (or {target}?) shows "
                                 "this; a program asks codemode.describe(...)")
        except (CodemodeError, LookupError) as exc:
            return _fail(sink, type(exc).__name__, door_text(_error_text(exc), "magic"))
        return CellOutcome()

    async def help_target(self, target: str, sink: Sink) -> CellOutcome:
        """``github.list_pull_requests?``: ``%describe``, shown in the pager as IPython does. A carried
        name, the ``codemode`` API and a pre-imported module are answered here (review 15x L11)."""
        local = self._local_help(target)
        if local is not None:
            return CellOutcome(payload=[{"source": "page", "data": inert_bundle({"text/plain": local}), "start": 0}])
        captured = RecordingSink()
        outcome = await self.run_line(f"%describe {target}", captured)
        if outcome.status == "error":
            ename, evalue, tb = captured.outputs[-1][1]
            sink.error(ename, evalue, tb)
            return outcome
        bundle = next(value for kind, value in captured.outputs if kind == "display")
        return CellOutcome(payload=[{"source": "page", "data": inert_bundle(bundle), "start": 0}])


    def _local_help(self, target: str) -> str | None:
        """``name?`` of what a cell has besides connectors and snippets, as Shift-Tab says it; None for the rest."""
        from codemode_kernel.kernel.completion import Names, inspect_local

        names = Names(connectors={name: {} for name in self.session.runtime.connectors},
                      variables=self.session.variables)
        return inspect_local(target, names)


def _error_text(exc: BaseException) -> str:
    """An error's text for a magic: a KeyError's message without its repr quotes; any other error as it is (a
    message that starts with a quoted name keeps its quote, review 16x L3)."""
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0]
    return str(exc)


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


# ---------------------------------------------------------------------------------------
# The magics


async def _help(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    rows = [[f"%{name}", magic.usage.split(" ", 1)[1] if " " in magic.usage else "", magic.help]
            for name, magic in MAGICS.items()]
    rows.append(["%%host", "", "Run trusted host Python (first line of a cell); connect(connector) adds a "
                               "connector, disconnect(name) removes it; runtime and session are defined."])
    rows.append(["name?", "", "Same as %describe name (e.g. github.list_pull_requests?)."])
    # Whole in text/plain too: a console or a headless run has no tooltip to read the rest (review 14x M4).
    bundle = table_bundle(["magic", "arguments", "what it does"], rows, width=None)
    bundle["text/plain"] = ("Code Mode magics (every cell without them is a durable Code Mode pass):\n"
                            + bundle["text/plain"])
    sink.display(bundle)


async def _connectors(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    session = m.session
    catalog = await session.runtime.catalog()
    kinds = {**session.config.kinds, **{n: "host (connect)" for n in session.host_connectors}}
    rows = []
    for name, methods in sorted(catalog.methods.items()):
        approval = sorted(n for n, meth in methods.items() if meth.tool.requires_approval)
        names = sorted(methods)
        listed = ", ".join(names[:12]) + (f", … ({len(names)} in all)" if len(names) > 12 else "")
        rows.append([name, kinds.get(name, "python"), listed, ", ".join(approval) or "—",
                     "" if name in session.host_connectors else session.config.hints.get(name, "")])
    problems = [str(p) for p in session.config.problems] + session.runtime_problems
    problems += [f"connector {n!r} is unavailable: {sentence(reason)}"
                 for n, reason in sorted(catalog.unavailable.items())]
    if rows:
        empty = ""
    elif problems:
        empty = "No connector is usable: each one has a problem (listed below). Fix them and run %reload."
    else:
        empty = "No connectors yet."
    sink.display(table_bundle(["connector", "kind", "methods", "needs approval", "hint"], rows, empty=empty,
                              width=None))
    if not rows and not problems:
        sink.stream(NO_CONNECTORS_HINT.removeprefix("No connectors yet: ") + "\n")
    lines = [f"Configuration: {session.config.label}", f"Store: {shown_store(session.store_url)}"]
    sink.stream("\n".join(lines) + "\n")
    if problems:
        sink.stream("Problems:\n" + "".join(f"  {p}\n" for p in problems), "stderr")
    session.mark_said(catalog.unavailable)  # listed here: no later note repeats them (review 16x, L2)


async def _search(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    query = v["query"]
    found = await m.session.runtime.search(query)
    rows = [[r.path if r.kind == "method" else f"codemode.run({r.path!r}, …)", r.kind,
             "yes" if r.requires_approval else "", (r.description.strip().splitlines() or [""])[0],
             f"{r.score:.2f}"] for r in found.results]
    caption = f"{found.total} match(es)" + (f", showing {len(rows)}" if found.truncated else "")
    sink.display(table_bundle(["path", "kind", "approval", "description", "score"], rows, caption=caption,
                              empty=f"Nothing matches {query!r}. %connectors lists every method."))


async def _describe(m: Magics, v: dict[str, Any], sink: Sink, *, note: str = "") -> None:
    out = await m.session.runtime.describe(v["target"], full=bool(v.get("full")), page=v.get("page") or 1)
    title = f"{out.kind} {out.path}" + (" — requires approval" if out.requires_approval else "")
    title += f" ({note})" if note else ""
    # The answer's hints are written for a program; here they name the magic (review 14x M3).
    sink.display(code_bundle(door_text(out.types, "magic", path=out.path), title=title))


async def _executions(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    if v["limit"] == 0:  # asks for none: say so, never "no executions yet" (review 14x L1)
        total = len(await m.session.runtime.executions())
        sink.stream(f"0 of {total} execution(s) shown: %executions N shows the newest N.\n")
        return
    states = await m.session.runtime.executions(limit=v["limit"])
    rows = [[s.id, s.status, _when(s.created_at), s.passes, len([e for e in s.log if e.connector != STEP_CONNECTOR]),
             _first_line(s.code)] for s in states]
    sink.display(table_bundle(["id", "status", "created", "passes", "calls", "code"], rows,
                              empty="No executions yet: run a cell."))


async def _journal(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    eid = v["execution"]
    state = await m.session.runtime.execution(eid)
    if state is None:
        raise CodemodeError(f"No execution {eid!r}. %executions lists them.")
    head = [f"Execution {state.id}: {state.status}, {state.passes} pass(es), created {_when(state.created_at)}",
            f"Connectors: {', '.join(state.connectors) or '(none)'}"]
    if state.error:
        head.append(f"Error: {state.error}")
    sink.stream("\n".join(head) + "\n")
    sink.display(code_bundle(state.code))
    log = state.log
    pages = max(1, -(-len(log) // MAX_TABLE_ROWS))
    page = 1 if v["all"] else v["page"]
    if page > pages:
        raise UsageError(f"Execution {state.id} has {_calls(len(log))}: {_pages(pages)} of {MAX_TABLE_ROWS}, so there "
                         f"is no page {page}. %journal {state.id} --page {pages} shows the last.")
    first = 0 if v["all"] else (page - 1) * MAX_TABLE_ROWS
    shown = log if v["all"] else log[first:first + MAX_TABLE_ROWS]
    rows = [[e.seq, e.path if e.connector != STEP_CONNECTOR else f"step {e.method!r}", cell_text(e.args),
             e.error or cell_text(e.result), e.state, e.pass_number] for e in shown]
    columns = ["seq", "call", "args", "result", "state", "pass"]
    if v["all"] and len(rows) > MAX_TABLE_ROWS:  # table_bundle cuts at MAX_TABLE_ROWS
        sink.display(bundle(text_table(columns, rows, limit=len(rows)), table_html(columns, rows, limit=len(rows))))
    else:
        sink.display(table_bundle(columns, rows, empty="No connector calls or steps."))
    if not v["all"] and pages > 1:
        sink.stream(_journal_more(state.id, first, len(rows), len(log), page, pages) + "\n")
    if state.status in ("completed", "rolled_back") and state.result is not None:
        sink.display(result_bundle(state.result))


def _calls(n: int) -> str:
    return f"{n:,} call{'s' if n != 1 else ''}"


def _pages(n: int) -> str:
    return f"{n:,} page{'s' if n != 1 else ''}"


def _journal_more(eid: str, first: int, shown: int, total: int, page: int, pages: int) -> str:
    """The line under a page of a long journal: which calls it showed and how to see the others."""
    where = f"Calls {first + 1:,}-{first + shown:,} of {total:,} (page {page} of {pages})."
    if page < pages:
        return f"{where} %journal {eid} --page {page + 1} shows the next {MAX_TABLE_ROWS}; --all shows every call."
    return f"{where} %journal {eid} --page 1 shows the first; --all shows every call."


async def _pending(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    actions = await m.session.runtime.pending(v["execution"])
    rows = [[a.execution_id, a.seq, f"{a.connector}.{a.method}",
             json_with_bytes(a.args, lambda v: json_text(v, indent=None, reveal=True))] for a in actions]
    # Whole in text/plain too: the approval summary sends a console here to read a call it cut.
    bundle = table_bundle(["execution", "seq", "call", "args"], rows, empty="Nothing is waiting for approval.",
                          width=None)
    if actions:
        # 'last' never names a model's pause (selection._last_decision): offered only beside a person's (16x L9).
        models = {eid for eid in {a.execution_id for a in actions}
                  if (state := await m.session.runtime.execution(eid)) is not None and state.via_tool}
        last = "" if all(a.execution_id in models for a in actions) else " or %approve last"
        bundle["text/plain"] += (f"\nApprove with %approve <execution> <seq> (that call only){last}; reject "
                                 "with %reject <execution>.")
    sink.display(bundle)


async def _approve(m: Magics, v: dict[str, Any], sink: Sink) -> CellOutcome:
    eid = v["execution"]
    shown = RecordingSink()
    out = await m.session.approve(eid, v.get("seq"), origin=Tee([sink, shown]))
    if not shown.outputs and not out.get("settled"):
        # Only the card (a widget, in the cell that paused) changed: a console shows no widgets,
        # so this cell says how the execution ended (issue 16, item 5).
        sink.stream(_approved_text(eid, out) + "\n")
    if out.get("settled"):  # decided elsewhere in the meantime; the cell says how it ended
        return CellOutcome(execution_id=eid)
    if out.get("status") == "error":
        ename, evalue, _ = error_parts(out)
        return CellOutcome.failed(ename, evalue, execution_id=eid)
    return CellOutcome(execution_id=eid)


def _approved_text(eid: str, out: dict[str, Any]) -> str:
    """What a typed ``%approve`` approved (the call pending when it ran, by its number) and what followed."""
    status = out.get("status")
    approved = out.get("approved") or {}
    head = f"Approved: execution {eid}" + (f", call #{approved['seq']} ({approved['call']}):" if approved else "")
    if status == "completed":
        return (f"{head} {'it ' if approved else ''}completed. The cell has no final expression, so there is no "
                f"result to show; %journal {eid} lists its calls.")
    if status == "paused":
        pending = out.get("pending", [])
        calls = ", ".join(f"#{p['seq']} {p['connector']}.{p['method']}" for p in pending)
        which = f" {pending[0]['seq']}" if len(pending) == 1 else ""
        return (f"{head} {'it ' if approved else ''}ran on and now waits for approval of "
                f"{calls or 'another action'}: %approve {eid}{which} or %reject {eid}.")
    if status == "error":
        return f"{head} {'it ' if approved else ''}ran on and failed: {sentence(str(out.get('error', '')))}"
    return f"Execution {eid}: {sentence(str(out.get('message') or status))}"


async def _reject(m: Magics, v: dict[str, Any], sink: Sink) -> CellOutcome:
    eid = v["execution"]
    if await m.session.reject(eid, v["seq"], origin=sink):
        return CellOutcome(execution_id=eid)
    return CellOutcome.failed("InvalidStateError", f"execution {eid} was not rejected", execution_id=eid)


async def _rollback(m: Magics, v: dict[str, Any], sink: Sink) -> CellOutcome:
    eid = v["execution"]
    state = await m.session.runtime.execution(eid)  # `last` may be cells up: say which (review 16x L5)
    sink.stream(f"Execution {eid}" + (f" ({_first_line(state.code)})" if state is not None and state.code.strip()
                                      else "") + ":\n")
    try:
        await m.session.rollback(eid, origin=sink)
    except CodemodeError as exc:
        return CellOutcome.failed(type(exc).__name__, str(exc), execution_id=eid)  # already shown
    return CellOutcome(execution_id=eid)


async def _save_snippet(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    eid = v["execution"]
    before = next((s for s in await m.session.runtime.snippets() if s.name == v["name"]), None)
    snippet = await m.session.save_snippet(v["name"], eid, v["description"])
    if before is not None:  # replaced: say what was there (review 14x M1, the magic's side)
        was = f"execution {before.execution_id}" if before.execution_id else "an earlier execution"
        sink.stream(f"Replaced snippet {snippet.name!r} (it was from {was}"
                    + (f": {before.description}" if before.description else "") + f") with execution {eid}'s code. "
                    f"Run it in a cell with codemode.run({snippet.name!r}, input).\n")
        _say_carried_reads(m, eid, snippet.code, sink)
        return
    sink.stream(f"Saved snippet {snippet.name!r} from execution {eid}{_saved_code(m, eid, snippet.code)}. Run it "
                f"in a cell with codemode.run({snippet.name!r}, input); the code sees the value as `input`.\n")
    _say_carried_reads(m, eid, snippet.code, sink)


def _saved_code(m: Magics, eid: str, code: str) -> str:
    """What was saved, in a few words: its code's first line, and that newer runs were passed over (``last`` is
    the newest *completed* execution: after a failed cell it is an older one; review 16x, M12)."""
    lines = [line for line in code.splitlines() if line.strip()]
    first = terminal_text(clip(lines[0].strip(), 100), multiline=False) if lines else ""
    more = f" and {len(lines) - 1} more line(s)" if len(lines) > 1 else ""
    newer = list(m.session.records)
    skipped = newer[newer.index(eid) + 1:] if eid in newer else []
    passed = f"; {len(skipped)} cell run(s) of this notebook came after it" if skipped else ""
    return f" (its code: `{first}`{more}{passed})"


def _say_carried_reads(m: Magics, eid: str, code: str, sink: Sink) -> None:
    record = m.session.records.get(eid)
    warning = snippet_reads_text(carried_reads(code, record.given if record is not None else {}))
    if warning:
        sink.stream(warning + "\n", "stderr")


async def _delete_snippet(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    name = v["name"]
    if not await m.session.runtime.delete_snippet(name):
        raise CodemodeError(f"No snippet named {name!r}. %snippets lists them.")
    m.session.notify("snippets_changed", None)
    sink.stream(f"Deleted snippet {name!r}.\n")


async def _show_snippet(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    name = v["name"]
    for s in await m.session.runtime.snippets():
        if s.name == name:
            sink.display(code_bundle(s.code, title=f"snippet {s.name}: {s.description}".rstrip(": ")))
            return
    raise CodemodeError(f"No snippet named {name!r}. %snippets lists them.")


async def _snippets(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    rows = [[s.name, s.description, ", ".join(s.connectors), _when(s.saved_at), _first_line(s.code)]
            for s in await m.session.runtime.snippets()]
    sink.display(table_bundle(["name", "description", "connectors", "saved", "code"], rows,
                              empty="No snippets yet: %snippet save NAME [last] [description]."))


async def _delete(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    eid = v["execution"]
    waiting = await m.session.runtime.pending(eid)
    if not await m.session.delete_execution(eid):
        raise CodemodeError(f"No execution {eid!r}. %executions lists them.")
    # A paused one's call is dropped with it: say which, so a person is not surprised (review 14x, noticed).
    dropped = "; ".join(f"#{p.seq} {p.connector}.{p.method}" for p in waiting)
    sink.stream(f"Deleted execution {eid}" + (f" (it was paused on {dropped}, which was not approved and now "
                                              "never runs)" if dropped else "") + ".\n")


async def _prune(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    keep = v["keep"] if v["keep"] is not None else m.session.config.max_executions
    n = await m.session.runtime.prune_executions(keep)
    m.session.notify("execution_deleted", None)
    sink.stream(f"Deleted {n} finished execution(s); kept the newest {keep}.\n")


async def _expire(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    age = v["age"]
    ids = await m.session.expire(age)
    sink.stream(f"Expired {len(ids)} execution(s) older than {age}" + (": " + ", ".join(ids) if ids else "") + ".\n")


async def _store(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    session = m.session
    states = await session.runtime.executions()
    counts: dict[str, int] = {}
    for s in states:
        counts[s.status] = counts.get(s.status, 0) + 1
    snippets = await session.runtime.snippets()
    lines = [f"Store: {shown_store(session.store_url)}", f"Runtime name: {session.runtime.name}",
             f"Configuration: {session.config.label}",
             f"Executions: {len(states)}" + (" (" + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + ")"
                                             if counts else ""),
             f"Snippets: {len(snippets)}", f"Retention: the newest {session.config.max_executions} finished executions"]
    sink.stream("\n".join(lines) + "\n")


async def _reload(m: Magics, v: dict[str, Any], sink: Sink) -> CellOutcome:
    problems = await m.session.reload()
    m.session.take_unreported()
    catalog = await m.session.runtime.catalog()
    names = ", ".join(f"{n} ({len(ms)} methods)" for n, ms in sorted(catalog.methods.items())) or "none"
    if m.session.kept_last_good:  # the file could not be read: nothing was reloaded (review 14x L4)
        text = "\n".join(str(p) for p in problems)
        return _fail(sink, "ConfigurationError", f"{text}\n{m.session.config.label} could not be read, so nothing was "
                     f"reloaded; still using the connectors from the last good read: {names}. Fix the file and "
                     "run %reload again.")
    sink.stream(f"Reloaded {m.session.config.label}. Connectors: {names}.\n")
    if problems or m.session.runtime_problems:
        text = "\n".join([str(p) for p in problems] + m.session.runtime_problems)
        return _fail(sink, "ConfigurationError", text)
    return CellOutcome()


async def _vars(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    rows = [[name, type(value).__name__, _short(plain_text(value))]
            for name, value in sorted(m.session.variables.items())]
    sink.display(table_bundle(["name", "type", "value"], rows,
                              empty="No names are carried over yet: assign in a cell (x = ...) and it is."))
    missed = {n: why for n, why in m.session.variables.not_carried.items() if n not in m.session.variables}
    if missed:
        sink.stream(not_carried_text(missed) + "\n")


#: IPython's %reset options: -f (do not ask; %reset never asks) is accepted, the others are refused by name.
_RESET_FORCE = "-f"


async def _reset(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    names = [n for n in v["names"] if n != _RESET_FORCE]
    options = [n for n in names if n.startswith("-")]
    if options:
        raise UsageError(f"%reset has no option {options[0]}: %reset forgets every carried name (without asking; "
                         "-f is accepted), %reset NAME ... forgets those names. %vars lists them.")
    names = names or sorted(m.session.variables)
    unknown = [n for n in names if n not in m.session.variables]
    if unknown:
        raise CodemodeError(f"Not carried over: {', '.join(unknown)}. %vars lists the carried names.")
    for n in names:
        del m.session.variables[n]
    sink.stream(f"Forgot {len(names)} name(s){': ' + ', '.join(names) if names else ''}.\n")


async def _tool(m: Magics, v: dict[str, Any], sink: Sink) -> None:
    t = m.session.runtime.tool()  # the runtime was built with the configuration's hints
    # The description quotes connector instructions (an MCP server's own words): plain text
    # in a <pre>, never Markdown (issue 10, item 1).
    shown = code_bundle(t.description, title=f"Tool {t.name}")
    shown["text/plain"] = t.description
    sink.display(shown)


def _short(text: str, width: int = 80) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


#: What each magic does, by command name (its arguments are in the table).
_HANDLERS: dict[str, Handler] = {
    "help": _help, "connectors": _connectors, "search": _search, "describe": _describe,
    "executions": _executions, "journal": _journal, "pending": _pending, "approve": _approve,
    "reject": _reject, "rollback": _rollback, "save_snippet": _save_snippet, "delete_snippet": _delete_snippet,
    "show_snippet": _show_snippet, "snippets": _snippets, "delete": _delete, "prune": _prune, "expire": _expire,
    "store": _store, "reload": _reload, "vars": _vars, "reset": _reset, "tool": _tool,
}
