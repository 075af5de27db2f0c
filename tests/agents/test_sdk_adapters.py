"""The model SDK adapters against the real SDKs: OpenAI (Chat Completions, Responses), Anthropic, pydantic-ai.

No network: the OpenAI and Anthropic clients send real requests into an ``httpx2.MockTransport``
that plays the model (a scripted tool call, then a final text), and pydantic-ai runs a real
``Agent`` over its ``FunctionModel``. Each test checks that the declaration is the SDK's
request type, that the scripted tool call reaches ``call()`` exactly once, and that the answer
is the SDK's tool-result type and goes back to the model in the next request.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from anthropic.types import ToolParam, ToolResultBlockParam
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionToolMessageParam
from openai.types.responses import FunctionToolParam
from openai.types.responses.response_input_param import FunctionCallOutput
from pydantic import TypeAdapter

from codemode_kernel import (
    CodemodeRuntime,
    InProcessExecutor,
    ToolSetConnector,
    answer_anthropic,
    answer_openai_chat,
    answer_openai_responses,
    anthropic_tool,
    create_code_tool,
    openai_chat_tool,
    openai_responses_tool,
    outcome_json,
    pydantic_ai_tool,
)

pytestmark = pytest.mark.anyio

PROGRAM = "print('adding')\ncalc.add(a=2, b=3)"


class Calc:
    """A connector with a counter, so a test can prove each call ran once."""

    def __init__(self) -> None:
        self.calls = 0

    def connector(self) -> ToolSetConnector:
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            self.calls += 1
            return a + b

        return ToolSetConnector([add], name="calc")


def conforms(typed_dict: Any, value: dict[str, Any]) -> None:
    """``value`` validates as the SDK's TypedDict and has no key the type does not declare."""
    TypeAdapter(typed_dict).validate_python(value)
    assert set(value) <= set(typing.get_type_hints(typed_dict)), set(value) - set(typing.get_type_hints(typed_dict))


class ScriptedModel:
    """Plays the model behind a MockTransport: a tool call first, then text; records every request body."""

    def __init__(self, first: Callable[[], dict[str, Any]], then: Callable[[], dict[str, Any]]) -> None:
        self.replies = [first, then]
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        return httpx2.Response(200, json=self.replies.pop(0)())

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


def chat_completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "scripted",
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}]}


def response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "resp-1", "object": "response", "created_at": 1, "model": "scripted", "status": "completed",
            "output": output, "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}


def anthropic_message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": "msg-1", "type": "message", "role": "assistant", "model": "scripted", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


async def test_openai_chat_completions_round_trip() -> None:
    """The tool is a Chat Completions function tool; a tool call runs once; the answer is a tool message."""
    calc = Calc()
    tool = create_code_tool([calc.connector()], executor=InProcessExecutor())
    declaration = openai_chat_tool(tool)
    conforms(ChatCompletionFunctionToolParam, declaration)
    model = ScriptedModel(
        lambda: chat_completion({"content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
            "name": "codemode", "arguments": json.dumps({"code": PROGRAM})}}]}, "tool_calls"),
        lambda: chat_completion({"content": "2 + 3 = 5"}, "stop"))
    client = openai.AsyncOpenAI(api_key="test", base_url="http://model.test/v1", http_client=model.client())
    messages: list[Any] = [{"role": "user", "content": "Add 2 and 3."}]
    first = await client.chat.completions.create(model="scripted", messages=messages, tools=[declaration])
    assert model.requests[0]["tools"] == [declaration]
    calls = first.choices[0].message.tool_calls
    assert calls is not None
    answer = await answer_openai_chat(calls[0], tool)
    conforms(ChatCompletionToolMessageParam, answer)
    assert calc.calls == 1
    assert answer["tool_call_id"] == "call_1"
    assert json.loads(answer["content"]) == {"result": 5, "logs": ["adding"]}
    messages += [first.choices[0].message.model_dump(exclude_none=True), answer]
    final = await client.chat.completions.create(model="scripted", messages=messages, tools=[declaration])
    assert final.choices[0].message.content == "2 + 3 = 5"
    assert model.requests[1]["messages"][-1] == answer
    await client.close()


async def test_openai_responses_round_trip() -> None:
    """The tool is a Responses function tool; a function_call runs once; the answer is a function_call_output."""
    calc = Calc()
    tool = create_code_tool([calc.connector()], executor=InProcessExecutor())
    declaration = openai_responses_tool(tool)
    conforms(FunctionToolParam, declaration)
    model = ScriptedModel(
        lambda: response([{"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "codemode",
                           "arguments": json.dumps({"code": PROGRAM}), "status": "completed"}]),
        lambda: response([{"type": "message", "id": "m_1", "role": "assistant", "status": "completed", "content": [
            {"type": "output_text", "text": "5", "annotations": []}]}]))
    client = openai.AsyncOpenAI(api_key="test", base_url="http://model.test/v1", http_client=model.client())
    first = await client.responses.create(model="scripted", input="Add 2 and 3.", tools=[declaration])
    assert model.requests[0]["tools"] == [declaration]
    answer = await answer_openai_responses(first.output[0], tool)
    conforms(FunctionCallOutput, answer)
    assert calc.calls == 1
    assert answer["call_id"] == "call_9" and json.loads(answer["output"])["result"] == 5
    final = await client.responses.create(model="scripted", previous_response_id=first.id, input=[answer],
                                          tools=[declaration])
    assert final.output_text == "5"
    assert model.requests[1]["input"] == [answer]
    await client.close()


async def test_anthropic_round_trip() -> None:
    """The tool is an Anthropic ToolParam; a tool_use block runs once; the answer is a tool_result block."""
    calc = Calc()
    tool = create_code_tool([calc.connector()], executor=InProcessExecutor())
    declaration = anthropic_tool(tool)
    conforms(ToolParam, declaration)
    model = ScriptedModel(
        lambda: anthropic_message([{"type": "tool_use", "id": "toolu_1", "name": "codemode",
                                    "input": {"code": PROGRAM}}], "tool_use"),
        lambda: anthropic_message([{"type": "text", "text": "It is 5."}], "end_turn"))
    client = anthropic.AsyncAnthropic(api_key="test", base_url="http://model.test", http_client=model.client())
    messages: list[Any] = [{"role": "user", "content": "Add 2 and 3."}]
    first = await client.messages.create(model="scripted", max_tokens=256, messages=messages, tools=[declaration])
    assert model.requests[0]["tools"] == [declaration]
    block = await answer_anthropic(first.content[0], tool)
    conforms(ToolResultBlockParam, block)
    assert calc.calls == 1
    assert block["is_error"] is False and json.loads(block["content"]) == {"result": 5, "logs": ["adding"]}
    messages += [{"role": "assistant", "content": first.content}, {"role": "user", "content": [block]}]
    final = await client.messages.create(model="scripted", max_tokens=256, messages=messages, tools=[declaration])
    assert final.content[0].type == "text"
    assert model.requests[1]["messages"][-1] == {"role": "user", "content": [block]}
    await client.close()


async def test_pydantic_ai_agent_calls_the_tool() -> None:
    """A pydantic-ai Agent with the adapted tool: the model's tool call runs the program once and sees the outcome."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    calc = Calc()
    tool = create_code_tool([calc.connector()], executor=InProcessExecutor())
    seen: dict[str, Any] = {}

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)]
        if not returns:
            seen["tools"] = [(t.name, t.description, t.parameters_json_schema) for t in info.function_tools]
            return ModelResponse(parts=[ToolCallPart("codemode", {"code": PROGRAM}, tool_call_id="t1")])
        seen["returned"] = returns[0].content
        return ModelResponse(parts=[TextPart("The sum is 5.")])

    agent = Agent(FunctionModel(script), tools=[pydantic_ai_tool(tool)])
    result = await agent.run("Add 2 and 3.")
    assert result.output == "The sum is 5."
    assert seen["tools"] == [("codemode", tool.description, tool.input_schema)]
    assert seen["returned"] == {"result": 5, "logs": ["adding"]}
    assert calc.calls == 1


async def test_bad_tool_calls_are_answered_as_errors_the_model_can_read() -> None:
    """Arguments that are not JSON, a missing ``code`` or an unknown tool name: an error answer, nothing runs."""
    calc = Calc()
    tool = create_code_tool([calc.connector()], executor=InProcessExecutor())
    not_json = await answer_openai_chat({"id": "c", "function": {"name": "codemode", "arguments": "{code: 1"}}, tool)
    assert "not valid JSON" in json.loads(not_json["content"])["error"]
    no_code = await answer_openai_responses({"call_id": "c", "name": "codemode", "arguments": "{\"src\": \"1\"}"},
                                            tool)
    assert "takes {\"code\"" in json.loads(no_code["output"])["error"]
    unknown = await answer_anthropic({"id": "t", "name": "shell", "input": {"code": "1"}}, [tool])
    assert unknown["is_error"] is True and "no tool named 'shell'" in json.loads(unknown["content"])["error"]
    failed = await answer_anthropic({"id": "t", "name": "codemode", "input": {"code": "1/0"}}, tool)
    assert failed["is_error"] is True and json.loads(failed["content"])["error_type"] == "ZeroDivisionError"
    assert calc.calls == 0


async def test_runtime_tool_pauses_and_the_approved_outcome_goes_back_as_json(tmp_path: Any) -> None:
    """runtime.tool() through the Anthropic adapter: paused is not an error; approve()'s outcome becomes JSON."""
    made: list[str] = []

    def make_file(name: str) -> dict[str, Any]:
        """Make a file record."""
        made.append(name)
        return {"name": name, "data": b"\x00\x01"}

    files = ToolSetConnector([make_file], name="files", requires_approval={"make_file"})
    async with CodemodeRuntime([files], store=f"sqlite:///{tmp_path / 'a.db'}", executor=InProcessExecutor()) as rt:
        tool = rt.tool()
        block = await answer_anthropic({"id": "t1", "name": "codemode",
                                        "input": {"code": "files.make_file(name='a.txt')"}}, tool)
        paused = json.loads(block["content"])
        assert block["is_error"] is False and paused["status"] == "paused" and made == []
        assert paused["pending"][0]["args"] == {"name": "a.txt"}
        approved = await rt.approve(paused["execution_id"])
        text = outcome_json(approved)  # bytes in the result: Python values become JSON
        assert json.loads(text)["result"] == {"name": "a.txt", "data": {"$bytes": "AAE="}}
        assert made == ["a.txt"]
