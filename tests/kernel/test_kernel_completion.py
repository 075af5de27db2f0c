"""Completion and inspection: over the protocol, and the pure functions behind them."""

from __future__ import annotations

from codemode_kernel.kernel.completion import Names, complete, inspect_local, token_at
from tests.kernel.kernel_harness import Kernel


def matches(kernel: Kernel, code: str, cursor: int | None = None) -> list[str]:
    pos = len(code) if cursor is None else cursor
    return list(kernel.shell_reply(kernel.kc.complete(code, pos))["content"]["matches"])


def test_connector_dot_lists_its_methods(shared_kernel: Kernel) -> None:
    assert matches(shared_kernel, "notes.") == ["add_note", "fail", "list_notes"]
    assert matches(shared_kernel, "x = notes.li") == ["list_notes"]


def test_codemode_dot_lists_the_sdk(shared_kernel: Kernel) -> None:
    assert matches(shared_kernel, "codemode.") == ["describe", "run", "search", "step"]


def test_names_from_earlier_cells_and_globals_complete(shared_kernel: Kernel) -> None:
    shared_kernel.ok("carried_value = [1, 2]")
    assert "carried_value" in matches(shared_kernel, "carr")
    assert "notes" in matches(shared_kernel, "no")
    assert "json" in matches(shared_kernel, "js")
    assert "append" in matches(shared_kernel, "carried_value.ap")
    assert "dumps" in matches(shared_kernel, "json.du")


def test_magics_complete(shared_kernel: Kernel) -> None:
    assert "%approve" in matches(shared_kernel, "%app")
    assert "notes.add_note" in matches(shared_kernel, "%describe notes.a")
    assert "last" in matches(shared_kernel, "%journal l")


def test_completion_metadata_gives_types_for_jupyterlab(shared_kernel: Kernel) -> None:
    reply = shared_kernel.shell_reply(shared_kernel.kc.complete("notes.add", 9))["content"]
    items = reply["metadata"]["_jupyter_types_experimental"]
    assert items == [{"start": 6, "end": 9, "text": "add_note", "type": "function",
                      "signature": "Add a note with the given text."}]
    assert (reply["cursor_start"], reply["cursor_end"]) == (6, 9)


def test_inspecting_a_method_shows_its_declarations(shared_kernel: Kernel) -> None:
    code = "notes.add_note(text='x')"
    reply = shared_kernel.shell_reply(shared_kernel.kc.inspect(code, 10))["content"]
    assert reply["found"] is True
    text = reply["data"]["text/plain"]
    assert "def add_note(" in text and "text: str" in text and "requires approval" in text
    connector = shared_kernel.shell_reply(shared_kernel.kc.inspect("notes", 3))["content"]
    assert "class notes" in connector["data"]["text/plain"]


def test_inspecting_other_names(shared_kernel: Kernel) -> None:
    reply = shared_kernel.shell_reply(shared_kernel.kc.inspect("codemode.step", 12))["content"]
    assert "codemode.step(name: str, fn" in reply["data"]["text/plain"]
    nothing = shared_kernel.shell_reply(shared_kernel.kc.inspect("undefined_thing", 3))["content"]
    assert nothing["found"] is False


NAMES = Names(connectors={"github": {"list_pull_requests": "List PRs.", "create_issue": "Create."}},
              variables={"rows": [1], "title": "x"}, magics=["approve", "journal"],
              executions=["01ABC"], snippets=["top_prs"])


def test_complete_is_a_pure_function_of_the_names() -> None:
    reply = complete("github.cr", 9, NAMES)
    assert reply["matches"] == ["create_issue"] and reply["cursor_start"] == 7
    assert {"round", "rows"} <= set(complete("ro", 2, NAMES)["matches"])
    assert complete("%approve ", 9, NAMES)["matches"] == ["01ABC", "last"]
    assert complete("%describe t", 11, NAMES)["matches"] == ["top_prs"]
    assert complete("%snippet delete ", 16, NAMES)["matches"] == ["top_prs"]
    assert complete("x = ", 4, NAMES)["matches"] == []
    assert complete("unknown.", 8, NAMES)["matches"] == []


def test_modules_complete_without_private_names() -> None:
    found = complete("math.", 5, NAMES)["matches"]
    assert "sqrt" in found and not [m for m in found if m.startswith("_")]


def test_token_at_finds_the_dotted_name_around_the_cursor() -> None:
    assert token_at("x = github.list_pull_requests(owner='o')", 15) == "github.list_pull_requests"
    assert token_at("github.create_issue(", 20) == "github.create_issue"
    assert token_at("   ", 1) == ""


def test_inspect_local_texts() -> None:
    assert "carried over" in (inspect_local("rows", NAMES) or "")
    assert "Return the square root" in (inspect_local("math.sqrt", NAMES) or "")
    assert inspect_local("math._private", NAMES) is None
    assert inspect_local("nothing", NAMES) is None


def test_the_sdk_signatures_are_the_sandbox_methods_own() -> None:
    """codemode.search and codemode.describe show every option the sandbox takes (limit, connector, page, full)."""
    search = inspect_local("codemode.search", NAMES) or ""
    assert search.startswith("codemode.search(query: str, limit: int | None = None, connector: str | None = None)")
    describe = inspect_local("codemode.describe", NAMES) or ""
    assert describe.startswith("codemode.describe(target: str, page: int = 1, full: bool = False) -> dict")
    items = complete("codemode.s", 10, NAMES)["metadata"]["_jupyter_types_experimental"]
    assert [i["signature"] for i in items if i["text"] == "search"] == [search.split("\n", 1)[0]]
