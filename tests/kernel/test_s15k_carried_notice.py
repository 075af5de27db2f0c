"""s15k (review 15x M1): which names a cell's "Not carried to later cells" line may name.

Only names the cell surely bound: not those of a ``try`` body that has handlers (an ``except``
may have skipped them), and not a pre-imported module imported under its own name (every cell
has it). The cases the review's spec does not cover are here, read from the code alone.
"""

from __future__ import annotations

from codemode_kernel.kernel.variables import assigned_names


def test_a_pre_imported_module_under_another_name_is_still_lost() -> None:
    assert list(assigned_names("import json as j\nfrom datetime import date\nimport datetime")) == ["j", "date"]


def test_a_try_without_handlers_and_a_finally_still_count() -> None:
    code = "try:\n    f = lambda: 1\nfinally:\n    g = {1}\n"
    assert list(assigned_names(code)) == ["f", "g"]
    handled = "try:\n    f = lambda: 1\nexcept ValueError:\n    pass\nfinally:\n    g = {1}\n"
    assert list(assigned_names(handled)) == ["g"]


def test_a_pre_imported_module_replaces_a_lost_name_of_its_own() -> None:
    assert assigned_names("json = {1}\nimport json") == {}
