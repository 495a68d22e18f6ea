"""The Chat Completions wire, for OSS servers (Ollama, vLLM, llama.cpp) with `wire_api = "chat"`.

The engine speaks Responses-API items, so this module converts a `Prompt` into a chat request
and the streamed chunks back into the same events `responses.py` yields: the engine never
knows which wire it is on. Freeform (custom) tools have no chat equivalent, so only function
tools are offered; the engine offers apply_patch as a function tool on this wire.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, Iterable, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import httpx

from codex_lsp.model.errors import ModelError, stream_disconnected
from codex_lsp.model.events import (
    Completed,
    Created,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    ReasoningContentDelta,
    ResponseEvent,
    TokenUsage,
)
from codex_lsp.model.failures import error_for_code, server_error_fields
from codex_lsp.model.limits import check_arguments, check_delta, count_call
from codex_lsp.model.prompt import OUTPUT_SCHEMA_NAME, Prompt
from codex_lsp.model.responses import (
    CLOSED_EARLY_MESSAGE,
    IDLE_TIMEOUT_MESSAGE,
    header_events,
    load_event_json,
)
from codex_lsp.model.sse import aiter_sse
from codex_lsp.protocol.core.response_items import FunctionCallItem, MessageItem, ReasoningItem

_CALL_TYPES = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")


def build_chat_body(prompt: Prompt) -> dict[str, Any]:
    """The JSON body for `POST {base_url}/chat/completions`."""
    messages: list[dict[str, Any]] = []
    if prompt.instructions:
        messages.append({"role": "system", "content": prompt.instructions})
    for item in prompt.input:
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind == "message":
            # Most OSS servers reject the `developer` role; `system` means the same to them.
            role = "system" if item.get("role") == "developer" else item.get("role", "user")
            messages.append({"role": role, "content": _chat_content(item.get("content"))})
        elif kind in _CALL_TYPES:
            _append_tool_call(messages, _as_function_call(item))
        elif kind in _OUTPUT_TYPES and "call_id" in item:  # a context output has no chat form
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": item.get("call_id", ""),
                    "content": _output_text(item.get("output")),
                }
            )
        # Reasoning, web search and compaction items have no chat form; the model's visible
        # messages carry the conversation on their own.
    body: dict[str, Any] = {"model": prompt.model, "messages": messages}
    tools = [_chat_tool(t) for t in prompt.tools if t.get("type") == "function"]
    if tools:
        body["tools"] = tools
        body["tool_choice"] = "auto"
        body["parallel_tool_calls"] = prompt.parallel_tool_calls
    if prompt.output_schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": OUTPUT_SCHEMA_NAME,
                "schema": prompt.output_schema,
                "strict": True,
            },
        }
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    return body


def _chat_content(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content or ""
    parts: list[dict[str, Any]] = []
    for part in content:
        if part.get("type") in ("input_text", "output_text", "text"):
            parts.append({"type": "text", "text": part.get("text", "")})
        elif part.get("type") == "input_image" and part.get("image_url"):
            parts.append({"type": "image_url", "image_url": {"url": part["image_url"]}})
    if all(p["type"] == "text" for p in parts):
        # Plain strings are what every server understands; parts only when images need them.
        return "".join(p["text"] for p in parts)
    return parts


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(p.get("text", "") for p in output if isinstance(p, dict))
    return json.dumps(output)


def _as_function_call(item: Mapping[str, object]) -> dict[str, Any]:
    kind = item.get("type")
    if kind == "function_call":
        name, arguments = item.get("name", ""), item.get("arguments", "")
    elif kind == "custom_tool_call":
        # The function form of a freeform tool (e.g. apply_patch) takes {"input": ...}.
        name, arguments = item.get("name", ""), json.dumps({"input": item.get("input", "")})
    else:
        name, arguments = "shell", json.dumps(item.get("action") or {})
    call_id = item.get("call_id") or item.get("id") or ""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _append_tool_call(messages: list[dict[str, Any]], call: dict[str, Any]) -> None:
    # Text and the tool calls that follow it were one assistant turn; chat wants them together.
    last = messages[-1] if messages else None
    if last is not None and last.get("role") == "assistant":
        last.setdefault("tool_calls", []).append(call)
    else:
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})


def _chat_tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = {"name": tool.get("name", "")}
    if tool.get("description"):
        function["description"] = tool["description"]
    function["parameters"] = tool.get("parameters") or {"type": "object", "properties": {}}
    return {"type": "function", "function": function}


@dataclass(slots=True)
class _ToolCall:
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    arguments_chars: int = 0


@dataclass(slots=True)
class _ChatState:
    """What has streamed so far; chat sends pieces, the engine wants whole items at the end."""

    response_id: str = ""
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, _ToolCall] = field(default_factory=dict)
    usage: TokenUsage | None = None
    finished: bool = False


async def iter_chat_events(
    response: httpx.Response, *, secrets: Iterable[str | None] = ()
) -> AsyncGenerator[ResponseEvent]:
    """Events from an open 2xx Chat Completions stream, ending with `Completed`."""
    secrets = tuple(secrets)
    for event in header_events(response.headers):
        yield event
    state = _ChatState()
    done = False
    try:
        # aclosing: leaving early (on completion) must also close the byte stream now.
        async with aclosing(aiter_sse(response.aiter_bytes())) as messages:
            async for message in messages:
                if message.data.strip() == "[DONE]":
                    done = True
                    break
                for event in _on_chunk(state, message.data, secrets):
                    yield event
    except httpx.ReadTimeout:
        raise stream_disconnected(IDLE_TIMEOUT_MESSAGE) from None
    except httpx.TransportError as exc:
        raise stream_disconnected(
            f"The model stream was disconnected before the response completed ({exc})."
        ) from None
    # Some servers end with a finish_reason and close without `[DONE]`; that is still complete.
    if not (done or state.finished):
        raise stream_disconnected(CLOSED_EARLY_MESSAGE)
    for event in _finish(state):
        yield event


def _on_chunk(state: _ChatState, data: str, secrets: tuple[str | None, ...]) -> list[ResponseEvent]:
    payload = load_event_json(data)
    if "error" in payload:
        message, code, kind = server_error_fields(payload)
        raise error_for_code(code, message, kind=kind, secrets=secrets)
    events: list[ResponseEvent] = []
    if not state.response_id:
        state.response_id = str(payload.get("id") or f"chatcmpl-{uuid.uuid4().hex}")
        events.append(Created())
    if isinstance(payload.get("usage"), dict):
        state.usage = TokenUsage.from_chat(payload["usage"])
    for choice in payload.get("choices") or ():
        delta = choice.get("delta") or {}
        # Servers disagree on the name of the reasoning field.
        thought = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(thought, str) and thought:
            if not state.reasoning:
                events.append(OutputItemAdded(_reasoning_item(state, "")))
            state.reasoning.append(check_delta(thought))
            events.append(ReasoningContentDelta(thought, 0))
        content = delta.get("content")
        if isinstance(content, str) and content:
            if not state.text:
                events.append(OutputItemAdded(_message_item(state, "")))
            state.text.append(check_delta(content))
            events.append(OutputTextDelta(content, _message_id(state)))
        for call in delta.get("tool_calls") or ():
            _merge_tool_call(state, call)
        if choice.get("finish_reason"):
            state.finished = True
    return events


def _merge_tool_call(state: _ChatState, call: dict[str, Any]) -> None:
    index = int(call.get("index") or 0)
    entry = state.calls.get(index)
    if entry is None:
        count_call(len(state.calls))
        entry = state.calls[index] = _ToolCall()
    if call.get("id"):
        entry.call_id = call["id"]
    function = call.get("function") or {}
    if function.get("name"):
        entry.name = function["name"]
    arguments = function.get("arguments")
    if arguments:
        entry.arguments_chars += len(arguments)
        check_arguments(entry.arguments_chars)
        entry.arguments.append(arguments)


def _message_id(state: _ChatState) -> str:
    return f"{state.response_id}-msg"


def _message_item(state: _ChatState, text: str) -> MessageItem:
    return {
        "type": "message",
        "id": _message_id(state),
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}] if text else [],
    }


def _reasoning_item(state: _ChatState, text: str) -> ReasoningItem:
    return {
        "type": "reasoning",
        "id": f"{state.response_id}-rs",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": text}] if text else [],
    }


def _finish(state: _ChatState) -> list[ResponseEvent]:
    if not state.response_id:
        raise ModelError(
            "The model server ended the stream without sending any response.",
            codex_error_info={"response_stream_disconnected": {"http_status_code": None}},
            retryable=True,
        )
    events: list[ResponseEvent] = []
    if state.reasoning:
        events.append(OutputItemDone(_reasoning_item(state, "".join(state.reasoning))))
    if state.text:
        events.append(OutputItemDone(_message_item(state, "".join(state.text))))
    for index in sorted(state.calls):
        call = state.calls[index]
        item: FunctionCallItem = {
            "type": "function_call",
            "name": call.name,
            "arguments": "".join(call.arguments),
            "call_id": call.call_id or f"call_{state.response_id}_{index}",
        }
        events.append(OutputItemDone(item))
    events.append(Completed(response_id=state.response_id, usage=state.usage))
    return events
