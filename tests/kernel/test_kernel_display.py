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


def test_a_list_of_flat_dicts_is_a_table_and_nested_data_is_json() -> None:
    rows = [{"a": 1, "b": "x"}, {"a": 2, "c": None}]
    assert is_table(rows)
    bundle = result_bundle(rows)
    assert set(bundle) == {"text/plain", "text/html"}
    assert "<th>a</th><th>b</th><th>c</th>" in bundle["text/html"]
    nested = [{"a": {"b": 1}}]
    assert not is_table(nested) and result_bundle(nested)["application/json"] == nested
    assert not is_table([]) and not is_table([1, 2])


def test_json_shows_bytes_and_dates_readably() -> None:
    bundle = result_bundle({"when": datetime(2026, 1, 2, 3, 4), "raw": b"abc", "pair": (1, 2)})
    assert bundle["application/json"] == {"when": "2026-01-02T03:04:00", "raw": "<3 bytes>", "pair": [1, 2]}
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
        approve=lambda: log.append("approve"), reject=lambda seq: log.append(f"reject {seq}"),
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
    assert log == ["approve"]
    assert all(b.disabled for b in c._action_buttons)
    c.refused("stale", retry=False)
    approve.click()
    assert log == ["approve"] and "stale" in c.message.value, "a disabled button's click is ignored"
    c.refused("connector missing", retry=True)
    approve.click()
    assert log == ["approve", "approve"], "a refusal that can be retried re-enables the buttons"


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
    c.finished("error", can_rollback=True, can_save=False)
    c.rollback_button.click()
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
