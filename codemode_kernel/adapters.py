"""Model SDK adapters: a code tool in the tool format of OpenAI, Anthropic and pydantic-ai (issue 15).

Works with ``runtime.tool()`` (durable, may pause for approval) and ``create_code_tool()``
(non-durable): anything with ``name``, ``description``, ``input_schema`` and an async
``call(code)``. No SDK is a dependency of the package (``pip install codemode-kernel[sdk]``
brings them): the declarations are the plain dicts the SDKs' request types describe, and
only :func:`pydantic_ai_tool` imports its SDK, when called.

For each SDK there is a declaration and an answer::

    tools = [openai_chat_tool(tool)]                     # chat.completions.create(tools=...)
    message = await answer_openai_chat(call, tool)       # a {"role": "tool", ...} message

    tools = [openai_responses_tool(tool)]                # responses.create(tools=...)
    item = await answer_openai_responses(call, tool)     # a {"type": "function_call_output", ...} item

    tools = [anthropic_tool(tool)]                       # messages.create(tools=...)
    block = await answer_anthropic(block, tool)          # a {"type": "tool_result", ...} block

    agent = Agent(model, tools=[pydantic_ai_tool(tool)]) # pydantic-ai

An answer takes the SDK's tool-call object as the SDK returned it (or its dict form), runs the
program, and gives the model the outcome as JSON text. Problems with the call itself (a tool
name that is not this tool's, arguments that are not JSON, no ``code``) are answered as error
outcomes the model can read and correct, never raised. Several tools can be passed as a list;
the call's name picks one.

Approvals stay with people: a ``paused`` outcome goes to the model as it is (it tells the
model the call waits for a person); the host asks a person, then runs
``runtime.approve(execution_id, seq=pending["seq"])`` (the call the person saw) and gives the
model :func:`outcome_json` of that.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from codemode_kernel import codec


class CodeToolLike(Protocol):
    """What the adapters need of a tool (``runtime.tool()`` and ``create_code_tool()`` both have it)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> dict[str, Any]: ...

    @property
    def call(self) -> Callable[[str], Awaitable[dict[str, Any]]]: ...


Tools = CodeToolLike | Sequence[CodeToolLike]


# -- declarations ------------------------------------------------------------------------------------


def openai_chat_tool(tool: CodeToolLike, *, strict: bool = True) -> dict[str, Any]:
    """The tool as an OpenAI Chat Completions function tool (``ChatCompletionFunctionToolParam``).

    ``strict`` asks the API to hold the model to the schema (the code tools' schema allows it).
    """
    return {"type": "function", "function": {"name": tool.name, "description": tool.description,
                                             "parameters": dict(tool.input_schema), "strict": strict}}


def openai_responses_tool(tool: CodeToolLike, *, strict: bool = True) -> dict[str, Any]:
    """The tool as an OpenAI Responses function tool (``FunctionToolParam``)."""
    return {"type": "function", "name": tool.name, "description": tool.description,
            "parameters": dict(tool.input_schema), "strict": strict}


def anthropic_tool(tool: CodeToolLike) -> dict[str, Any]:
    """The tool as an Anthropic Messages tool (``ToolParam``)."""
    return {"name": tool.name, "description": tool.description, "input_schema": dict(tool.input_schema)}


def pydantic_ai_tool(tool: CodeToolLike) -> Any:
    """The tool as a ``pydantic_ai.Tool`` (needs ``pip install pydantic-ai-slim``).

    The model gets the outcome dict (pydantic-ai sends it as JSON); a failed program is an
    outcome with ``error``, not an exception, so the model reads what went wrong.
    """
    try:
        from pydantic_ai import Tool as PydanticAiTool
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("pydantic_ai_tool needs pydantic-ai: pip install 'codemode-kernel[sdk]' "
                          "(or pydantic-ai-slim)") from exc

    async def run_code(code: str) -> dict[str, Any]:
        return await _run(tool, {"code": code})

    return PydanticAiTool.from_schema(run_code, name=tool.name, description=tool.description,
                                      json_schema=dict(tool.input_schema))


# -- answers -----------------------------------------------------------------------------------------


async def answer_openai_chat(tool_call: Any, tools: Tools) -> dict[str, Any]:
    """Run one Chat Completions tool call; the ``{"role": "tool", ...}`` message to append."""
    function = _get(tool_call, "function")
    outcome = await _dispatch(tools, _get(function, "name"), _json_arguments(_get(function, "arguments")))
    return {"role": "tool", "tool_call_id": str(_get(tool_call, "id")), "content": outcome_json(outcome)}


async def answer_openai_responses(function_call: Any, tools: Tools) -> dict[str, Any]:
    """Run one Responses ``function_call`` item; the ``function_call_output`` item to send back."""
    outcome = await _dispatch(tools, _get(function_call, "name"), _json_arguments(_get(function_call, "arguments")))
    return {"type": "function_call_output", "call_id": str(_get(function_call, "call_id")),
            "output": outcome_json(outcome)}


async def answer_anthropic(tool_use: Any, tools: Tools) -> dict[str, Any]:
    """Run one Anthropic ``tool_use`` block; the ``tool_result`` block for the next user message."""
    arguments = _get(tool_use, "input")
    outcome = await _dispatch(tools, _get(tool_use, "name"),
                              dict(arguments) if isinstance(arguments, Mapping) else _bad_arguments(arguments))
    return {"type": "tool_result", "tool_use_id": str(_get(tool_use, "id")), "content": outcome_json(outcome),
            "is_error": is_error(outcome)}


def outcome_json(outcome: Mapping[str, Any]) -> str:
    """An outcome as the JSON text a model reads.

    Accepts what ``tool.call`` returns (already plain JSON) and what ``runtime.approve``
    returns (Python values: bytes, datetimes, tuples, and pending arguments in the journal's
    tagged form), so a loop can hand either to its model.
    """
    plain = dict(outcome)
    if isinstance(plain.get("pending"), list):
        plain["pending"] = [{**p, "args": codec.decode(p.get("args"))} if isinstance(p, Mapping) else p
                            for p in plain["pending"]]
    return json.dumps(codec.to_json(plain, "the outcome"), ensure_ascii=False)


def is_error(outcome: Mapping[str, Any]) -> bool:
    """True when the program failed (``runtime.tool()``: status ``error``; ``create_code_tool()``: an ``error``)."""
    return outcome.get("status") == "error" or ("status" not in outcome and "error" in outcome)


# -- shared ------------------------------------------------------------------------------------------


class _Refused(dict[str, Any]):
    """Arguments the model sent that are not an object (answered as an error outcome)."""


def _bad_arguments(raw: Any) -> dict[str, Any]:
    return _Refused(problem=f"the arguments must be a JSON object like {{\"code\": \"...\"}}; got "
                            f"{type(raw).__name__}")


def _json_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        parsed = json.loads(raw) if isinstance(raw, str | bytes) else raw
    except ValueError as exc:
        return _Refused(problem=f"the arguments are not valid JSON ({exc}); send {{\"code\": \"...\"}}")
    return dict(parsed) if isinstance(parsed, Mapping) else _bad_arguments(parsed)


async def _dispatch(tools: Tools, name: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    listed: list[CodeToolLike] = list(tools) if isinstance(tools, Sequence) else [tools]
    for tool in listed:
        if tool.name == name:
            return await _run(tool, arguments)
    names = ", ".join(repr(t.name) for t in listed)
    return _call_error(f"there is no tool named {str(name)[:100]!r}; the tools are {names}")


async def _run(tool: CodeToolLike, arguments: dict[str, Any]) -> dict[str, Any]:
    if isinstance(arguments, _Refused):
        return _call_error(arguments["problem"])
    code = arguments.get("code")
    if not isinstance(code, str):
        return _call_error(f"the tool {tool.name!r} takes {{\"code\": \"<Python source>\"}}; "
                           f"got the keys {sorted(arguments)}")
    return await tool.call(code)


def _call_error(message: str) -> dict[str, Any]:
    return {"status": "error", "error": message, "error_type": "ToolCallError"}


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)
