"""The store URL's password never leaves in what the front doors show (review 14 H3).

``journal_files.shown_store`` is the one way a store URL is named to a person: the
password masked in the user part and in the query (``?password=``, ``?sslpassword=``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode_kernel.building import runtime_for_folder
from codemode_kernel.cli import main
from codemode_kernel.journal_files import shown_store, without_store_secrets

PASSWORD = "S3cretPw-s14k"


@pytest.mark.parametrize("url", [
    f"postgresql+psycopg://analyst:{PASSWORD}@127.0.0.1:1/db",
    f"postgresql+psycopg://analyst@127.0.0.1:1/db?password={PASSWORD}",
    f"postgresql+psycopg://analyst@127.0.0.1:1/db?sslmode=require&sslpassword={PASSWORD}",
    f"not-a-dialect-at-all://analyst:{PASSWORD}@host:notaport/db",
])
def test_shown_store_masks_every_password(url: str) -> None:
    shown = shown_store(url)
    assert PASSWORD not in shown, shown
    assert "analyst" in shown and "***" in shown, shown
    assert PASSWORD not in without_store_secrets(f"failed at {url} (password {PASSWORD})", url)


def test_shown_store_leaves_a_url_without_password_readable(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/journal.db"
    assert shown_store(url) == url


def test_a_store_that_cannot_be_opened_is_named_without_its_password(tmp_path: Path) -> None:
    """The fallback problem (shown on the first cell, in %connectors and by the codemode command)."""
    url = f"postgresql+psycopg://analyst:{PASSWORD}@127.0.0.1:1/db"
    built = runtime_for_folder(tmp_path, store=url)
    try:
        text = "\n".join(built.problems)
        assert "cannot be opened" in text, text
        assert PASSWORD not in text, text
    finally:
        import asyncio

        asyncio.run(built.runtime.aclose())


def test_the_command_prints_no_store_password(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"postgresql+psycopg://analyst:{PASSWORD}@127.0.0.1:1/db"
    main(["--dir", str(tmp_path), "--store", url, "executions"])
    captured = capsys.readouterr()
    assert "cannot be opened" in captured.err, captured.err
    assert PASSWORD not in captured.out + captured.err
