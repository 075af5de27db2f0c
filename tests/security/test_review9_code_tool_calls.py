"""Review of the shared argument checks (issue 12, a534d67) through the code tool, from a hostile sandbox.

``connector_threads.decoded_arguments`` and ``check_schema`` now check a call's arguments for the
code tool as for the runtime's passes. A tampered worker (a real process speaking the pipe
protocol as a broken-out worker could) sends the call requests honest code never makes: arguments
that are not valid encoded data, not keywords, off the schema, or that break the schema's check,
to a method that needs a person's approval and to one that does not. The connector never runs
for any of them, an approval-required method is never run by the code tool whatever the
arguments, and each answer is the one the checks promise.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import Connector, create_code_tool
from codemode_kernel.connectors.base import Tool, tool
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from tests.executor.isolated_support import tampered_executors

pytestmark = pytest.mark.anyio

LOOPING = {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}
TYPED = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False}


class Vault(Connector):
    """``open`` needs approval; ``peek`` does not; ``loop``'s schema refers to itself forever (and needs approval)."""

    name = "vault"

    def __init__(self) -> None:
        self.runs: list[str] = []

    def tools(self) -> dict[str, Tool]:
        def run(name: str) -> Callable[..., str]:
            def method(**_args: object) -> str:
                self.runs.append(name)
                return "ran"
            return method

        return {"open": tool(run("open"), input_schema=TYPED, requires_approval=True),
                "peek": tool(run("peek"), input_schema=TYPED),
                "loop": tool(run("loop"), input_schema=LOOPING, requires_approval=True)}


# The worker makes one call, then reports the reply it got as its result.
ONE_CALL = '''
send({{"op": "call", "connector": "vault", "method": "{method}", "args": {args}}})
reply = recv()
send({{"op": "done", "result": json.loads(reply) if reply else None, "variables": {{}}}})
time.sleep(30)
'''


@pytest.fixture
async def tampered(tmp_path: Path) -> AsyncIterator[Callable[[str], SubprocessExecutor]]:
    async with tampered_executors(tmp_path, Limits(timeout=30.0)) as make:
        yield make


def refusal(out: dict[str, Any]) -> tuple[str, str]:
    """The error the program got: the tool's own (the pass ended), or the one replied for the code to raise."""
    if "error_type" in out:
        return str(out["error_type"]), str(out.get("error", ""))
    raised = (out.get("result") or {}).get("raise") or {}
    return str(raised.get("type")), str(raised.get("message"))


@pytest.mark.parametrize(("method", "args", "error_type", "says"), [
    ("open", {"n": 1}, "ApprovalRequired", "needs a person's approval"),
    ("open", {"n": "one"}, "ArgumentError", "was not called"),
    ("open", {"m": 1}, "ArgumentError", "was not called"),
    ("open", [1], "WorkerCrashed", "broke the protocol"),
    ("open", {"n": {"$codemode": "bytes", "v": "***"}}, "CodecError", ""),
    ("open", {"n": 1e999}, "WorkerCrashed", "not strict JSON"),
    ("loop", {"q": 1}, "HostError", "could not check the arguments of vault.loop"),
    ("peek", {"n": "one"}, "ArgumentError", "was not called"),
    ("peek", [1], "WorkerCrashed", "broke the protocol"),
    ("peek", {"n": {"$codemode": "tuple", "v": {"x": 1}}}, "CodecError", ""),
], ids=["approval-valid", "approval-off-schema", "approval-unknown-key", "approval-not-keywords",
        "approval-bad-tag", "approval-not-finite", "approval-check-breaks", "plain-off-schema",
        "plain-not-keywords", "plain-bad-tag"])
async def test_a_call_with_bad_or_unapproved_arguments_never_runs_the_connector(
        tampered: Callable[[str], SubprocessExecutor], method: str, args: Any, error_type: str, says: str) -> None:
    """Whatever arguments a hostile sandbox sends, a refused call runs no connector code, and the program is told
    why (an error it may catch, or the end of the program)."""
    vault = Vault()
    encoded = json.dumps(args).replace("Infinity", "1e999")
    code_tool = create_code_tool([vault], executor=tampered(ONE_CALL.format(method=method, args=encoded)))
    try:
        out = await code_tool.call("...")
    finally:
        await code_tool.aclose()
    assert vault.runs == []
    got_type, message = refusal(out)
    assert got_type == error_type, out
    assert says in message, out


async def test_a_valid_call_to_a_plain_method_runs_once(tampered: Callable[[str], SubprocessExecutor]) -> None:
    """The same worker and checks let a valid call through: the checks refuse what they should, not everything."""
    vault = Vault()
    code_tool = create_code_tool([vault], executor=tampered(ONE_CALL.format(method="peek", args='{"n": 2}')))
    try:
        out = await code_tool.call("...")
    finally:
        await code_tool.aclose()
    assert vault.runs == ["peek"]
    assert out.get("result") == {"value": "ran"}, out
