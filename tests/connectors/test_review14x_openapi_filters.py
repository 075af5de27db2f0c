"""Review 14x: a mistyped ``include`` / ``exclude`` entry of an ``openapi`` table is silently ignored.

Every other name list of a table is checked against the connector's methods, with a suggestion
("no_approval names 'serchPets', which is not a method of this connector. Did you mean
'searchPets'?"). ``include`` and ``exclude`` are not:

- ``include = ["tag:petz", "helth"]`` gives a connector with **no methods** and no problem at all;
- ``exclude = ["deletePett"]`` excludes nothing: ``deletePet`` (the operation the author meant to
  hide) stays callable, and nothing says the entry matched no operation.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from codemode_kernel.building import runtime_for_folder

PETSTORE = Path(__file__).resolve().parents[2] / "codemode_kernel" / "demo" / "petstore.yaml"


def _read(folder: Path, line: str) -> tuple[str, set[str]]:
    (folder / "codemode.toml").write_text(
        f'[connectors.petstore]\nopenapi = "{PETSTORE}"\nbase_url = "http://127.0.0.1:9"\n{line}\n', encoding="utf-8")
    built = runtime_for_folder(folder)

    async def catalog() -> tuple[str, set[str]]:
        async with built.runtime as rt:
            c = await rt.catalog()
            said = " ".join([*map(str, built.problems), *c.unavailable.values()])
            return said, set(c.methods.get("petstore", {}))

    return asyncio.run(catalog())


def test_an_include_that_matches_nothing_is_reported(tmp_path: Path) -> None:
    said, methods = _read(tmp_path, 'include = ["tag:petz", "helth"]')
    assert methods == set()  # what the table says, taken literally
    assert "petz" in said and "helth" in said, said


def test_an_exclude_that_matches_nothing_is_reported(tmp_path: Path) -> None:
    said, methods = _read(tmp_path, 'exclude = ["deletePett"]')
    # Fails closed (lead, session 14): a mistyped exclude leaves the connector out rather than the operation
    # it was written to hide callable.
    assert "deletePet" not in methods
    assert "deletePett" in said, said
