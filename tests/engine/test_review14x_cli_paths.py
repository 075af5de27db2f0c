"""Review 14x: a mistyped path or store given to the ``codemode`` command.

- ``codemode --dir /no/such/folder executions`` exits 0 with an empty list, and has *created*
  ``/no/such/folder/.codemode/`` and a journal in it: a typo reads as "no history", from a command
  that only reads.
- ``codemode --notebook nope.ipynb executions`` (no such notebook) likewise creates
  ``.codemode/nope.codemode.db`` and shows nothing.
- ``codemode --store bogus://x executions`` prints "Using sqlite:///.../<folder>.codemode.db
  instead" and goes on, exit 0: an explicit ``--store`` on the command line falls back to another
  journal, so ``codemode --store <typo> approve ID`` would act on that one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel.cli import main


def test_a_missing_dir_is_an_error_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no" / "such" / "folder"
    rc = main(["--dir", str(missing), "executions"])
    err = capsys.readouterr().err
    assert not missing.exists(), "a read-only command created the folder and a journal"
    assert rc != 0 and str(missing) in err, err


def test_a_missing_notebook_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["--notebook", str(tmp_path / "nope.ipynb"), "executions"])
    err = capsys.readouterr().err
    assert not (tmp_path / ".codemode").exists(), list(tmp_path.rglob("*"))
    assert rc != 0 and "nope.ipynb" in err, err


def test_an_explicit_store_that_cannot_open_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    rc = main(["--dir", str(tmp_path), "--store", "bogus://x", "executions"])
    assert rc != 0, capsys.readouterr()
    assert not (tmp_path / ".codemode").exists()
