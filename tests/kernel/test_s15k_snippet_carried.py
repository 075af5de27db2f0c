"""s15k (review 15x M16): which carried names a snippet's code reads (and so will miss): read and
never assigned by the code itself, among the names the execution was given; never ``input``."""

from __future__ import annotations

from codemode_kernel.kernel.variables import carried_reads, snippet_reads_text

GIVEN = {"prefix": "N: ", "limit": 3, "input": {}, "rows": []}


def test_only_names_read_and_not_assigned_by_the_code_count() -> None:
    code = ("rows = notes.list_notes()\nfor r in rows[:limit]:\n    print(prefix + r['text'])\n"
            "def f(p):\n    return p\ninput.get('x')")
    assert carried_reads(code, GIVEN) == ["limit", "prefix"]
    assert carried_reads("x = (", GIVEN) == []


def test_the_words_name_them_and_the_way_out() -> None:
    said = snippet_reads_text(["prefix"])
    assert "prefix" in said and "input['prefix']" in said and "that name is" in said
    assert snippet_reads_text([]) == ""
