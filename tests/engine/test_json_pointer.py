"""Local JSON references (RFC 6901 in a URI fragment): the one helper behind every $ref the package follows."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemode_kernel import json_pointer

DOC: dict[str, Any] = {"components": {"schemas": {"Pet": {"type": "object"}, "a/b": 1, "m~n": 2, "": 3,
                                                  "per cent": 4}},
                       "list": [{"x": 5}, 6]}


@pytest.mark.parametrize("ref, value", [
    ("#", DOC),
    ("#/components/schemas/Pet", {"type": "object"}),
    ("#/components/schemas/a~1b", 1),
    ("#/components/schemas/m~0n", 2),
    ("#/components/schemas/", 3),
    ("#/components/schemas/per%20cent", 4),
    ("#/list/0/x", 5),
    ("#/list/1", 6),
])
def test_a_local_reference_names_its_node(ref: str, value: Any) -> None:
    """Tokens are percent-decoded, then ~1 is / and ~0 is ~; decimal tokens index lists."""
    assert json_pointer.resolve(DOC, ref) == value


@pytest.mark.parametrize("ref, walked, token", [
    ("#/components/schemas/Dog", "#/components/schemas", "Dog"),
    ("#/list/2", "#/list", "2"),
    ("#/list/x", "#/list", "x"),
    ("#/components/schemas/a~1b/deeper", "#/components/schemas/a~1b", "deeper"),
])
def test_a_reference_that_names_nothing_says_where_it_stopped(ref: str, walked: str, token: str) -> None:
    with pytest.raises(json_pointer.Unresolved) as caught:
        json_pointer.resolve(DOC, ref)
    assert (caught.value.walked, caught.value.token) == (walked, token)
    assert str(caught.value) == f"$ref {ref!r} does not resolve: {walked} has no {token!r}"


@pytest.mark.parametrize("ref", ["other.yaml#/A", "#A", "components/schemas/Pet", ""])
def test_only_local_pointers_are_followed(ref: str) -> None:
    assert not json_pointer.is_local(ref)
    with pytest.raises(ValueError, match="not a local reference"):
        json_pointer.resolve(DOC, ref)


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6), max_size=4))
def test_pointer_and_tokens_are_inverse(parts: list[str]) -> None:
    """Any keys (with / and ~) survive being written as a pointer and read back (a % is written %25 in a fragment)."""
    assert json_pointer.tokens(json_pointer.pointer(parts).replace("%", "%25")) == parts
