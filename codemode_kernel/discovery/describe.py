"""Targeted Python declarations for a connector, a method or a snippet."""

from __future__ import annotations

from typing import Any

from codemode_kernel.catalog import Catalog, Method
from codemode_kernel.discovery.stubs import connector_stub, method_stub
from codemode_kernel.models import DescribeOutput


def describe_method(m: Method) -> DescribeOutput:
    t = m.tool
    return DescribeOutput(
        path=m.path,
        description=t.description,
        requires_approval=t.requires_approval,
        types=method_stub(m.name, description=t.description, input_schema=t.input_schema,
                          output_schema=t.output_schema, requires_approval=t.requires_approval),
        kind="method",
    )


def describe_connector(catalog: Catalog, name: str) -> DescribeOutput:
    c = catalog.connectors[name]
    methods = sorted(catalog.methods[name].values(), key=lambda m: m.name)
    return DescribeOutput(
        path=name,
        description=c.instructions or "",
        requires_approval=False,
        types=connector_stub(name, c.instructions, [(m.name, m.tool.description, m.tool.requires_approval)
                                                    for m in methods]),
        kind="connector",
    )


def describe_snippet(name: str, description: str, code: str, input_schema: Any,
                     connectors: list[str]) -> DescribeOutput:
    schema = input_schema if isinstance(input_schema, dict) else {}
    wrapped = {"type": "object", "properties": {"input": schema}, "required": ["input"]} if schema else None
    header = method_stub("run", description=f"codemode.run({name!r}, input): {description}".strip(),
                         input_schema=wrapped or {"type": "object", "properties": {}})
    body = "\n".join("# " + line for line in code.splitlines())
    uses = f"# connectors: {', '.join(connectors) or '(none)'}\n"
    return DescribeOutput(path=name, description=description, requires_approval=False,
                          types=f"{header}\n# snippet source:\n{uses}{body}\n", kind="snippet")
