"""Transport-level retries and HTTP errors: what happens before any SSE arrives.

Durations are never asserted; the request counts the server saw tell whether a retry happened.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

from codex_lsp.model import Completed, ModelClient, ModelError, Prompt, ResponseEvent
from codex_lsp.protocol.core.providers import ModelProviderInfo
from tests.support import scripted_builders as sb
from tests.support.scripted_model import ScriptedModelServer

KEY = "sk-retry-secret-abcdef0123456789"


def make_client(base_url: str, **overrides: Any) -> ModelClient:
    fields: dict[str, Any] = {"name": "scripted", "base_url": base_url, "env_key": "TEST_KEY_VAR"}
    fields.update(overrides)
    return ModelClient(ModelProviderInfo(**fields), api_key=lambda: KEY)


async def stream(server: ScriptedModelServer, **overrides: Any) -> list[ResponseEvent]:
    async with make_client(server.base_url, **overrides) as c:
        return [e async for e in c.stream(Prompt(model="gpt-test"))]


async def fails(server: ScriptedModelServer, **overrides: Any) -> ModelError:
    with pytest.raises(ModelError) as info:
        await stream(server, **overrides)
    err = info.value
    for text in (str(err), repr(err), *map(str, err.args)):
        assert KEY not in text
    return err


def server_error(message: str, code: str | None = None, kind: str = "server_error") -> dict:
    return {"error": {"message": message, "type": kind, "code": code}}


async def test_500_then_success_is_retried_transparently(scripted_model) -> None:
    scripted_model.enqueue(sb.http_error(500, server_error("boom")))
    scripted_model.enqueue(sb.text_response("recovered"))
    events = await stream(scripted_model, request_max_retries=2)
    assert isinstance(events[-1], Completed)
    assert len(scripted_model.requests) == 2
    # A retry resends the same request.
    assert scripted_model.requests[0].body == scripted_model.requests[1].body


async def test_500_forever_gives_up_after_the_retry_budget(scripted_model) -> None:
    for _ in range(3):
        scripted_model.enqueue(sb.http_error(500, server_error("The server had an error")))
    err = await fails(scripted_model, request_max_retries=2)
    assert len(scripted_model.requests) == 3  # request_max_retries + 1
    assert err.retryable  # the engine may still retry the turn
    assert err.codex_error_info == {"http_connection_failed": {"http_status_code": 500}}
    assert "HTTP 500" in str(err)
    assert "The server had an error" in str(err)
    assert "3 attempt(s)" in str(err)


async def test_connection_dropped_before_headers_is_retried(scripted_model) -> None:
    scripted_model.enqueue([{"disconnect": True}])
    scripted_model.enqueue(sb.text_response("ok"))
    events = await stream(scripted_model, request_max_retries=1)
    assert isinstance(events[-1], Completed)
    assert len(scripted_model.requests) == 2


async def test_headers_slower_than_idle_timeout_are_retried(scripted_model) -> None:
    scripted_model.enqueue([{"stall_s": 5.0}, *sb.text_response("slow")])
    scripted_model.enqueue(sb.text_response("fast"))
    events = await stream(scripted_model, request_max_retries=1, stream_idle_timeout_ms=400)
    assert isinstance(events[-1], Completed)
    assert len(scripted_model.requests) == 2


async def test_unreachable_server_is_a_clear_error() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with make_client(f"http://127.0.0.1:{port}/v1", request_max_retries=1) as c:
        with pytest.raises(ModelError) as info:
            async for _ in c.stream(Prompt(model="gpt-test")):
                pass
    err = info.value
    assert "Could not reach the model server" in str(err)
    assert "2 attempt(s)" in str(err)
    assert "base_url" in str(err)
    assert err.codex_error_info == {"http_connection_failed": {"http_status_code": None}}


async def test_429_with_retry_after_is_honoured(scripted_model) -> None:
    scripted_model.enqueue(sb.http_error(429, server_error("slow down"), {"Retry-After": "0.1"}))
    scripted_model.enqueue(sb.text_response("after the wait"))
    events = await stream(scripted_model, request_max_retries=2)
    assert isinstance(events[-1], Completed)
    assert len(scripted_model.requests) == 2


async def test_429_with_try_again_text_is_honoured(scripted_model) -> None:
    body = server_error("Rate limit reached. Please try again in 100ms.", "rate_limit_exceeded")
    scripted_model.enqueue(sb.http_error(429, body))
    scripted_model.enqueue(sb.text_response("ok"))
    events = await stream(scripted_model, request_max_retries=1)
    assert isinstance(events[-1], Completed)
    assert len(scripted_model.requests) == 2


async def test_429_forever_stops_at_the_budget(scripted_model) -> None:
    for _ in range(2):
        scripted_model.enqueue(sb.http_error(429, server_error("busy"), {"Retry-After": "0.05"}))
    err = await fails(scripted_model, request_max_retries=1)
    assert len(scripted_model.requests) == 2
    assert not err.retryable
    assert err.http_status == 429
    assert "rate limiting" in str(err)
    assert "busy" in str(err)


async def test_429_asking_for_an_absurd_wait_fails_fast_and_says_so(scripted_model) -> None:
    scripted_model.enqueue(sb.http_error(429, server_error("later"), {"Retry-After": "3600"}))
    err = await fails(scripted_model, request_max_retries=4)
    assert len(scripted_model.requests) == 1
    assert err.retry_after_s == 3600
    assert "3600 s" in str(err)
    assert "Try again later" in str(err)


async def test_429_usage_limit_is_fatal_without_retry(scripted_model) -> None:
    body = server_error("You've hit your usage limit.", None, "usage_limit_reached")
    scripted_model.enqueue(sb.http_error(429, body, {"Retry-After": "0.05"}))
    err = await fails(scripted_model, request_max_retries=3)
    assert len(scripted_model.requests) == 1
    assert err.codex_error_info == "usage_limit_exceeded"
    assert not err.retryable
    assert "You've hit your usage limit." in str(err)


async def test_401_is_fatal_and_never_leaks_the_key(scripted_model) -> None:
    # Servers echo keys back; the error a user sees must not contain it.
    body = server_error(f"Incorrect API key provided: {KEY}.", "invalid_api_key", "invalid_request")
    scripted_model.enqueue(sb.http_error(401, body))
    err = await fails(scripted_model, request_max_retries=3)
    assert scripted_model.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert len(scripted_model.requests) == 1
    assert err.codex_error_info == "unauthorized"
    assert not err.retryable
    assert "Sign in again or set TEST_KEY_VAR" in str(err)
    assert "Incorrect API key provided: [REDACTED]" in str(err)


async def test_401_redacts_key_shaped_text_it_was_not_told_about(scripted_model) -> None:
    body = "unauthorized: Authorization: Bearer abc.def.ghi rejected; sk-proj-ABCDEFGH12345678"
    scripted_model.enqueue(sb.http_error(401, body))
    err = await fails(scripted_model)
    assert "abc.def.ghi" not in str(err)
    assert "sk-proj-ABCDEFGH12345678" not in str(err)


async def test_400_is_fatal_with_the_server_message(scripted_model) -> None:
    body = server_error("Invalid value for 'tools[0].name'.", "invalid_value", "invalid_request")
    scripted_model.enqueue(sb.http_error(400, body))
    err = await fails(scripted_model, request_max_retries=3)
    assert len(scripted_model.requests) == 1
    assert err.codex_error_info == "bad_request"
    assert "HTTP 400" in str(err)
    assert "Invalid value for 'tools[0].name'." in str(err)


async def test_400_context_length_exceeded_maps_to_context_window(scripted_model) -> None:
    body = server_error("Your input exceeds the context window", "context_length_exceeded")
    scripted_model.enqueue(sb.http_error(400, body))
    err = await fails(scripted_model)
    assert err.codex_error_info == "context_window_exceeded"


async def test_404_points_at_base_url_and_model(scripted_model) -> None:
    scripted_model.enqueue(sb.http_error(404, {"error": "model 'gpt-test' not found"}))
    err = await fails(scripted_model)
    assert "base_url" in str(err)
    assert "model 'gpt-test' not found" in str(err)


async def test_no_script_left_is_reported_not_hung(scripted_model) -> None:
    err = await fails(scripted_model, request_max_retries=0)
    assert "no script left" in str(err)
    assert scripted_model.requests[0].scripted is False


async def test_a_key_of_any_shape_is_redacted_when_echoed(scripted_model) -> None:
    opaque = "opaque-token-7f3a9c11"  # nothing about it looks like a key
    scripted_model.enqueue(sb.http_error(403, {"error": {"message": f"token {opaque} denied"}}))
    prov = ModelProviderInfo(name="scripted", base_url=scripted_model.base_url)
    async with ModelClient(prov, api_key=lambda: opaque) as c:
        with pytest.raises(ModelError) as info:
            async for _ in c.stream(Prompt(model="gpt-test")):
                pass
    assert opaque not in str(info.value)
    assert "token [REDACTED] denied" in str(info.value)
    assert "HTTP 403" in str(info.value)
