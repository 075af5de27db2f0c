"""s15k (review 15x L9): completion inside a connector call offers its arguments as ``name=`` (not
those given already), a string subscript of a carried dict offers its keys, any other text being
typed offers nothing, and a module's C capsules are not offered."""

from __future__ import annotations

from codemode_kernel.kernel.completion import Names, complete

NAMES = Names(connectors={"notes": {"add_note": "Add a note."}}, variables={"x": {"alpha": 1, "beta": 2}, "tx": 1},
              arguments={"notes.add_note": ["text", "tags"]})


def matches(code: str) -> list[str]:
    return list(complete(code, len(code), NAMES)["matches"])


def test_a_calls_arguments_come_first_and_given_ones_are_left_out() -> None:
    assert matches("notes.add_note(") == ["text=", "tags="]
    assert matches("notes.add_note(t")[:3] == ["text=", "tags=", "tx"]
    assert "text=" not in matches('notes.add_note(text="a", t')


def test_text_being_typed_offers_keys_or_nothing() -> None:
    assert matches("x['al") == ["alpha"]
    assert matches('x["') == ["alpha", "beta"]
    assert matches('y = "al') == [] and matches('notes.add_note(text="te') == []


def test_module_capsules_are_not_offered() -> None:
    assert matches("datetime.da") == ["date", "datetime"]
