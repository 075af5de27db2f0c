"""The commands the notebook's magics and the ``codemode`` command share (issue 11).

One table, :data:`COMMANDS`, says what each command is called at each door, which
arguments it takes (name, kind, optional or required, help) and, for an execution id, what
``last`` means (:mod:`codemode_kernel.selection`). The kernel's magics and the CLI's
``argparse`` parser are generated from it, and both read their words with
:meth:`Command.parse`, so they accept the same arguments and refuse the same bad ones with
the same message. Each door keeps its own presentation (tables in a cell, text or JSON in a
terminal) and its own handlers.

Names may differ between the doors; the table maps them explicitly:

| command | magic | ``codemode`` |
|---|---|---|
| ``journal`` | ``%journal ID`` | ``codemode show ID`` |
| ``save_snippet`` | ``%snippet save NAME`` | ``codemode save-snippet NAME`` |

A command with no magic name is terminal-only (``run``, ``demo``, ``mcp``); one with no CLI
name is notebook-only (``%vars``, ``%reload``, …).

Rejected: parsing the magics with ``argparse`` too (it exits the process on a bad word, and
its messages name the parser, not what to write); two hand-kept tables checked by a test
(they would still be two places to edit).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from codemode_kernel.errors import UsageError

Kind = Literal["text", "execution", "count", "age", "choice", "flag"]

#: What an execution argument looks like: ``last``, or (a prefix of) a ULID.
EXECUTION_REF = re.compile(r"^(last|[0-9A-HJKMNP-TV-Z]{6,26})$")
_AGE = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw]?)$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks", "": "hours"}


@dataclass(frozen=True)
class Argument:
    """One argument of a command.

    ``help`` is a noun phrase ("an execution id (or last)"): usage errors say
    ``Missing <help>.``. ``rest`` takes every remaining word, joined by spaces (``many``: as
    a list). ``option`` makes it ``--name VALUE`` (kind ``flag``: ``--name`` alone, ``True`` when given).
    An optional positional followed by others
    is taken only when its word looks like its kind (an execution id or ``last``).
    """

    name: str
    metavar: str
    help: str
    kind: Kind = "text"
    required: bool = True
    default: Any = None
    rest: bool = False
    many: bool = False
    option: bool = False
    choices: tuple[str, ...] = ()
    #: The smallest count accepted (``%executions 0`` would ask for nothing: 1).
    minimum: int = 0

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def usage(self) -> str:
        if self.kind == "flag":
            return f"[{self.flag}]"
        shown = f"{self.flag} {self.metavar}" if self.option else self.metavar
        shown += " ..." if self.many else ""
        return shown if self.required else f"[{shown}]"

    def convert(self, word: str) -> Any:
        """The value of one word, or :class:`UsageError` saying what to write instead."""
        if self.kind == "flag":
            return True
        if self.kind == "count":
            try:
                value = int(word)
            except ValueError:
                raise UsageError(f"{self.metavar} must be a whole number, not {word!r}.") from None
            if value < self.minimum:
                raise UsageError(f"{self.metavar} must be at least {self.minimum}." if self.minimum
                                 else f"{self.metavar} must not be negative.")
            return value
        if self.kind == "age":
            return parse_age(word)
        if self.kind == "choice" and word not in self.choices:
            raise UsageError(f"{self.flag if self.option else self.metavar} must be one of "
                             f"{', '.join(self.choices)}; got {word!r}.")
        return word

    def looks_like(self, word: str) -> bool:
        return EXECUTION_REF.match(word) is not None if self.kind == "execution" else True


@dataclass(frozen=True)
class Command:
    """A command of both doors: ``name`` is its own, ``magic``/``cli`` what each door calls it."""

    name: str
    help: str
    arguments: tuple[Argument, ...] = ()
    magic: str | None = None
    cli: str | None = None
    #: What ``last`` means for its execution argument (a purpose of :mod:`codemode_kernel.selection`).
    purpose: str | None = None

    def usage(self) -> str:
        """The arguments as usage text: ``ID|last [SEQ]``."""
        return " ".join(a.usage() for a in self.arguments)

    def magic_usage(self) -> str:
        return " ".join(filter(None, [f"%{self.magic}", self.usage()]))

    def cli_usage(self) -> str:
        return " ".join(filter(None, [f"codemode {self.cli}", self.usage()]))

    @property
    def options(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.option)

    @property
    def positionals(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.option)

    @property
    def execution_argument(self) -> Argument | None:
        return next((a for a in self.arguments if a.kind == "execution"), None)

    def parse(self, words: Sequence[str], options: Mapping[str, str | None] | None = None) -> dict[str, Any]:
        """The values of ``words`` (``--name VALUE`` options may be among them, or given in ``options``).

        Raises :class:`UsageError` with what was wrong; the caller adds its own usage line.
        """
        given = dict(options or {})
        plain: list[str] = []
        flags = {a.flag: a for a in self.options}
        items = list(words)
        while items:
            word = items.pop(0)
            name, eq, inline = word.partition("=")
            if name in flags and flags[name].kind == "flag":
                if eq:
                    raise UsageError(f"{name} takes no value; write {name} alone.")
                given[flags[name].name] = "yes"
            elif name in flags:
                if not eq and not items:
                    raise UsageError(f"{name} needs a value ({flags[name].help}).")
                given[flags[name].name] = inline if eq else items.pop(0)
            elif word.startswith("--") and len(word) > 2:
                known = ", ".join(flags) or "none"
                raise UsageError(f"Unknown option {name}; the options of this command are {known}.")
            else:
                plain.append(word)
        values: dict[str, Any] = {}
        for arg in self.options:
            raw = given.get(arg.name)
            values[arg.name] = arg.convert(raw) if raw is not None else arg.default
        positionals = self.positionals
        for i, arg in enumerate(positionals):
            if arg.rest or arg.many:
                taken, plain = plain, []
                if not taken and arg.required:
                    raise UsageError(f"Missing {arg.help}.")
                if arg.many:
                    values[arg.name] = [arg.convert(w) for w in taken]
                else:
                    values[arg.name] = " ".join(taken) if taken else arg.default
                continue
            later = i + 1 < len(positionals)
            if not plain or (not arg.required and later and not arg.looks_like(plain[0])):
                if arg.required:
                    raise UsageError(f"Missing {arg.help}.")
                values[arg.name] = arg.default
                continue
            values[arg.name] = arg.convert(plain.pop(0))
        if plain:
            raise UsageError(f"Unexpected {' '.join(plain)!r}.")
        return values


def parse_age(text: str) -> timedelta:
    """``90s``, ``30m``, ``2h``, ``7d``, ``1w``; a bare number means hours."""
    match = _AGE.match(text.strip().lower())
    if not match:
        raise UsageError(f"Cannot read the age {text!r}: write e.g. 30m, 2h, 7d (a bare number means hours).")
    return timedelta(**{_UNITS[match.group(2)]: float(match.group(1))})


def _execution(help: str = "an execution id (or last)", *, required: bool = True, default: str | None = None
               ) -> Argument:
    return Argument("execution", "ID|last", help, kind="execution", required=required, default=default)


COMMANDS: tuple[Command, ...] = (
    Command("help", "List the magics.", magic="help"),
    Command("connectors", "Connectors, their methods, the configuration file and any problems.",
            magic="connectors", cli="connectors"),
    Command("run", "Run a program; when it pauses, answer the approval.", cli="run", arguments=(
        Argument("file", "FILE", "a program file (or - for stdin)"),
        Argument("approve", "ask|yes|no", "how approvals are answered: ask at the prompt, yes to all, no (leave "
                                      "it paused)", kind="choice", required=False, default="ask", option=True,
                 choices=("ask", "yes", "no")),
    )),
    Command("search", "Rank methods and snippets for a natural-language query.", magic="search", cli="search",
            arguments=(Argument("query", "QUERY", "a query (what you are looking for)", rest=True),)),
    Command("describe", "Python declarations of a connector, connector.method or snippet; --full adds every "
                        "nested type and the whole description, --page N a connector's next methods.",
            magic="describe", cli="describe", arguments=(
                Argument("target", "TARGET", "a connector, connector.method or snippet name"),
                Argument("full", "", "every nested type and the whole description", kind="flag", required=False,
                         default=False, option=True),
                Argument("page", "N", "which page of a connector's methods (from 1)", kind="count", required=False,
                         default=1, option=True, minimum=1),
            )),
    Command("executions", "The newest N executions (default 20) with their status.", magic="executions",
            cli="executions", arguments=(Argument("limit", "N", "how many executions", kind="count",
                                                  required=False, default=20),)),
    Command("journal", "One execution: its code, status and every journaled call (%journal: 200 a page).",
            magic="journal", cli="show", purpose="show", arguments=(
                _execution(),
                Argument("page", "N", "which page of its calls, 200 a page (from 1; codemode show prints them all)",
                         kind="count", required=False, default=1, option=True, minimum=1),
                Argument("all", "", "every call on one page", kind="flag", required=False, default=False,
                         option=True),
            )),
    Command("pending", "Actions waiting for approval.", magic="pending", cli="pending", purpose="approve",
            arguments=(_execution("an execution id (or last) whose actions to list", required=False),)),
    Command("approve", "Approve the pending action and run the code on from the top (earlier calls replay).",
            magic="approve", cli="approve", purpose="approve", arguments=(
                _execution(),
                Argument("seq", "SEQ", "the number of the call you were shown (#SEQ): approved only if it is "
                                       "still the pending one; without it, the call pending now", kind="count",
                         required=False),
            )),
    Command("reject", "Reject a pending action; the execution ends rejected (nothing is undone).",
            magic="reject", cli="reject", purpose="reject", arguments=(
                _execution(),
                Argument("seq", "SEQ", "the call's number in the journal", kind="count", required=False),
            )),
    Command("rollback", "Revert the actions an execution applied, newest first.", magic="rollback",
            cli="rollback", purpose="rollback", arguments=(_execution(),)),
    Command("save_snippet", "Save a completed execution's code as a snippet (codemode.run(name, input)).",
            magic="snippet save", cli="save-snippet", purpose="snippet", arguments=(
                Argument("name", "NAME", "the snippet name"),
                _execution(required=False, default="last"),
                Argument("description", "DESCRIPTION", "a description", required=False, default="", rest=True),
            )),
    Command("delete_snippet", "Delete a saved snippet.", magic="snippet delete",
            arguments=(Argument("name", "NAME", "the snippet name"),)),
    Command("show_snippet", "Show a saved snippet's code.", magic="snippet show",
            arguments=(Argument("name", "NAME", "the snippet name"),)),
    Command("snippets", "The saved snippets.", magic="snippets", cli="snippets"),
    Command("delete", "Delete an execution and its journal.", magic="delete", purpose="delete",
            arguments=(_execution(),)),
    Command("prune", "Delete finished executions beyond the newest KEEP (default: [runtime] max_executions).",
            magic="prune", arguments=(Argument("keep", "KEEP", "how many finished executions to keep",
                                               kind="count", required=False),)),
    Command("expire", "Reject paused executions older than AGE (default 24h; 30m, 2h, 7d); fail stale running "
                      "ones.", magic="expire", cli="expire",
            arguments=(Argument("age", "AGE", "an age such as 30m, 2h or 7d", kind="age", required=False,
                                default=timedelta(hours=24)),)),
    Command("store", "Where the journal is and what it holds.", magic="store"),
    Command("reload", "Re-read codemode.toml and rebuild the connectors.", magic="reload"),
    Command("vars", "Names carried over from earlier cells.", magic="vars"),
    Command("reset", "Forget carried-over names (all when none are given).", magic="reset",
            arguments=(Argument("names", "NAME", "the names to forget", required=False, many=True),)),
    Command("tool", "The model-facing `codemode` tool description for this notebook.", magic="tool"),
    Command("demo", "A guided terminal demo of approvals, replay and rollback.", cli="demo"),
    Command("mcp", "Serve the runtime over MCP (stdio, or --http HOST:PORT) as the tools `codemode` and "
                   "`codemode_status`; --notebook X.ipynb serves that notebook's journal.", cli="mcp"),
)

BY_NAME: Mapping[str, Command] = {c.name: c for c in COMMANDS}


def magic_groups() -> dict[str, tuple[Command, ...]]:
    """Magic names (the first word after ``%``) with the commands under each (``%snippet save|delete|show``)."""
    out: dict[str, tuple[Command, ...]] = {}
    for c in COMMANDS:
        if c.magic:
            head = c.magic.split()[0]
            out[head] = (*out.get(head, ()), c)
    return out


def find_magic(name: str, words: Sequence[str]) -> tuple[Command, list[str]]:
    """The command a magic line names, and its argument words; raises :class:`UsageError`.

    ``name`` is the word after ``%``; a group such as ``%snippet`` takes its action from the
    first word.
    """
    group = magic_groups().get(name)
    if group is None:
        raise LookupError(name)
    if len(group) == 1 and group[0].magic == name:
        return group[0], list(words)
    actions = {c.magic.split()[1]: c for c in group if c.magic}
    if not words:
        raise UsageError(f"Missing {', '.join(list(actions)[:-1])} or {list(actions)[-1]}.")
    if words[0] not in actions:
        raise UsageError(f"Unknown action {words[0]!r}; the actions are {', '.join(actions)}.")
    return actions[words[0]], list(words[1:])


# -- the library's hints, worded for a door ------------------------------------------------------

Door = Literal["cli", "magic"]

#: How each door spells what the library's messages write as API calls (review 14x M2, M3).
_SPELLING: Mapping[Door, Mapping[str, str]] = {
    "cli": {"executions": "`codemode executions`", "search": "codemode search QUERY",
            "describe": "codemode describe"},
    "magic": {"executions": "%executions", "search": "%search QUERY", "describe": "%describe"},
}
#: connectors.unavailable.WHERE_TO_LOOK, the runtime's pointer for a notebook's author.
_WHERE_TO_LOOK = re.compile(r"the notebook's author can see the details with %connectors")
#: A hint that gives both doors' words ("(%executions in a notebook, `codemode executions` in a terminal)").
_BOTH_DOORS = re.compile(r"\((%[^,()`]+) in a notebook, `(codemode [^`]+)` in a terminal\)")
_LIST_EXECUTIONS = re.compile(r"List executions with runtime\.executions\(\) \(or %executions in the kernel\)\.")
_SEARCH_CALL = re.compile(r"codemode\.search\('what you want'\)")
_DESCRIBE_CALL = re.compile(r"codemode\.describe\('([^'\s]{1,300})'(?:, (page=(\d+)|full=True))?\)")
_DESCRIBE_MORE = re.compile(r"^# describe more: (.*)$", re.M)
_SUFFIX = re.compile(r"(?<![\w.])\.([A-Za-z_]\w*)")
#: targets.refusal's closing words (review 15x, M2): load the configuration again, or reject the execution.
_RELOADED = re.compile(r", load it again and ")
_REJECT_CALL = re.compile(r"runtime\.reject\('([0-9A-Za-z]{1,64})'\)")
_RELOAD_WORDS: Mapping[Door, str] = {"magic": ", run %reload and ", "cli": " and "}  # codemode reads it afresh
#: A configuration problem's closing words (config.py, building.py), written for a notebook (review 16x, M5):
#: each ``codemode`` command reads codemode.toml afresh, so a terminal runs the command again.
_RUN_RELOAD = re.compile(r"(,? then|,? and) run %reload\.")
_RELOAD_IN_NOTEBOOK = re.compile(r" \(then %reload in a notebook\)")


def door_text(text: str, door: Door, *, path: str | None = None) -> str:
    """``text`` (a library message or a describe answer, written for a program) with its hints in
    ``door``'s own syntax: ``codemode executions`` / ``%executions`` for ``runtime.executions()``,
    ``codemode search QUERY`` / ``%search QUERY`` for ``codemode.search(...)``, ``codemode describe X
    --full`` / ``%describe X --page 2`` for ``codemode.describe('X', ...)``. ``path``: the described
    target, whose ``# describe more:`` line gets the door's commands beside it."""
    words = _SPELLING[door]
    text = _LIST_EXECUTIONS.sub(f"List them with {words['executions']}.", text)
    if door == "cli":
        text = _WHERE_TO_LOOK.sub("`codemode connectors` shows why", text)
        text = _RUN_RELOAD.sub(r"\1 run the command again.", text)
        text = _RELOAD_IN_NOTEBOOK.sub("", text)
    text = _BOTH_DOORS.sub(lambda m: f"(`{m.group(2)}`)" if door == "cli" else f"({m.group(1)})", text)
    text = _SEARCH_CALL.sub(words["search"], text)
    text = _RELOADED.sub(_RELOAD_WORDS[door], text)
    reject = "%reject" if door == "magic" else "codemode reject"
    text = _REJECT_CALL.sub(lambda m: f"{reject} {m.group(1)}", text)

    def describe(match: re.Match[str]) -> str:
        option = (f" --page {match.group(3)}" if match.group(3) else " --full" if match.group(2) else "")
        return f"{words['describe']} {match.group(1)}{option}"

    text = _DESCRIBE_CALL.sub(describe, text)
    if path is None:
        return text

    def more(match: re.Match[str]) -> str:
        said = [f"{words['describe']} {path}.{s}" for s in _SUFFIX.findall(match.group(1))[:5]]
        if "full=True" in match.group(1):
            said.append(f"{words['describe']} {path} --full")
        return match.group(0) + ("\n# here: " + "; ".join(said) if said else "")

    return _DESCRIBE_MORE.sub(more, text)
