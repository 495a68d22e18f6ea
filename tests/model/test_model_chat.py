"""The Chat Completions wire (`wire_api = "chat"`): same events out, chat requests in."""

from __future__ import annotations

import json
from typing import Any

import pytest

from codex_lsp.model import (
    Completed,
    Created,
    ModelClient,
    ModelError,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    Prompt,
    ReasoningContentDelta,
    ResponseEvent,
    TokenUsage,
)
from codex_lsp.protocol.core.providers import ModelProviderInfo
from tests.support import scripted_builders as sb
from tests.support.scripted_model import ScriptedModelServer


async def stream(server: ScriptedModelServer, p: Prompt | None = None) -> list[ResponseEvent]:
    prov = ModelProviderInfo(name="ollama", base_url=server.base_url, wire_api="chat")
    async with ModelClient(prov) as c:
        return [e async for e in c.stream(p or Prompt(model="qwen3"))]


def text(events: list[ResponseEvent]) -> str:
    return "".join(e.delta for e in events if isinstance(e, OutputTextDelta))


async def test_chat_text_maps_to_message_events(scripted_model) -> None:
    scripted_model.enqueue(sb.chat_text_response("Hello from ollama", response_id="chatcmpl-7"))
    events = await stream(scripted_model)

    assert scripted_model.requests[0].path == "/v1/chat/completions"
    assert "authorization" not in scripted_model.requests[0].headers  # no key configured
    assert isinstance(events[0], Created)
    assert isinstance(events[1], OutputItemAdded) and events[1].item["role"] == "assistant"
    assert text(events) == "Hello from ollama"
    done = [e.item for e in events if isinstance(e, OutputItemDone)]
    assert len(done) == 1
    assert done[0]["type"] == "message"
    assert done[0]["content"] == [{"type": "output_text", "text": "Hello from ollama"}]
    assert events[-1] == Completed("chatcmpl-7", TokenUsage(12, 0, 7, 0, 19))


async def test_chat_tool_call_is_assembled_into_a_function_call_item(scripted_model) -> None:
    args = {"command": "pytest -q", "workdir": "/repo"}
    scripted_model.enqueue(
        sb.chat_tool_call_response("shell_command", args, "call_abc", text="Running tests.")
    )
    events = await stream(scripted_model)

    done = [e.item for e in events if isinstance(e, OutputItemDone)]
    assert [d["type"] for d in done] == ["message", "function_call"]
    call = done[1]
    assert (call["name"], call["call_id"]) == ("shell_command", "call_abc")
    assert json.loads(call["arguments"]) == args
    assert isinstance(events[-1], Completed)


async def test_chat_reasoning_field_streams_as_reasoning(scripted_model) -> None:
    scripted_model.enqueue(
        [
            sb.chat_chunk({"role": "assistant", "reasoning_content": "Let me think. "}),
            sb.chat_chunk({"reasoning_content": "Okay."}),
            sb.chat_chunk({"content": "Answer"}),
            sb.chat_chunk(finish_reason="stop"),
            sb.CHAT_DONE,
        ]
    )
    events = await stream(scripted_model)
    thoughts = [e.delta for e in events if isinstance(e, ReasoningContentDelta)]
    assert "".join(thoughts) == "Let me think. Okay."
    done = [e.item for e in events if isinstance(e, OutputItemDone)]
    assert [d["type"] for d in done] == ["reasoning", "message"]
    assert done[0]["content"][0]["text"] == "Let me think. Okay."
    assert events[-1] == Completed("chatcmpl-1", None)  # this server sent no usage


async def test_finish_reason_without_done_marker_still_completes(scripted_model) -> None:
    scripted_model.enqueue(sb.chat_text_response("no done marker")[:-1])
    events = await stream(scripted_model)
    assert text(events) == "no done marker"
    assert isinstance(events[-1], Completed)


async def test_chat_stream_cut_short_is_retryable(scripted_model) -> None:
    scripted_model.enqueue(sb.chat_text_response("cut")[:2])  # no finish_reason, no [DONE]
    with pytest.raises(ModelError) as info:
        await stream(scripted_model)
    assert info.value.retryable
    assert "stream closed before response.completed" in str(info.value)


async def test_chat_error_chunk_is_a_model_error(scripted_model) -> None:
    scripted_model.enqueue([{"data": {"error": {"message": "model crashed", "code": None}}}])
    with pytest.raises(ModelError) as info:
        await stream(scripted_model)
    assert "model crashed" in str(info.value)


async def test_response_id_is_synthesised_when_the_server_sends_none(scripted_model) -> None:
    scripted_model.enqueue(
        [
            {"data": {"choices": [{"index": 0, "delta": {"content": "hi"}}]}},
            {"data": {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}},
            sb.CHAT_DONE,
        ]
    )
    events = await stream(scripted_model)
    assert isinstance(events[-1], Completed)
    assert events[-1].response_id.startswith("chatcmpl-")


async def test_prompt_converts_to_a_chat_request(scripted_model) -> None:
    scripted_model.enqueue(sb.chat_text_response("ok"))
    schema = {"type": "object", "properties": {}}
    function_tool = {
        "type": "function",
        "name": "shell_command",
        "description": "Run a command",
        "strict": False,
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
    freeform_tool = {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}}
    history: list[dict[str, Any]] = [
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "perm"}],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list"}]},
        {"type": "reasoning", "summary": [], "encrypted_content": "enc"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Sure."}],
        },
        {"type": "function_call", "call_id": "c1", "name": "shell_command", "arguments": '{"a":1}'},
        {"type": "function_call", "call_id": "c2", "name": "shell_command", "arguments": '{"b":2}'},
        {"type": "function_call_output", "call_id": "c1", "output": "out1"},
        {
            "type": "function_call_output",
            "call_id": "c2",
            "output": [{"type": "input_text", "text": "out2"}],
        },
        {"type": "custom_tool_call", "call_id": "c3", "name": "apply_patch", "input": "*** Begin"},
        {"type": "custom_tool_call_output", "call_id": "c3", "output": "Success."},
    ]
    p = Prompt(
        model="qwen3",
        instructions="base",
        input=history,
        tools=[function_tool, freeform_tool],
        parallel_tool_calls=True,
        output_schema=schema,
    )
    await stream(scripted_model, p)

    body = scripted_model.requests[0].body
    assert body["model"] == "qwen3"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}

    def call(cid: str, args: str) -> dict[str, Any]:
        return {
            "id": cid,
            "type": "function",
            "function": {"name": "shell_command", "arguments": args},
        }

    assert body["messages"] == [
        {"role": "system", "content": "base"},
        {"role": "system", "content": "perm"},
        {"role": "user", "content": "list"},
        {
            "role": "assistant",
            "content": "Sure.",
            "tool_calls": [call("c1", '{"a":1}'), call("c2", '{"b":2}')],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "out1"},
        {"role": "tool", "tool_call_id": "c2", "content": "out2"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c3",
                    "type": "function",
                    "function": {
                        "name": "apply_patch",
                        "arguments": json.dumps({"input": "*** Begin"}),
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c3", "content": "Success."},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "shell_command",
                "description": "Run a command",
                "parameters": function_tool["parameters"],
            },
        }
    ]
    assert body["tool_choice"] == "auto"
    assert body["parallel_tool_calls"] is True
    assert body["response_format"]["json_schema"]["schema"] == schema


async def test_images_become_content_parts(scripted_model) -> None:
    scripted_model.enqueue(sb.chat_text_response("a cat"))
    content = [
        {"type": "input_text", "text": "what is this?"},
        {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
    ]
    p = Prompt(model="llava", input=[{"type": "message", "role": "user", "content": content}])
    await stream(scripted_model, p)
    message = scripted_model.requests[0].body["messages"][0]
    assert message["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]
    assert "tools" not in scripted_model.requests[0].body
