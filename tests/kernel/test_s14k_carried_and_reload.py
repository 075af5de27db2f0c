"""Names a cell assigns but cannot carry (review 14x H5) and a %reload of an unreadable file (L4),
at the session's level (no kernel process)."""

from __future__ import annotations

from pathlib import Path

from codemode_kernel.kernel.notebook_runtime import NotebookRuntime
from codemode_kernel.kernel.variables import CarriedVariables, assigned_names, not_carried_text
from tests.kernel.kernel_harness import write_notebook_dir


def test_assigned_names_reads_only_statements_that_always_run() -> None:
    code = ("import json as j2\nfrom math import sqrt\ndef f(x):\n    return x\nclass C: pass\n"
            "s = {1, 2}\ng = (i for i in [1])\nh = lambda: 1\nn = 3\na, (b, *c) = 1, (2, 3)\n"
            "if False:\n    never = 1\nfor k in [1]:\n    looped = 1\ntry:\n    tried = 1\nexcept Exception:\n"
            "    caught = 1\nwith_gone = 1\ndel with_gone\n")
    names = assigned_names(code)
    # A try body with handlers may have stopped before `tried` (review 15x M1): not read.
    assert set(names) == {"j2", "sqrt", "f", "C", "s", "g", "h", "n", "a", "b", "c"}, names
    assert names["f"].startswith("a function") and names["h"].startswith("a function")
    assert names["C"].startswith("a class") and names["j2"].startswith("an import")
    assert names["s"].startswith("a set") and names["g"].startswith("a generator")
    assert "1,000,000" in names["n"]
    assert assigned_names("x = (") == {}


def test_carry_reports_the_names_left_out_and_explains_a_later_name_error() -> None:
    carried = CarriedVariables()
    missed = carried.carry({"variables": {"n": 3}}, {}, "def double(x):\n    return 2 * x\nn = 3\n_private = {1}")
    assert list(missed) == ["double"] and carried["n"] == 3
    assert not_carried_text(missed).startswith("Not carried to later cells: double (a function")
    text = carried.explain("NameError", "name 'double' is not defined. Globals available: n; modules: json.")
    assert "earlier cell assigned it, but it was not carried over" in text and "Globals available: n" in text
    # Other errors and other names keep their text.
    assert carried.explain("NameError", "name 'other' is not defined.") == "name 'other' is not defined."
    assert carried.explain("TypeError", "name 'double' is not defined.") == "name 'double' is not defined."
    # Carried later: the note is gone.
    carried.carry({"variables": {"double": 4}}, {"n": 3}, "double = 4")
    assert carried.explain("NameError", "name 'double' is not defined.") == "name 'double' is not defined."


def test_an_unreadable_file_keeps_the_last_good_configuration_until_it_parses(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "proj", executor='kind = "inprocess"')
    nb = NotebookRuntime(cwd=folder, env={})
    nb.load()
    assert [c.name for c in nb.config.connectors] == ["notes"] and not nb.kept_last_good
    toml = folder / "codemode.toml"
    good = toml.read_text(encoding="utf-8")
    toml.write_text(good + '\nrequires_approval = ["add_note"\n', encoding="utf-8")
    problems = nb.load(reload_modules=True)
    assert nb.kept_last_good and "not valid TOML" in str(problems[0])
    assert [c.name for c in nb.config.connectors] == ["notes"]
    toml.write_text(good.replace('hint = "the analyst\'s notes"', 'hint = "changed"'), encoding="utf-8")
    nb.load(reload_modules=True)
    assert not nb.kept_last_good and not nb.config.problems and nb.config.hints["notes"] == "changed"


def test_a_file_unreadable_from_the_start_is_reported_as_before(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "proj", executor='kind = "inprocess"')
    (folder / "codemode.toml").write_text('[connectors.notes\n', encoding="utf-8")
    nb = NotebookRuntime(cwd=folder, env={})
    problems = nb.load()
    assert not nb.kept_last_good and nb.config.connectors == () and "not valid TOML" in str(problems[0])


def test_a_name_error_under_an_unreadable_configuration_names_the_file(tmp_path: Path) -> None:
    from tests.kernel.kernel_harness import Kernel

    folder = write_notebook_dir(tmp_path / "proj", executor='kind = "inprocess"')
    toml = folder / "codemode.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\nrequires_approval = ["add_note"\n', encoding="utf-8")
    kernel = Kernel(folder)
    try:
        run = kernel.execute("notes.list_notes()")
    finally:
        kernel.shutdown()
    assert run.status == "error" and run.error is not None and run.error["ename"] == "NameError"
    assert "could not be read" in run.error["evalue"] and "not valid TOML" in run.error["evalue"], run.error
