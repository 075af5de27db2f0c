"""truncate: a result cut to a budget of characters or tokens, with a note saying what was cut."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemode_kernel import truncate

NOTE = "truncated: showing"


def test_a_value_that_fits_comes_back_unchanged() -> None:
    """Strings and structures within the budget are returned as they are (the same object)."""
    rows = [{"id": i} for i in range(3)]
    assert truncate(rows, max_chars=1000) is rows
    assert truncate("short", max_tokens=10) == "short"


def test_a_long_string_is_cut_with_a_note() -> None:
    """The answer fits the budget and says how much of how much is shown."""
    out = truncate("word " * 1000, max_chars=200)
    assert len(out) <= 200
    assert out.startswith("word word") and "of 5,000 characters; ask for less]" in out


def test_a_structure_becomes_its_json_text_cut() -> None:
    """A list or dict that does not fit: the model gets the start of its JSON and a note."""
    out = truncate([{"id": i, "name": f"item {i}"} for i in range(500)], max_chars=300)
    assert isinstance(out, str) and len(out) <= 300
    assert out.startswith('[{"id":0,"name":"item 0"}') and "characters of JSON" in out


def test_tokens_are_estimated_as_four_characters() -> None:
    """max_tokens=50 allows 200 characters without a tokenizer."""
    assert truncate("x" * 200, max_tokens=50) == "x" * 200
    out = truncate("x" * 201, max_tokens=50)
    assert len(out) <= 200 and NOTE in out


def test_a_tokenizer_counts_tokens_when_given() -> None:
    """With a tokenizer (here: one token per word), the cut respects its count."""
    words = " ".join(f"w{i}" for i in range(100))
    out = truncate(words, max_tokens=20, tokenizer=lambda s: len(s.split()))
    assert len(out.split()) <= 20 and NOTE in out and out.startswith("w0 w1")


def test_both_budgets_apply() -> None:
    out = truncate("y" * 1000, max_chars=500, max_tokens=50)
    assert len(out) <= 200


def test_bytes_and_dates_are_counted_as_json() -> None:
    """Values that are not JSON are measured (and cut) as the JSON the model would read."""
    out = truncate([b"\x00" * 300], max_chars=100)
    assert out.startswith('[{"$bytes":"AAAA')


def test_a_budget_must_be_given_and_positive() -> None:
    with pytest.raises(ValueError, match="give max_chars, max_tokens or both"):
        truncate("x")
    with pytest.raises(ValueError, match="max_chars must be a positive whole number"):
        truncate("x", max_chars=0)
    with pytest.raises(ValueError, match="max_tokens must be a positive whole number"):
        truncate("x", max_tokens=True)


@given(st.text(), st.integers(min_value=120, max_value=2000))
def test_the_answer_never_exceeds_the_budget(text: str, budget: int) -> None:
    """Whatever the text, the answer fits (a budget of at least the note's length); a cut text is a prefix."""
    out = truncate(text, max_chars=budget)
    assert len(out) <= budget
    if out != text:
        shown = out[: out.index("\n… [truncated")]
        assert text.startswith(shown) and json.dumps(out)
