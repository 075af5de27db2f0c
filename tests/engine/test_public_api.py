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


def test_the_seeds_helpers_are_public() -> None:
    """The seeds' helpers and the SDK adapters are importable from the package (issue 15)."""
    for name in ("create_code_tool", "code_mcp_server", "openapi_mcp_server", "truncate",
                 "generate_types_from_json_schema", "json_schema_to_type", "openai_chat_tool",
                 "openai_responses_tool", "anthropic_tool", "pydantic_ai_tool"):
        assert name in codemode_kernel.__all__ and callable(getattr(codemode_kernel, name))


def test_no_model_sdk_is_imported_by_the_package() -> None:
    """The adapters build the SDKs' formats without importing them: no SDK is a dependency."""
    code = ("import sys, codemode_kernel, codemode_kernel.adapters, codemode_kernel.code_tool\n"
            "print([m for m in ('openai', 'anthropic', 'pydantic_ai') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
