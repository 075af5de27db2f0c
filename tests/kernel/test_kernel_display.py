"""What cells show: MIME bundles, error tracebacks, replayed output, the card's states."""

from __future__ import annotations

from datetime import datetime

from codemode_kernel.kernel.display import (
    error_parts,
    error_traceback,
    is_table,
    pending_summary,
    result_bundle,
    table_bundle,
)
from codemode_kernel.kernel.output import RecordingSink, ReplayFilter, Tee
from codemode_kernel.kernel.widgets import CardActions, ExecutionCard
from tests.kernel.kernel_harness import Kernel


def test_a_list_of_records_is_a_table_even_with_short_nested_values() -> None:
    rows = [{"a": 1, "b": "x"}, {"a": 2, "c": None, "tags": ["x", "y"]}]
    assert is_table(rows)
    bundle = result_bundle(rows)
    assert set(bundle) == {"text/plain", "text/html"}  # no application/json: JupyterLab would prefer it
    assert "<th>a</th><th>b</th><th>c</th><th>tags</th>" in bundle["text/html"]
    assert "<td>[&quot;x&quot;, &quot;y&quot;]</td>" in bundle["text/html"]
    assert not is_table([{"blob": {"k": "v" * 200}}]), "a record with a long nested value is a tree"
    assert not is_table([]) and not is_table([1, 2]) and not is_table([{}])


def test_small_values_are_text_only() -> None:
    for value in ({"a": 1}, [1, 2, 3], ("x", "y"), {"status": "ok", "n": [1, 2]}, [], {}):
        assert result_bundle(value) == {"text/plain": repr(value)}


def test_equal_rows_are_a_table_without_a_header() -> None:
    rows = [("notes.find_notes", "Find notes whose title or body contains the text."),
            ("notes.list_notes", "List the notes, optionally only those with a tag."),
            ("team.list_people", "List the people of a team.")]
    html = result_bundle(rows)["text/html"]
    assert "<table" in html and "<thead>" not in html and html.count("<tr>") == 3
    assert "<td>notes.find_notes</td>" in html


def test_larger_data_is_a_tree_open_two_levels_deep() -> None:
    value = {"results": [{"path": f"notes.m{i}", "score": i / 10} for i in range(3)], "total": 3,
             "deep": {"one": {"two": {"three": list(range(30))}}}, "text": "long " * 100}
    html = result_bundle(value)["text/html"]
    assert html.count("<details open>") == 3  # the root (level 0), "results" and "deep" (level 1)
    assert "<details><summary><span class=\"codemode-key\">one</span>" in html, "level 2 starts closed"
    assert "[] 3 items" in html and "{} 4 keys" in html
    assert "<th>path</th><th>score</th>" in html, "a list of records inside a tree is a table"
    assert "<span class=\"codemode-key\">total</span>: <span class=\"codemode-number\">3</span>" in html
    assert "…" in html, "long strings are cut in the tree (the tooltip has more)"


def test_a_tree_is_escaped_and_bounded() -> None:
    hostile = "<img src=x onerror=alert(1)>"
    html = result_bundle({hostile: [hostile] * 150, "n": {"k": hostile * 3}})["text/html"]
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "… 50 more" in html
    huge = result_bundle({f"k{i}": {"v": list(range(50))} for i in range(200)})["text/html"]
    assert "the rest is not shown here" in huge and huge.count("codemode-leaf") < 2_100


def test_json_shows_bytes_and_dates_readably() -> None:
    bundle = result_bundle({"when": datetime(2026, 1, 2, 3, 4), "raw": b"abc", "pair": (1, 2),
                            "padding": "x" * 80})
    html = bundle["text/html"]
    assert "&quot;2026-01-02T03:04:00&quot;" in html and "&lt;3 bytes&gt;" in html and "[1, 2]" in html
    assert "datetime.datetime(2026, 1, 2, 3, 4)" in bundle["text/plain"]


def test_large_tables_are_cut_with_a_note_and_cells_escaped() -> None:
    rows = [{"n": i, "html": "<script>"} for i in range(250)]
    html = result_bundle(rows)["text/html"]
    assert html.count("<tr>") == 202 and "50 more rows" in html and "<script>" not in html
    assert table_bundle(["a"], [], empty="nothing here")["text/plain"] == "nothing here"


def test_error_parts_separate_type_message_and_line() -> None:
    assert error_parts({"error_type": "ZeroDivisionError", "error": "ZeroDivisionError: division by zero (line 3)",
                        "line": 3}) == ("ZeroDivisionError", "division by zero", 3)
    assert error_parts({"error_type": "SyntaxError", "error": "SyntaxError: Line 2: SyntaxError: bad (line 2)"}) \
        == ("SyntaxError", "bad", 2)
    assert error_parts({"error_type": "Timeout", "error": "Timeout: the pass ran longer than 3 s"}) \
        == ("Timeout", "the pass ran longer than 3 s", None)


def test_the_traceback_shows_the_failing_cell_line_with_context() -> None:
    code = "a = 1\nb = 2\nc = a / 0\nd = 4\ne = 5\nf = 6\n"
    lines = error_traceback("ZeroDivisionError", "division by zero", code=code, line=3, count=7)
    text = "\n".join(lines)
    assert "In[7]" in text and "line 3" in text
    assert "----> 3" in text and "c = a / 0" in text
    assert "a = 1" in text and "e = 5" in text and "f = 6" not in text
    assert lines[-1].endswith("division by zero")
    deep = error_traceback("ValueError", "x", code=code, line=None, count=None,
                           frames="  cell, line 5: f()\n  snippet top, line 2: raise ValueError('x')")
    assert any("snippet top, line 2" in line for line in deep)


def test_pending_summary_is_a_usable_text_stand_in() -> None:
    text = pending_summary("01ABC", [{"seq": 1, "connector": "gh", "method": "create_issue",
                                      "args": {"title": "Bug"}}])
    assert "#1 gh.create_issue(title='Bug')" in text and "%approve 01ABC" in text


def test_the_replay_filter_drops_what_was_already_shown() -> None:
    shown: list[str] = []
    live = ReplayFilter("a\nb\n", shown.append)
    for chunk in ["a\n", "b", "\n", "c\n"]:
        live(chunk)
    assert shown == ["c\n"] and live.printed == "a\nb\nc\n"
    shown.clear()
    changed = ReplayFilter("a\nb\n", shown.append)
    changed("a\nX\n")
    changed("more\n")
    assert shown == ["X\n", "more\n"], "a changed print is shown, never hidden"


def test_tee_writes_to_every_sink() -> None:
    one, two = RecordingSink(), RecordingSink()
    tee = Tee([one, two])
    tee.stream("x")
    tee.display({"text/plain": "1"}, result=True)
    tee.error("E", "v", ["tb"])
    assert one.outputs == two.outputs and len(one.outputs) == 3


def card(log: list[str]) -> ExecutionCard:
    return ExecutionCard("01ABC", CardActions(
        approve_call=lambda seq: log.append(f"approve {seq}"),
        approve_calls=lambda shown: log.append(f"approve all {[p['seq'] for p in shown]}"),
        reject=lambda seq: log.append(f"reject {seq}"),
        rollback=lambda: log.append("rollback"), save_snippet=lambda n, d: log.append(f"save {n} {d}")))


PENDING = [{"seq": 1, "connector": "gh", "method": "a", "args": {}},
           {"seq": 2, "connector": "gh", "method": "b", "args": {"x": 1}}]


def test_approve_all_appears_only_when_several_actions_are_pending() -> None:
    c = card([])
    c.show_pending(PENDING[:1])
    assert c.approve_all.layout.display == "none"
    c.show_pending(PENDING)
    assert c.approve_all.layout.display == "" and len(c.pending_box.children) == 2


def test_a_card_acts_once_until_the_session_answers() -> None:
    log: list[str] = []
    c = card(log)
    c.show_pending(PENDING)
    approve = c.pending_box.children[0].children[0].children[1]
    approve.click()
    approve.click()
    c.approve_all.click()
    assert log == ["approve 1"]
    assert all(b.disabled for b in c._action_buttons)
    c.refused("stale", retry=False)
    approve.click()
    assert log == ["approve 1"] and "stale" in c.message.value, "a disabled button's click is ignored"
    c.refused("connector missing", retry=True)
    approve.click()
    assert log == ["approve 1", "approve 1"], "a refusal that can be retried re-enables the buttons"


def test_a_finished_card_offers_rollback_and_snippet_where_they_apply() -> None:
    log: list[str] = []
    c = card(log)
    c.finished("completed", can_rollback=False, can_save=True)
    assert c.rollback_button.layout.display == "none" and c.snippet_button.layout.display == ""
    c.snippet_button.click()
    c.snippet_save.click()
    assert log == [] and "name first" in c.message.value
    c.snippet_name.value = "mine"
    c.snippet_description.value = "does things"
    c.snippet_save.click()
    c.snippet_save.click()
    assert log == ["save mine does things"]
    c.finished("error", can_rollback=True, can_save=False, revertible=2)
    c.rollback_button.click()
    assert "rollback" not in log, "Roll back asks first, as the side panel does"
    assert c.confirm.layout.display == "" and "newest first (2 calls)" in c.confirm_text.value
    c.confirm_no.click()
    assert c.confirm.layout.display == "none" and "rollback" not in log
    c.rollback_button.click()
    c.confirm_yes.click()
    c.confirm_yes.click()
    c.rollback_button.click()
    assert log[-1] == "rollback" and log.count("rollback") == 1


def test_a_card_is_a_sink_for_what_follows() -> None:
    c = card([])
    c.stream("more\n")
    c.display({"text/plain": "42"}, result=True)
    c.error("Timeout", "too slow", ["Timeout: too slow"])
    kinds = [o["output_type"] for o in c.output.outputs]
    assert kinds == ["stream", "display_data", "error"]
    bundle = c.bundle("summary")
    assert bundle["text/plain"] == "summary"
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == c.root.model_id


def test_a_real_kernel_shows_records_trees_and_small_values_as_people_read_them(kernel: Kernel) -> None:
    """The tour's search: a table of records, a tree around it, plain text beside both."""
    records = kernel.ok('[{"path": r["path"], "approval": r["requires_approval"]} '
                        'for r in codemode.search("add a note")["results"][:2]]').result
    assert records is not None and set(records) == {"text/plain", "text/html"}
    assert "<th>path</th><th>approval</th>" in records["text/html"] and "notes.add_note" in records["text/plain"]
    found = kernel.ok('codemode.search("add a note")').result
    assert found is not None and set(found) == {"text/plain", "text/html"}
    assert found["text/html"].startswith('<div class="tex2jax_ignore mathjax_ignore"><div class="codemode-tree">'
                                         '<details open>')
    assert "<th>path</th>" in found["text/html"] and "'results':" in found["text/plain"]
    assert kernel.ok("{'status': 'ok'}").result == {"text/plain": "{'status': 'ok'}"}
