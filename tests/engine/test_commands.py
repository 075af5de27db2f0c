"""The notebook's magics and the `codemode` command read their arguments from one table.

`codemode_kernel.commands` defines each command's arguments once; both doors parse with it,
so the same words mean the same values, and the same bad words get the same message.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.cli import main, parse_command
from codemode_kernel.commands import BY_NAME, COMMANDS
from codemode_kernel.kernel.magics import Magics, parse_magic
from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.session import NotebookSession

ULID = "01J0000000000000000000000A"

#: Argument lines both doors accept, for every command both doors have.
GOOD: dict[str, list[str]] = {
    "search": ["delete a pet", "'open pull requests'"],
    "describe": ["notes.add_note"],
    "executions": ["", "5", "0"],
    "journal": ["last", "01J000"],
    "pending": ["", "last", ULID],
    "approve": ["last", ULID, "last 2"],
    "reject": ["last", "last 2"],
    "rollback": [ULID],
    "save_snippet": ["six", f"six {ULID}", "six last Adds one two", "six Adds one two"],
    "snippets": [""],
    "connectors": [""],
    "expire": ["", "2h", "30m", "1.5", "0s"],
}

#: Argument lines both doors refuse, with the message both give.
BAD: list[tuple[str, str, str]] = [
    ("search", "", "Missing a query (what you are looking for)."),
    ("describe", "", "Missing a connector, connector.method or snippet name."),
    ("describe", "a b", "Unexpected 'b'."),
    ("executions", "many", "N must be a whole number, not 'many'."),
    ("executions", "-1", "N must not be negative."),
    ("executions", "1 2", "Unexpected '2'."),
    ("journal", "", "Missing an execution id (or last)."),
    ("approve", "", "Missing an execution id (or last)."),
    ("approve", "last more", "SEQ must be a whole number, not 'more'."),
    ("approve", "last 1 more", "Unexpected 'more'."),
    ("reject", "last x", "SEQ must be a whole number, not 'x'."),
    ("rollback", "", "Missing an execution id (or last)."),
    ("save_snippet", "", "Missing the snippet name."),
    ("snippets", "x", "Unexpected 'x'."),
    ("connectors", "x", "Unexpected 'x'."),
    ("expire", "soon", "Cannot read the age 'soon'"),
    ("pending", "last x", "Unexpected 'x'."),
]

BOTH = [c for c in COMMANDS if c.magic and c.cli]


def magic_line(name: str, line: str) -> str:
    command = BY_NAME[name]
    return f"%{command.magic} {line}".rstrip()


def cli_argv(name: str, line: str) -> list[str]:
    command = BY_NAME[name]
    assert command.cli is not None
    return [command.cli, *shlex.split(line)]


def test_every_command_of_both_doors_has_parity_cases() -> None:
    """A command added to both doors needs its cases here."""
    assert {c.name for c in BOTH} == set(GOOD)


def test_the_table_names_each_door_explicitly() -> None:
    """`%journal` is `codemode show`; `%snippet save` is `codemode save-snippet`."""
    assert (BY_NAME["journal"].magic, BY_NAME["journal"].cli) == ("journal", "show")
    assert (BY_NAME["save_snippet"].magic, BY_NAME["save_snippet"].cli) == ("snippet save", "save-snippet")
    assert BY_NAME["run"].magic is None and BY_NAME["vars"].cli is None


@pytest.mark.parametrize("name, line", [(n, ln) for n, lines in GOOD.items() for ln in lines])
def test_the_same_words_mean_the_same_values_at_both_doors(name: str, line: str) -> None:
    magic = parse_magic(magic_line(name, line))
    cli = parse_command(cli_argv(name, line))
    assert magic == cli
    assert magic[0].name == name


def test_values_are_typed_and_defaulted_once() -> None:
    """Counts are ints, ages timedeltas, `last` is the default execution of `snippet save`."""
    assert parse_magic("%executions")[1] == {"limit": 20}
    assert parse_magic("%expire 30m")[1] == {"age": timedelta(minutes=30)}
    assert parse_magic("%reject last 2")[1] == {"execution": "last", "seq": 2}
    assert parse_magic("%snippet save six Adds one two")[1] == {"name": "six", "execution": "last",
                                                                "description": "Adds one two"}
    assert parse_command(["run", "--approve", "no", "-"])[1] == {"file": "-", "approve": "no"}


@pytest.mark.parametrize("name, line, message", BAD)
def test_both_doors_refuse_bad_words_with_the_same_message(name: str, line: str, message: str,
                                                           tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--dir", str(tmp_path), *cli_argv(name, line)])
    assert exited.value.code == 2
    cli_error = capsys.readouterr().err
    assert message in cli_error and f"usage: codemode {BY_NAME[name].cli}" in cli_error

    async def in_a_cell() -> tuple[str, str]:
        session = NotebookSession(cwd=tmp_path, env={})
        sink = RecordingSink()
        try:
            outcome = await Magics(session).run_line(magic_line(name, line), sink)
        finally:
            await session.aclose()
        assert outcome.status == "error"
        return outcome.ename, outcome.evalue

    ename, evalue = asyncio.run(in_a_cell())
    assert ename == "UsageError" and message in evalue
    assert f"Usage: %{BY_NAME[name].magic}" in evalue


CONNECTOR_MODULE = '''
from codemode_kernel import ToolSetConnector

def add_task(title: str) -> dict:
    """Add a task."""
    return {"title": title}

def tasks():
    return ToolSetConnector([add_task], name="tasks", requires_approval={"add_task"})
'''


def test_the_cli_takes_the_kernels_forms(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`codemode executions N`, `pending ID|last`, `expire AGE` and `save-snippet NAME [ID] [DESCRIPTION]` work."""
    (tmp_path / "cmd_tasks.py").write_text(CONNECTOR_MODULE)
    (tmp_path / "codemode.toml").write_text('[connectors.tasks]\npython = "cmd_tasks:tasks"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "one.py").write_text("1 + 1\n")
    (tmp_path / "task.py").write_text("tasks.add_task(title='x')\n")

    def run(*argv: str) -> Any:
        assert main(["--dir", str(tmp_path), "--json", *argv]) == 0
        return json.loads(capsys.readouterr().out)

    done = run("run", str(tmp_path / "one.py"))
    paused = run("run", "--approve", "no", str(tmp_path / "task.py"))
    assert [e["id"] for e in run("executions", "1")] == [paused["execution_id"]]
    assert [p["execution_id"] for p in run("pending", "last")] == [paused["execution_id"]]
    saved = run("save-snippet", "two", "Adds", "one", "and", "one")
    assert saved["execution_id"] == done["execution_id"] and saved["description"] == "Adds one and one"
    assert run("expire", "1d") == []
    assert run("expire", "0s") == [paused["execution_id"]]
