"""Each limit of the model stream on its own, below the SSE line limit that would catch a
whole giant event first: one delta, one call's arguments (whole or streamed), the framing of
a chunked body. Going over is a clear error that is not retried."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from codex_lsp.model import ModelClient, ModelError, Prompt
from codex_lsp.protocol.core.providers import ModelProviderInfo
from tests.support import scripted_builders as sb
from tests.support.hostile_model import HostileModelServer, sse
from tests.support.scripted_model import ScriptedModelServer

MIB = 1 << 20


async def failure(base_url: str, **overrides: Any) -> ModelError:
    provider = ModelProviderInfo(name="t", base_url=base_url, **overrides)
    async with ModelClient(provider, api_key=lambda: "sk-limits-0123456789") as c:
        with pytest.raises(ModelError) as info:
            async for _ in c.stream(Prompt(model="gpt-test", input=[])):
                pass
    return info.value


def delta(kind: str, text: str) -> dict[str, Any]:
    return {"sse": {"type": kind, "item_id": "i1", "delta": text}}


@pytest.mark.parametrize(
    "kind",
    [
        "response.output_text.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_text.delta",
        "response.custom_tool_call_input.delta",
    ],
)
async def test_one_delta_over_the_limit_is_refused(scripted_model: ScriptedModelServer, kind):
    scripted_model.enqueue([sb.created(), delta(kind, "d" * (5 * MIB)), sb.completed()])
    err = await failure(scripted_model.base_url)
    assert "a delta of more than 4,194,304 characters" in str(err)
    assert not err.retryable and len(scripted_model.requests) == 1


@pytest.mark.parametrize("field", ["arguments", "input"])
async def test_a_finished_call_with_arguments_over_the_limit_is_refused(
    scripted_model: ScriptedModelServer, field
):
    kind = "function_call" if field == "arguments" else "custom_tool_call"
    item = {"type": kind, "name": "t", "call_id": "c1", field: "a" * (9 * MIB)}
    scripted_model.enqueue(
        [sb.created(), {"sse": {"type": "response.output_item.done", "item": item}}, sb.completed()]
    )
    err = await failure(scripted_model.base_url)
    assert "tool call arguments of more than 8,388,608 characters" in str(err)
    assert not err.retryable


async def test_streamed_tool_input_adds_up_to_the_arguments_limit(
    scripted_model: ScriptedModelServer,
):
    kind = "response.custom_tool_call_input.delta"
    steps = [delta(kind, "p" * MIB) for _ in range(9)]
    scripted_model.enqueue([sb.created(), *steps, sb.completed()])
    err = await failure(scripted_model.base_url)
    assert "tool call arguments of more than 8,388,608 characters" in str(err)


async def test_a_chat_delta_over_the_limit_is_refused(scripted_model: ScriptedModelServer):
    chunk = {"id": "c", "choices": [{"delta": {"content": "t" * (5 * MIB)}}]}
    scripted_model.enqueue([{"data": chunk}, {"data": "[DONE]"}])
    err = await failure(scripted_model.base_url, wire_api="chat")
    assert "a delta of more than 4,194,304 characters" in str(err)


async def test_too_many_chat_tool_calls_are_refused(scripted_model: ScriptedModelServer):
    calls = [
        {"index": i, "id": f"c{i}", "function": {"name": "t", "arguments": "{}"}}
        for i in range(129)
    ]
    chunk = {"id": "c", "choices": [{"delta": {"tool_calls": calls}}]}
    scripted_model.enqueue([{"data": chunk}, {"data": "[DONE]"}])
    err = await failure(scripted_model.base_url, wire_api="chat")
    assert "more than 128 tool calls in one response" in str(err)


async def test_an_event_of_many_data_lines_over_the_limit_is_refused():
    def body() -> Iterator[bytes]:
        yield sse({"type": "response.created", "response": {"id": "r"}})
        line = b"data: " + b"l" * (MIB - 7) + b"\n"
        for _ in range(20):
            yield line

    with HostileModelServer() as server:
        server.answer(body)
        err = await failure(server.base_url)
    assert "an SSE event of more than 16 MiB" in str(err)


async def test_a_chunk_size_line_without_end_is_refused():
    def body() -> Iterator[bytes]:
        yield b"10\r\n" + b"data: {}\n\n......"[:16] + b"\r\n"
        for _ in range(64):
            yield b"0" * MIB  # a chunk size that never ends

    head = b"transfer-encoding: chunked\r\n"
    with HostileModelServer(extra_head=head) as server:
        server.answer(body)
        err = await failure(server.base_url)
    assert "chunk-size line or trailer longer than 64 KiB" in str(err)
