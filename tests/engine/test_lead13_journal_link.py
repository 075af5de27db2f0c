"""A journal path that is a symbolic link is not followed to create or change its target (lead,
review 13's notes: a link planted at ``.codemode/<name>.codemode.db`` in a shared folder made the
kernel create the link's target, or chmod it)."""

from __future__ import annotations

import os
from pathlib import Path

from codemode_kernel.journal import _prepare_sqlite_file


def test_a_dangling_link_is_not_followed_to_create_its_target(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "victim.db"
    target.parent.mkdir()
    link = tmp_path / "journal.db"
    link.symlink_to(target)
    _prepare_sqlite_file(f"sqlite:///{link}")
    assert not target.exists()


def test_a_link_to_a_file_does_not_change_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "shared.db"
    target.write_bytes(b"")
    os.chmod(target, 0o644)
    link = tmp_path / "journal.db"
    link.symlink_to(target)
    _prepare_sqlite_file(f"sqlite:///{link}")
    assert target.stat().st_mode & 0o777 == 0o644


def test_a_new_journal_is_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "j" / "journal.db"
    _prepare_sqlite_file(f"sqlite:///{path}")
    assert path.stat().st_mode & 0o777 == 0o600
