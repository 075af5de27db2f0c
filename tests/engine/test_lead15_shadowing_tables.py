"""A codemode.toml table named like a pre-imported module or a builtin is loaded and reported (review 15x M17,
the configuration's door): in cells the name is the connector, and what it hides is out of reach."""

from __future__ import annotations

from pathlib import Path

from codemode_kernel.config import load_config

TOOLS = 'from codemode_kernel import ToolSetConnector\ndef make():\n    def ping() -> str:\n        """p"""\n' \
        '        return "pong"\n    return ToolSetConnector([ping], name=NAME, target="lead15")\n'


def config_with(tmp_path: Path, name: str) -> list[str]:
    module = f"lead15_shadow_{name}"  # one module per name: a module imported once stays imported
    (tmp_path / f"{module}.py").write_text(TOOLS.replace("NAME", repr(name)), encoding="utf-8")
    (tmp_path / "codemode.toml").write_text(f'[connectors.{name}]\npython = "{module}:make"\n', encoding="utf-8")
    config = load_config(tmp_path)
    assert [c.name for c in config.connectors] == [name], "loaded all the same"
    return [str(p) for p in config.problems]


def test_a_table_named_like_a_module_is_reported(tmp_path: Path) -> None:
    problems = config_with(tmp_path, "json")
    assert len(problems) == 1 and "the module json" in problems[0] and "json_api" in problems[0], problems


def test_a_table_named_like_a_builtin_is_reported(tmp_path: Path) -> None:
    problems = config_with(tmp_path, "len")
    assert len(problems) == 1 and "the builtin len()" in problems[0], problems


def test_an_ordinary_name_is_not(tmp_path: Path) -> None:
    assert config_with(tmp_path, "notes") == []
