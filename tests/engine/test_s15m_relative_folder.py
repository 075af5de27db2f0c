"""``runtime_for_folder`` with a relative folder builds the runtime an absolute one does.

The folder was used as given: an ``openapi`` table's relative document path was joined to it
twice (``proj/proj/../api/spec.yaml``, so the connector was unavailable), and a ``python`` table's
target named the relative folder, so executions recorded through one spelling of the folder were
refused by the other (session 14's closing note, seen with ``examples/notebooks``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder

PETSTORE = Path(__file__).resolve().parents[2] / "codemode_kernel" / "demo" / "petstore.yaml"

TOML = """\
[connectors.petstore]
openapi = "../api/petstore.yaml"
base_url = "http://127.0.0.1:9"

[connectors.ledger]
python = "books:ledger"
"""

BOOKS = """\
from codemode_kernel import ToolSetConnector


def balance() -> int:
    return 7


ledger = ToolSetConnector([balance], name="ledger")
"""


def _catalog(folder: Path) -> tuple[list[str], dict[str, str], dict[str, list[str]], dict[str, str]]:
    built = runtime_for_folder(folder, store="sqlite://")

    async def read() -> tuple[list[str], dict[str, str], dict[str, list[str]], dict[str, str]]:
        async with built.runtime as rt:
            c = await rt.catalog()
            methods = {name: sorted(ms) for name, ms in c.methods.items()}
            return [str(p) for p in built.problems], dict(c.unavailable), methods, dict(c.targets)

    return asyncio.run(read())


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "petstore.yaml").write_text(PETSTORE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "codemode.toml").write_text(TOML, encoding="utf-8")
    (tmp_path / "proj" / "books.py").write_text(BOOKS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "proj"


def test_a_relative_folder_reads_a_relative_openapi_document(project: Path) -> None:
    """It is an error if a relative folder leaves a relative OpenAPI document unreadable."""
    problems, unavailable, methods, _ = _catalog(Path("proj"))
    assert problems == []
    assert unavailable == {}
    assert "listPets" in methods["petstore"]


def test_a_relative_and_an_absolute_folder_give_the_same_runtime(project: Path) -> None:
    """It is an error if the spelling of the folder changes the connectors, their methods or their targets."""
    relative = _catalog(Path("proj"))
    absolute = _catalog(project.resolve())
    assert relative == absolute
    assert set(absolute[3]) == {"petstore", "ledger"}
