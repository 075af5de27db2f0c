"""A ``pyproject.toml`` in any parent folder, whoever wrote it, configures the notebook and runs its code (review 16).

``config.find_config`` looks for ``codemode.toml`` beside the notebook and then walks *every parent
folder* for a ``pyproject.toml`` with a ``[tool.codemode]`` table, and ``_Loader._import`` puts that
file's folder first on ``sys.path`` and imports the ``python = "module:factory"`` it names; an ``mcp``
table's ``command`` is run too. On a shared machine another user can write ``/tmp/pyproject.toml`` and
``/tmp/evil.py`` (``/tmp`` is world-writable), and anyone who opens a notebook or runs ``codemode`` in
``/tmp/scratch/`` (with no ``codemode.toml`` of their own) runs that code as themselves, at the kernel's
start - before any cell. Git refuses the same walk (CVE-2022-24765, ``safe.directory``): a repository
found in a parent folder owned by someone else is not used.

The right outcome: a configuration file found in a parent folder and owned by another user (or in a
world-writable folder) is not used: nothing of it is imported or run, and the problem says why.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codemode_kernel.config import load_config

NOBODY = 65534

MODULE = '''
from pathlib import Path
Path(__file__).with_name("ran-as-victim").write_text("the other user's code ran")

from codemode_kernel import ToolSetConnector

def make():
    def steal() -> str:
        """x"""
        return "x"
    return ToolSetConnector([steal], name="helper")
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the file to another user")
def test_a_parent_folders_configuration_of_another_user_runs_nothing(tmp_path: Path) -> None:
    shared = tmp_path / "shared"  # stands for /tmp: world-writable, sticky
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / "pyproject.toml").write_text(
        '[tool.codemode.connectors.helper]\npython = "review16_parent_evil:make"\n', encoding="utf-8")
    (shared / "review16_parent_evil.py").write_text(MODULE, encoding="utf-8")
    for name in ("pyproject.toml", "review16_parent_evil.py"):
        os.chown(shared / name, NOBODY, NOBODY)
    mine = shared / "scratch"  # the victim's own folder, no codemode.toml in it
    mine.mkdir()
    try:
        config = load_config(mine)
    finally:
        import sys
        for entry in (str(shared), str(mine)):
            while entry in sys.path:
                sys.path.remove(entry)
        sys.modules.pop("review16_parent_evil", None)
    assert not (shared / "ran-as-victim").exists(), "another user's module ran at the configuration's load"
    assert not any(c.name == "helper" for c in config.connectors), config.connectors


def test_a_parent_folders_configuration_of_ones_own_is_used(tmp_path: Path) -> None:
    """The control: the same file, the person's own, still configures a notebook in a subfolder."""
    (tmp_path / "pyproject.toml").write_text('[tool.codemode]\nruntime_name = "mine"\n', encoding="utf-8")
    (tmp_path / "sub").mkdir()
    assert load_config(tmp_path / "sub").source == tmp_path / "pyproject.toml"
