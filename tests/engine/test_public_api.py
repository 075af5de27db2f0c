"""The public door: one import, a sorted __all__, every name importable."""

from __future__ import annotations

import subprocess
import sys

import codemode_kernel


def test_all_is_sorted_and_importable() -> None:
    """__all__ is sorted and each name resolves."""
    assert codemode_kernel.__all__ == sorted(codemode_kernel.__all__)
    for name in codemode_kernel.__all__:
        assert getattr(codemode_kernel, name) is not None


def test_sandbox_import_is_light() -> None:
    """Importing the sandbox module loads no host-side library (the worker imports it)."""
    code = ("import sys, codemode_kernel.executor.sandbox\n"
            "bad = [m for m in ('sqlalchemy', 'ipykernel', 'mcp', 'httpx', 'jsonschema', 'codemode_kernel.runtime')"
            " if m in sys.modules]\nprint(bad)")
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
