"""A tool named like a frame or code attribute stays callable (issue 12 review, s11w's report).

The sandbox's compiler refuses ``obj.f_back``, ``obj.gi_code``, … (RestrictedPython's
``INSPECT_ATTRIBUTES``) after a dot, so a tool that kept such a name could never be called.
``sanitize_identifier`` gives these names a trailing ``_``, as it does for keywords.
"""

from __future__ import annotations

from typing import Any

import pytest
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from codemode_kernel.connectors.base import _INSPECT_ATTRIBUTES, Connector, Tool, sanitize_identifier


def test_the_copy_is_the_library_s_list() -> None:
    """It is an error if connectors.base's copy of the refused names differs from RestrictedPython's."""
    assert frozenset(INSPECT_ATTRIBUTES) == _INSPECT_ATTRIBUTES


@pytest.mark.parametrize("name", sorted(INSPECT_ATTRIBUTES))
def test_every_refused_attribute_name_gets_a_trailing_underscore(name: str) -> None:
    """It is an error if a tool name the sandbox refuses after a dot is kept as the method name."""
    assert sanitize_identifier(name) == name + "_"


def test_other_names_are_unchanged() -> None:
    """It is an error if a name merely close to a refused one changes."""
    assert [sanitize_identifier(n) for n in ("f_backup", "code", "frame", "tb", "gi")] == \
        ["f_backup", "code", "frame", "tb", "gi"]


class Frames(Connector):
    """A connector (as an MCP server's tools are) whose tool names are frame attribute names."""

    name = "frames"

    def tools(self) -> dict[str, Tool]:
        def make(label: str) -> Tool:
            async def handler(args: dict[str, Any], ctx: Any) -> str:
                return f"{label}:{args.get('x')}"
            return Tool(execute=handler, description=f"the tool {label}",
                        input_schema={"type": "object", "properties": {"x": {"type": "integer"}}})
        return {"f_back": make("f_back"), "gi_code": make("gi_code")}


@pytest.mark.anyio
async def test_such_tools_run_through_the_runtime(make_runtime: Any) -> None:
    """It is an error if, with either executor, a tool named ``f_back`` or ``gi_code`` cannot be called."""
    rt = make_runtime([Frames()])
    out = await rt.execute("[frames.f_back_(x=1), frames.gi_code_(x=2)]")
    assert out["status"] == "completed", out
    assert out["result"] == ["f_back:1", "gi_code:2"]
