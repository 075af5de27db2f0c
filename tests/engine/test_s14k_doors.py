"""Each door words the library's hints in its own syntax, and takes what they point at
(review 14x M1-M3, M6): the commands table, the ``codemode`` command's JSON and rollback text,
``[executor]`` keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder
from codemode_kernel.cli import main, parse_command
from codemode_kernel.commands import door_text
from codemode_kernel.errors import UnknownExecutionError, UsageError
from codemode_kernel.kernel.magics import MAGICS, parse_magic

TASKS = '''
from codemode_kernel import ToolSetConnector

DONE = []

def list_tasks() -> list:
    """List tasks."""
    return list(DONE)

def add_task(title: str) -> dict:
    """Add a task."""
    DONE.append(title)
    return {"id": len(DONE), "title": title}

def undo(args, result, ctx):
    DONE.remove(result["title"])

def tasks():
    return ToolSetConnector([list_tasks, add_task], name="tasks", requires_approval={"add_task"},
                            reverts={"add_task": undo})
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "s14k_doors_tasks.py").write_text(TASKS)
    (tmp_path / "codemode.toml").write_text('[connectors.tasks]\npython = "s14k_doors_tasks:tasks"\n'
                                            '[executor]\nkind = "inprocess"\n')
    (tmp_path / "write.py").write_text("tasks.add_task(title='x')['id']\n")
    (tmp_path / "read.py").write_text("len(tasks.list_tasks())\n")
    return tmp_path

DESCRIBED = ("# describe more: .items, .return, full=True\n"
             "    15 methods; page 1 of 2 (codemode.describe('shop', page=2) for the next). "
             "codemode.describe('shop.<method>') declares one; codemode.search('what you want') finds one.\n")


def test_the_library_hints_are_worded_for_each_door() -> None:
    cli = door_text(DESCRIBED, "cli", path="shop.add")
    assert "codemode describe shop --page 2 for the next" in cli
    assert "codemode describe shop.<method> declares one; codemode search QUERY finds one" in cli
    assert "# here: codemode describe shop.add.items; codemode describe shop.add.return; codemode describe " \
           "shop.add --full" in cli
    magic = door_text(DESCRIBED, "magic", path="shop.add")
    assert "%describe shop --page 2" in magic and "%search QUERY finds one" in magic
    assert "codemode.describe(" not in cli + magic and "codemode.search(" not in cli + magic
    unknown = str(UnknownExecutionError("01NOPE"))
    assert door_text(unknown, "cli").endswith("List them with `codemode executions`.")
    assert door_text(unknown, "magic").endswith("List them with %executions.")


def test_describe_takes_full_and_page_at_both_doors() -> None:
    for command, values in (parse_command(["describe", "shop", "--full", "--page", "2"]),
                            parse_magic("%describe shop --page=2 --full")):
        assert command.name == "describe"
        assert values == {"target": "shop", "full": True, "page": 2}
    assert parse_magic("%describe shop")[1] == {"target": "shop", "full": False, "page": 1}
    with pytest.raises(UsageError, match="at least 1"):
        parse_magic("%describe shop --page 0")
    with pytest.raises(UsageError, match="takes no value"):
        parse_magic("%describe shop --full=yes")


def test_snippet_usage_keeps_each_action_word() -> None:
    assert MAGICS["snippet"].usage == ("%snippet save NAME [ID|last] [DESCRIPTION] | delete NAME | show NAME")


def _cli(project: Path, capsys: pytest.CaptureFixture[str], *argv: str, answer: str = "y") -> tuple[int, str, str]:
    rc = main(["--dir", str(project), *argv], ask=lambda q: answer)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_rollback_names_what_it_reverted(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _cli(project, capsys, "run", "--approve", "yes", str(project / "write.py"))
    assert rc == 0
    rc, out, _ = _cli(project, capsys, "rollback", "last")
    assert rc == 0 and "rolled back 1 action(s): tasks.add_task (call #0)" in out, out
    rc, out, _ = _cli(project, capsys, "run", str(project / "read.py"))
    rc, out, _ = _cli(project, capsys, "--json", "rollback", "last")
    answer = json.loads(out)
    assert rc == 0 and answer["reverted"] == [] and answer["status"] == "completed", answer


def test_json_run_answered_no_prints_one_document(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # r rejects; n or Enter leaves it waiting (review 16x L7, s16c)
    rc, out, _ = _cli(project, capsys, "--json", "run", str(project / "write.py"), answer="r")
    assert rc == 1
    answer = json.loads(out)
    assert answer["rejected"] is True and answer["status"] == "rejected", answer


def test_json_reject_of_nothing_pending_says_so(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _cli(project, capsys, "--json", "run", str(project / "read.py"))
    eid = json.loads(out)["execution_id"]
    rc, out, _ = _cli(project, capsys, "--json", "reject", eid)
    assert rc == 1 and json.loads(out) == {"execution_id": eid, "rejected": False, "seq": None}


def _executor_problems(folder: Path, table: str) -> tuple[list[str], object]:
    import asyncio

    (folder / "codemode.toml").write_text(f"[executor]\n{table}\n", encoding="utf-8")
    built = runtime_for_folder(folder)
    executor = built.runtime.executor
    asyncio.run(built.runtime.aclose())
    return [str(p) for p in built.problems], executor


def test_executor_keys_that_are_right_raise_no_problem(tmp_path: Path) -> None:
    problems, executor = _executor_problems(tmp_path, "warm = 0\ntimeout = 7\nmax_memory_bytes = 300000000")
    assert problems == []
    assert getattr(executor, "limits").timeout == 7  # noqa: B009
    problems, executor = _executor_problems(tmp_path, 'kind = "inprocess"\ntimeout = 7\nmax_calls = 5')
    assert problems == []
    assert getattr(executor, "limits").max_calls == 5  # noqa: B009


def test_an_inprocess_typo_is_named_with_the_inprocess_limits(tmp_path: Path) -> None:
    problems, executor = _executor_problems(tmp_path, 'kind = "inprocess"\ntimout = 3\nmax_calls = 5')
    assert len(problems) == 1 and "(did you mean 'timeout'?)" in problems[0], problems
    assert getattr(executor, "limits").max_calls == 5  # noqa: B009


def test_run_prints_what_the_first_pass_printed_once(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The approval replays the program from the top; its earlier output is not printed again."""
    (project / "chatty.py").write_text("print('before the call')\ntasks.add_task(title='y')\nprint('after')\n")
    rc, out, _ = _cli(project, capsys, "run", "--approve", "yes", str(project / "chatty.py"))
    assert rc == 0, out
    assert out.count("before the call") == 1 and out.count("after") == 1, out


def test_json_run_asks_on_stderr(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`input()` writes its prompt to stdout: with --json the question goes to stderr instead."""
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return "y"

    rc = main(["--dir", str(project), "--json", "run", str(project / "write.py")], ask=ask)
    captured = capsys.readouterr()
    assert rc == 0 and json.loads(captured.out)["status"] == "completed"
    assert prompts == [""] and "Approve tasks.add_task? [y/N]" in captured.err, (prompts, captured.err)
