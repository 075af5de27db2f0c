"""An OpenAPI document's YAML aliases cannot expand without bound or nest into themselves (lead, from
review 13's notes: a 0.8 KB document of nine levels of nine aliases made ``codemode.describe`` take
seconds and gigabytes, since walkers and ``json.dumps`` expand every alias)."""

from __future__ import annotations

import pytest

from codemode_kernel.connectors.openapi_document import MAX_ALIAS_EXPANSION, parse_text
from codemode_kernel.errors import ConfigurationError


def bomb(levels: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "openapi: 3.0.0\npaths: {}\nx-shared:\n" + "\n".join("  " + line for line in lines) + "\n"


def test_an_alias_bomb_is_refused_with_what_to_do() -> None:
    assert MAX_ALIAS_EXPANSION < 9 ** 9
    with pytest.raises(ConfigurationError) as refused:
        parse_text(bomb(9), "pets.yaml")
    text = str(refused.value)
    assert text.startswith("pets.yaml: its YAML aliases (*) expand to ") and "$ref" in text


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="refers to a node that contains it"):
        parse_text("openapi: 3.0.0\npaths: {}\nx-loop: &loop {next: [*loop]}\n", "loop.yaml")


def test_shared_parts_within_the_budget_load_as_before() -> None:
    data = parse_text(bomb(5), "small.yaml")  # 9**4 leaves: well within the budget
    assert len(data["x-shared"]["a4"]) == 9 and data["x-shared"]["a4"][0] is data["x-shared"]["a3"]
    text = "openapi: 3.0.0\npaths: {}\nx-a: &e {code: 1}\nx-b: [*e, *e]\nx-c: 'R&D *starred*'\n"
    assert parse_text(text, "ok.yaml")["x-b"] == [{"code": 1}, {"code": 1}]
