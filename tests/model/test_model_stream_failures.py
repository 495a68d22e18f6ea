"""What goes wrong after the server answered 200: the errors the engine's turn loop sees.

None of these are retried by the client itself (the engine re-runs the turn), so each test also
checks that exactly one request reached the server.
"""

from __future__ import annotations

from typing import Any

import pytest

from codex_lsp.model import (
    Completed,
    ModelClient,
    ModelError,
    OutputTextDelta,
    Prompt,
    ResponseEvent,
)
from codex_lsp.protocol.core.providers import ModelProviderInfo
from tests.support import scripted_builders as sb
from tests.support.scripted_model import ScriptedModelServer

KEY = "sk-stream-secret-0123456789"


def client(server: ScriptedModelServer, **overrides: Any) -> ModelClient:
    fields: dict[str, Any] = {"name": "scripted", "base_url": server.base_url}
    fields.update(overrides)
    return ModelClient(ModelProviderInfo(**fields), api_key=lambda: KEY)


async def run(
    server: ScriptedModelServer, **overrides: Any
) -> tuple[list[ResponseEvent], ModelError]:
    """Events received before the failure, and the failure."""
    events: list[ResponseEvent] = []
    async with client(server, **overrides) as c:
        with pytest.raises(ModelError) as info:
            async for event in c.stream(Prompt(model="gpt-test", input=[])):
                events.append(event)
    assert KEY not in str(info.value) and KEY not in repr(info.value)
    return events, info.value


def streamed_text(events: list[ResponseEvent]) -> str:
    return "".join(e.delta for e in events if isinstance(e, OutputTextDelta))


async def test_disconnect_mid_stream_is_retryable_and_keeps_earlier_events(scripted_model) -> None:
    script = sb.text_response("partial answer that never finishes")
    scripted_model.enqueue([*script[:3], {"disconnect": True}])

    events, err = await run(scripted_model, request_max_retries=3)

    assert streamed_text(events)  # the user already saw some text
    assert err.retryable
    assert "disconnected" in str(err)
    assert err.codex_error_info == {"response_stream_disconnected": {"http_status_code": None}}
    assert len(scripted_model.requests) == 1


async def test_stream_ending_without_completed_is_retryable(scripted_model) -> None:
    scripted_model.enqueue(sb.multi_item_response([sb.message_item("hi")], complete=False))
    _, err = await run(scripted_model)
    assert err.retryable
    assert "stream closed before response.completed" in str(err)


async def test_malformed_sse_data_is_a_clear_error_not_a_crash(scripted_model) -> None:
    scripted_model.enqueue(
        [sb.created(), {"raw": "event: response.output_text.delta\ndata: {oops\n\n"}]
    )
    _, err = await run(scripted_model)
    assert err.retryable
    assert "malformed SSE data" in str(err)
    assert "{oops" in str(err)


async def test_stall_past_idle_timeout(scripted_model) -> None:
    script = sb.text_response("late")
    scripted_model.enqueue([*script[:2], {"stall_s": 5.0}, *script[2:]])
    events, err = await run(scripted_model, stream_idle_timeout_ms=400)
    assert events, "events sent before the stall reach the engine"
    assert err.retryable
    assert str(err) == "idle timeout waiting for SSE"
    assert len(scripted_model.requests) == 1


@pytest.mark.parametrize(
    ("code", "info", "says"),
    [
        ("context_length_exceeded", "context_window_exceeded", "context window"),
        ("insufficient_quota", "usage_limit_exceeded", "usage limit or quota"),
        ("usage_not_included", "usage_limit_exceeded", "usage limit or quota"),
        ("server_is_overloaded", "server_overloaded", "overloaded"),
        ("slow_down", "server_overloaded", "overloaded"),
        ("invalid_prompt", "bad_request", "invalid"),
        ("cyber_policy", "cyber_policy", "policy"),
    ],
)
async def test_fatal_response_failed_codes(scripted_model, code: str, info: str, says: str) -> None:
    scripted_model.enqueue(sb.response_failed(code, f"server detail for {code}"))
    _, err = await run(scripted_model)
    assert not err.retryable
    assert err.codex_error_info == info
    assert says in str(err)
    assert f"server detail for {code}" in str(err)
    assert len(scripted_model.requests) == 1


async def test_response_failed_with_try_again_gives_the_delay(scripted_model) -> None:
    message = "Rate limit reached for gpt-test. Please try again in 1.5s. Visit ..."
    scripted_model.enqueue(sb.response_failed("rate_limit_exceeded", message))
    _, err = await run(scripted_model, request_max_retries=3)
    assert err.retryable
    assert err.retry_after_s == 1.5
    assert "Rate limit reached" in str(err)
    assert len(scripted_model.requests) == 1


async def test_other_failed_codes_are_retryable_without_delay(scripted_model) -> None:
    scripted_model.enqueue(sb.response_failed("server_error", "Something went wrong."))
    _, err = await run(scripted_model)
    assert err.retryable
    assert err.retry_after_s is None
    assert "Something went wrong." in str(err)


async def test_response_incomplete_is_retryable_with_reason(scripted_model) -> None:
    scripted_model.enqueue(sb.response_incomplete("max_output_tokens"))
    _, err = await run(scripted_model)
    assert err.retryable
    assert str(err) == "Incomplete response returned, reason: max_output_tokens"


async def test_error_event_maps_like_response_failed(scripted_model) -> None:
    event = {"type": "error", "code": "context_length_exceeded", "message": "too long"}
    scripted_model.enqueue([sb.created(), sb.sse(event)])
    _, err = await run(scripted_model)
    assert not err.retryable
    assert err.codex_error_info == "context_window_exceeded"


async def test_key_echoed_in_a_stream_failure_is_redacted(scripted_model) -> None:
    scripted_model.enqueue(sb.response_failed("server_error", f"bad key {KEY} in request"))
    _, err = await run(scripted_model)
    assert "[REDACTED]" in str(err)


async def test_same_client_can_rerun_after_a_mid_stream_failure(scripted_model) -> None:
    # The engine's turn-level retry: call stream() again on the same client.
    scripted_model.enqueue([*sb.text_response("first try")[:2], {"disconnect": True}])
    scripted_model.enqueue(sb.text_response("second try"))
    async with client(scripted_model) as c:
        with pytest.raises(ModelError) as info:
            async for _ in c.stream(Prompt(model="gpt-test")):
                pass
        assert info.value.retryable
        events = [e async for e in c.stream(Prompt(model="gpt-test"))]
    assert streamed_text(events) == "second try"
    assert isinstance(events[-1], Completed)
    assert len(scripted_model.requests) == 2
