"""Every code block of README.md works, and its tables match the code they describe.

Python blocks run as scripts in a scratch folder; TOML blocks parse, and the configuration
example builds every connector it declares without a problem; shell blocks name real make
targets, files and commands.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from codemode_kernel import Limits
from codemode_kernel.kernel.magics import MAGICS

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
BLOCKS = [(m.group(1), m.group(2)) for m in FENCE.finditer(README)]

pytestmark = pytest.mark.timeout(180)


def blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCKS if lang == language]


def table_rows(first_cell: str) -> list[list[str]]:
    """Rows of the README's Markdown tables whose first cell matches ``first_cell`` (a regex)."""
    rows = []
    for line in README.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if re.fullmatch(first_cell, cells[0]):
                rows.append(cells)
    return rows


def test_every_block_is_python_toml_json_or_shell() -> None:
    assert {lang for lang, _ in BLOCKS} == {"python", "toml", "json", "sh"}


def test_json_blocks_parse() -> None:
    for body in blocks("json"):
        json.loads(body)


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_block_runs(index: int, tmp_path: Path) -> None:
    script = tmp_path / "block.py"
    script.write_text(blocks("python")[index], encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, f"README python block {index + 1} failed:\n{done.stderr}"


CHECK_CONFIG = textwrap.dedent("""
    import asyncio, inspect, json, sys
    from pathlib import Path
    from codemode_kernel.config import load_config
    from codemode_kernel.executor.isolated import Limits

    config = load_config(Path.cwd(), path=Path(sys.argv[1]))
    Limits(**config.executor.limits)  # every [executor] key is a field of Limits

    async def methods(connector):
        tools = connector.tools()
        return sorted(await tools if inspect.isawaitable(tools) else tools)

    report = {"problems": [str(p) for p in config.problems],
              "connectors": {c.name: type(c).__name__ for c in config.connectors},
              "python_methods": asyncio.run(methods(next(c for c in config.connectors if c.name == "notes")))}
    print(json.dumps(report))
""")


def test_toml_blocks_parse_and_the_reference_builds_every_connector(tmp_path: Path) -> None:
    """The reference example uses only real keys: with its files in place, nothing is wrong."""
    tomls = blocks("toml")
    assert tomls
    for body in tomls:
        tomllib.loads(body)
    reference = max(tomls, key=len)
    (tmp_path / "codemode.toml").write_text(reference, encoding="utf-8")
    shutil.copy(REPO / "examples" / "notebooks" / "demo_connectors.py", tmp_path)
    shutil.copy(REPO / "codemode_kernel" / "demo" / "petstore.yaml", tmp_path)
    done = subprocess.run([sys.executable, "-c", CHECK_CONFIG, str(tmp_path / "codemode.toml")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["problems"] == []
    assert report["connectors"] == {"notes": "WithPolicy", "memo": "McpConnector",
                                    "petstore": "OpenApiConnector"}
    assert "add_note" in report["python_methods"]  # the requires_approval patterns matched real methods


def make_targets() -> set[str]:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return {m.group(1) for m in re.finditer(r"^([A-Za-z][\w.-]*):", text, re.M)}


def test_shell_blocks_name_real_targets_files_and_commands() -> None:
    lines = [ln.split(" #", 1)[0].strip() for body in blocks("sh") for ln in body.splitlines()]
    commands = [shlex.split(ln) for ln in lines if ln and not ln.startswith("#")]
    assert ["make", "demo"] in commands and ["make", "test"] in commands
    targets = make_targets()
    for words in commands:
        program, args = words[0], words[1:]
        if program == "make":
            assert set(args) <= targets, f"{words}: not a Makefile target"
            continue
        if (program == "python" or program.endswith("/python")) and args[:1] == ["-m"]:
            positional = []  # the module and its subcommand: the words before the first option
            for arg in args[1:]:
                if arg.startswith("-"):
                    break
                positional.append(arg)
            done = subprocess.run([sys.executable, "-m", *positional, "--help"], capture_output=True, text=True,
                                  timeout=60)
            assert done.returncode == 0, f"{words}: {done.stderr}"
            continue
        if program == "codemode":  # this package's console script: its subcommand must exist
            options_with_values = {"--dir", "--store", "--notebook"}
            rest = [a for i, a in enumerate(args) if not a.startswith("-") and
                    (i == 0 or args[i - 1] not in options_with_values)]
            script = Path(sys.executable).with_name("codemode")
            done = subprocess.run([str(script), *rest[:1], "--help"], capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, f"{words}: {done.stderr}"
        else:
            assert (REPO / program).is_file() if "/" in program else shutil.which(program), f"{words}: no {program}"
        for arg in args:
            if "/" in arg and not arg.startswith("-"):
                assert (REPO / arg).exists(), f"{words}: no {arg}"


def test_links_and_named_files_exist() -> None:
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith(("http://", "https://")):
            assert (REPO / target).is_file(), target
    for name in re.findall(r"`(\d\d_\w+\.ipynb)`", README):
        assert (REPO / "examples" / "notebooks" / name).is_file(), name
    documented = {r[0].strip("`") for r in table_rows(r"`\d\d_\w+\.ipynb`")}
    assert documented == {p.name for p in (REPO / "examples" / "notebooks").glob("*.ipynb")}


def test_magics_table_lists_exactly_the_kernels_magics() -> None:
    documented = {row[0].strip("`").split()[0].lstrip("%") for row in table_rows(r"`%\w+.*`")}
    assert documented == set(MAGICS)


def _shown(value: object) -> str | None:
    """How the README writes a default of Limits."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g} s"
    assert isinstance(value, int)
    if value >= 1 << 30 and value % (1 << 30) == 0:
        return f"{value >> 30} GiB"
    return f"{value:,}"


def test_limits_table_matches_the_limits_dataclass() -> None:
    rows = {row[2].strip("`"): row[1] for row in table_rows(r"[A-Za-z][^|]*") if len(row) == 3 and
            row[2].startswith("`")}
    defaults = Limits()
    assert set(rows) == {f.name for f in dataclasses.fields(Limits)}
    for name, text in rows.items():
        shown = _shown(getattr(defaults, name))
        if shown is not None:
            assert text.startswith(shown), f"{name}: README says {text!r}, the default is {shown!r}"
