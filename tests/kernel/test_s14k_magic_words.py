"""A magic line may end with a comment, as a Python line may (review 14x, noticed)."""

from __future__ import annotations

from codemode_kernel.kernel.magics import parse_magic
from tests.kernel.kernel_harness import Kernel


def test_a_trailing_comment_is_not_an_argument() -> None:
    assert parse_magic("%executions 5  # the recent ones")[1] == {"limit": 5}
    assert parse_magic("%pending # what waits")[1] == {"execution": None}


def test_a_hash_inside_a_word_or_quotes_is_kept() -> None:
    assert parse_magic("%search issue #12")[1] == {"query": "issue #12"}
    assert parse_magic('%search "a # b" c')[1] == {"query": "a # b c"}


def test_deleting_a_paused_execution_names_the_call_it_drops(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute("notes.add_note(text='s14k delete')")
    assert run.status == "ok" and "%approve" in run.stdout + str(run.of("display_data")), run.stdout
    said = shared_kernel.ok("%delete last").stdout
    assert "paused on #0 notes.add_note" in said and "never runs" in said, said
