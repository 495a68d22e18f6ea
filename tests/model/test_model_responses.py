"""The Responses-API client against the scripted model server: what the engine receives."""

from __future__ import annotations

from typing import Any

import pytest

from codex_lsp.model import (
    Completed,
    Created,
    CustomToolCallInputDelta,
    ModelClient,
    ModelError,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    Prompt,
    RateLimitsUpdated,
    RateLimitWindow,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ResponseEvent,
    ServerModel,
    TokenUsage,
)
from codex_lsp.protocol.core.providers import ModelProviderInfo
from tests.support import scripted_builders as sb
from tests.support.scripted_model import ScriptedModelServer


def provider(server: ScriptedModelServer, **overrides: Any) -> ModelProviderInfo:
    fields: dict[str, Any] = {"name": "scripted", "base_url": server.base_url}
    fields.update(overrides)
    return ModelProviderInfo(**fields)


def prompt(**overrides: Any) -> Prompt:
    fields: dict[str, Any] = {
        "model": "gpt-test",
        "instructions": "You are a test.",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
        ],
    }
    fields.update(overrides)
    return Prompt(**fields)


async def collect(
    server: ScriptedModelServer, p: Prompt | None = None, **kw: Any
) -> list[ResponseEvent]:
    async with ModelClient(provider(server, **kw), api_key=lambda: "sk-test-key-0123456789") as c:
        return [event async for event in c.stream(p or prompt())]


async def failure(server: ScriptedModelServer, **kw: Any) -> ModelError:
    with pytest.raises(ModelError) as info:
        await collect(server, **kw)
    return info.value


async def test_text_streams_as_deltas_then_the_full_item_then_usage(scripted_model) -> None:
    usage = sb.usage(100, 20, cached_tokens=40, reasoning_tokens=5)
    scripted_model.enqueue(
        sb.text_response("Hello from the model", response_id="resp_42", usage=usage)
    )

    events = await collect(scripted_model)

    assert isinstance(events[0], Created)
    assert isinstance(events[1], OutputItemAdded) and events[1].item["type"] == "message"
    deltas = [e for e in events if isinstance(e, OutputTextDelta)]
    assert len(deltas) > 1
    assert "".join(d.delta for d in deltas) == "Hello from the model"
    assert {d.item_id for d in deltas} == {"msg_1"}
    done = [e.item for e in events if isinstance(e, OutputItemDone)]
    assert done[0]["content"][0]["text"] == "Hello from the model"
    assert events[-1] == Completed(
        "resp_42",
        TokenUsage(
            input_tokens=100,
            cached_input_tokens=40,
            output_tokens=20,
            reasoning_output_tokens=5,
            total_tokens=120,
        ),
    )


async def test_reasoning_summary_streams_with_section_break(scripted_model) -> None:
    scripted_model.enqueue(
        sb.multi_item_response(
            [
                sb.reasoning_step("Looking at the files", summary_index=0),
                sb.message_item("Done", index=1),
            ]
        )
    )
    events = await collect(scripted_model)

    parts = [e for e in events if isinstance(e, ReasoningSummaryPartAdded)]
    assert parts == [ReasoningSummaryPartAdded(0)]
    summary = [e for e in events if isinstance(e, ReasoningSummaryDelta)]
    assert "".join(e.delta for e in summary) == "Looking at the files"
    # The section break comes before its text.
    assert events.index(parts[0]) < events.index(summary[0])
    reasoning = next(e.item for e in events if isinstance(e, OutputItemDone))
    assert reasoning["type"] == "reasoning"
    assert reasoning["encrypted_content"]


async def test_function_call_item_arrives_whole(scripted_model) -> None:
    scripted_model.enqueue(
        sb.function_call_response("shell_command", {"command": "ls -la"}, call_id="call_9")
    )
    events = await collect(scripted_model)
    done = [e.item for e in events if isinstance(e, OutputItemDone)]
    assert done == [
        {
            "type": "function_call",
            "id": "fc_call_9",
            "call_id": "call_9",
            "name": "shell_command",
            "arguments": '{"command": "ls -la"}',
            "status": "completed",
        }
    ]
    assert isinstance(events[-1], Completed)


async def test_custom_tool_call_input_deltas_carry_the_call_id(scripted_model) -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n"
    scripted_model.enqueue(sb.custom_tool_call_response("apply_patch", patch, call_id="call_p"))
    events = await collect(scripted_model)

    deltas = [e for e in events if isinstance(e, CustomToolCallInputDelta)]
    assert "".join(d.delta for d in deltas) == patch
    # The wire names only the item; the client resolves the call id from output_item.added.
    assert {(d.call_id, d.item_id) for d in deltas} == {("call_p", "ctc_call_p")}
    done = next(e.item for e in events if isinstance(e, OutputItemDone))
    assert (done["type"], done["name"], done["input"]) == ("custom_tool_call", "apply_patch", patch)


async def test_rate_limit_headers_and_server_model_come_first(scripted_model) -> None:
    headers = sb.rate_limit_headers(
        12.5, 300, 1_767_000_000, secondary_used_percent=80, secondary_window_minutes=10080
    )
    headers["openai-model"] = "gpt-routed"
    scripted_model.enqueue(sb.multi_item_response([sb.message_item("ok")], headers=headers))
    events = await collect(scripted_model)

    assert isinstance(events[0], RateLimitsUpdated)
    assert events[0].snapshot.primary == RateLimitWindow(12.5, 300, 1_767_000_000)
    assert events[0].snapshot.secondary == RateLimitWindow(80.0, 10080, None)
    assert events[1] == ServerModel("gpt-routed")
    assert isinstance(events[2], Created)


async def test_no_rate_limit_event_without_headers(scripted_model) -> None:
    scripted_model.enqueue(sb.text_response("ok"))
    events = await collect(scripted_model)
    assert not any(isinstance(e, (RateLimitsUpdated, ServerModel)) for e in events)


async def test_request_body_shape(scripted_model) -> None:
    scripted_model.enqueue(sb.text_response("ok"))
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    tool = {"type": "function", "name": "shell", "description": "run", "parameters": {}}
    history = [
        {
            "type": "message",
            "id": "msg_old",
            "role": "user",
            "content": [{"type": "input_text", "text": "x"}],
        },
        {"type": "reasoning", "id": "rs_old", "summary": [], "encrypted_content": "enc"},
        {
            "type": "function_call",
            "id": "fc_old",
            "call_id": "c1",
            "name": "shell",
            "arguments": "{}",
        },
        {"type": "function_call_output", "call_id": "c1", "output": "done"},
    ]
    p = prompt(
        input=history,
        tools=[tool],
        parallel_tool_calls=True,
        reasoning={"effort": "medium", "summary": "auto"},
        output_schema=schema,
        prompt_cache_key="thread-1",
    )
    await collect(scripted_model, p)

    body = scripted_model.requests[0].body
    assert body["model"] == "gpt-test"
    assert body["instructions"] == "You are a test."
    assert all("id" not in item for item in body["input"])
    assert [i["type"] for i in body["input"]] == [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert history[0]["id"] == "msg_old"  # the caller's history is not mutated
    assert body["tools"] == [tool]
    assert body["tool_choice"] == "auto"
    assert body["parallel_tool_calls"] is True
    assert body["reasoning"] == {"effort": "medium", "summary": "auto"}
    assert body["store"] is False
    assert body["stream"] is True
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["prompt_cache_key"] == "thread-1"
    assert body["text"] == {
        "format": {
            "type": "json_schema",
            "strict": True,
            "schema": schema,
            "name": "codex_output_schema",
        }
    }


async def test_request_body_without_reasoning_or_schema(scripted_model) -> None:
    scripted_model.enqueue(sb.text_response("ok"))
    await collect(
        scripted_model, prompt(instructions="", reasoning={"effort": "low", "summary": "none"})
    )
    body = scripted_model.requests[0].body
    assert "instructions" not in body
    assert "text" not in body
    assert body["reasoning"] == {"effort": "low"}

    scripted_model.enqueue(sb.text_response("ok"))
    await collect(scripted_model, prompt())
    body = scripted_model.requests[1].body
    assert body["reasoning"] is None
    assert body["include"] == []


async def test_request_headers(scripted_model) -> None:
    scripted_model.enqueue(sb.text_response("ok"))
    prov = provider(
        scripted_model, http_headers={"x-custom": "yes"}, query_params={"api-version": "2025"}
    )
    async with ModelClient(prov, api_key=lambda: "sk-header-test-999", session_id="thread-7") as c:
        async for _ in c.stream(prompt(), extra_headers={"x-openai-subagent": "review"}):
            pass
    request = scripted_model.requests[0]
    assert request.path == "/v1/responses"
    h = request.headers
    assert h["authorization"] == "Bearer sk-header-test-999"
    assert h["session_id"] == "thread-7"
    assert h["originator"] == "codex_lsp"
    assert h["accept"] == "text/event-stream"
    assert h["content-type"] == "application/json"
    assert h["x-custom"] == "yes"
    assert h["x-openai-subagent"] == "review"


async def test_env_key_is_used_when_no_key_callable(scripted_model, monkeypatch) -> None:
    monkeypatch.setenv("SCRIPTED_TEST_KEY", "sk-from-env-abcdef")
    scripted_model.enqueue(sb.text_response("ok"))
    async with ModelClient(provider(scripted_model, env_key="SCRIPTED_TEST_KEY")) as c:
        async for _ in c.stream(prompt()):
            pass
    assert scripted_model.requests[0].headers["authorization"] == "Bearer sk-from-env-abcdef"


async def test_missing_env_key_fails_before_any_request(scripted_model, monkeypatch) -> None:
    monkeypatch.delenv("SCRIPTED_MISSING_KEY", raising=False)
    with pytest.raises(ModelError) as info:
        async with ModelClient(provider(scripted_model, env_key="SCRIPTED_MISSING_KEY")) as c:
            async for _ in c.stream(prompt()):
                pass
    assert "SCRIPTED_MISSING_KEY" in str(info.value)
    assert info.value.codex_error_info == "unauthorized"
    assert scripted_model.requests == []
