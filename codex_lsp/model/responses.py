"""The Responses-API wire: turn an open SSE response into `ResponseEvent`s (§2.4).

The HTTP request itself, with its transport retries, lives in `client.py`; this module starts
once the server has answered 2xx and owns everything that can go wrong after that: failures the
server reports in the stream, malformed data, a stall, or a connection that drops early.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from contextlib import aclosing
from typing import Any

import httpx

from codex_lsp.model.errors import quote_server_text, stream_disconnected
from codex_lsp.model.events import (
    Completed,
    Created,
    CustomToolCallInputDelta,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    RateLimitSnapshot,
    RateLimitsUpdated,
    RateLimitWindow,
    ReasoningContentDelta,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ResponseEvent,
    ServerModel,
    TokenUsage,
)
from codex_lsp.model.failures import error_for_code, server_error_fields
from codex_lsp.model.limits import check_arguments, check_delta, count_call
from codex_lsp.model.sse import aiter_sse
from codex_lsp.protocol.core.response_items import response_item

IDLE_TIMEOUT_MESSAGE = "idle timeout waiting for SSE"
CLOSED_EARLY_MESSAGE = "stream closed before response.completed"


def parse_rate_limits(headers: Mapping[str, str]) -> RateLimitSnapshot | None:
    """The `x-codex-{primary,secondary}-*` headers, or None when the server sent none."""
    primary = _window(headers, "x-codex-primary")
    secondary = _window(headers, "x-codex-secondary")
    if primary is None and secondary is None:
        return None
    return RateLimitSnapshot(primary=primary, secondary=secondary)


def _window(headers: Mapping[str, str], prefix: str) -> RateLimitWindow | None:
    used = _number(headers.get(f"{prefix}-used-percent"), float)
    if used is None:
        return None
    minutes = _number(headers.get(f"{prefix}-window-minutes"), int)
    resets_at = _number(headers.get(f"{prefix}-reset-at"), int)
    # Codex treats an all-zero window as "no data" rather than "0% used of a 0-minute window".
    if used == 0.0 and not minutes and resets_at is None:
        return None
    return RateLimitWindow(used_percent=used, window_minutes=minutes, resets_at=resets_at)


def _number(value: str | None, kind: type[int] | type[float]) -> Any:
    if value is None:
        return None
    try:
        number = kind(value.strip())
    except ValueError:
        return None
    # Reject NaN and infinities: they would poison any arithmetic the UI does.
    return number if number == number and abs(number) != float("inf") else None


def header_events(headers: Mapping[str, str]) -> list[ResponseEvent]:
    """Side events carried in response headers; emitted before any streamed event."""
    events: list[ResponseEvent] = []
    snapshot = parse_rate_limits(headers)
    if snapshot is not None:
        events.append(RateLimitsUpdated(snapshot))
    model = headers.get("openai-model") or headers.get("x-openai-model")
    if model:
        events.append(ServerModel(model))
    return events


async def iter_response_events(
    response: httpx.Response, *, secrets: Iterable[str | None] = ()
) -> AsyncGenerator[ResponseEvent]:
    """Events from an open 2xx Responses-API stream, ending with `Completed`.

    Raises `ModelError` for anything else: retryable for disconnects, stalls and transient
    failures, fatal for failures the server says will not go away.
    """
    ctx = _Ctx(tuple(secrets))
    for event in header_events(response.headers):
        yield event
    try:
        # aclosing: leaving early (on completion) must also close the byte stream now.
        async with aclosing(aiter_sse(response.aiter_bytes())) as messages:
            async for message in messages:
                payload = load_event_json(message.data)
                handler = _HANDLERS.get(payload.get("type") or message.event)
                if handler is None:
                    continue  # events we do not need (e.g. *.done duplicates of deltas)
                parsed = handler(payload, ctx)
                if parsed is None:
                    continue
                yield parsed
                if type(parsed) is Completed:
                    # Done: no need to wait for the server to close the connection.
                    return
    except httpx.ReadTimeout:
        # The request's read timeout is the idle timeout: no byte arrived for that long.
        raise stream_disconnected(IDLE_TIMEOUT_MESSAGE) from None
    except httpx.TransportError as exc:
        raise stream_disconnected(
            "The model stream was disconnected before the response completed "
            f"({str(exc) or type(exc).__name__})."
        ) from None
    raise stream_disconnected(CLOSED_EARLY_MESSAGE)


def load_event_json(data: str) -> dict[str, Any]:
    """The JSON object in an SSE `data` field; anything else is a (retryable) stream error."""
    try:
        payload = json.loads(data)
    except ValueError:
        raise stream_disconnected(
            f"The model server sent malformed SSE data (not JSON): {quote_server_text(data)!r}"
        ) from None
    if not isinstance(payload, dict):
        raise stream_disconnected(
            f"The model server sent an unexpected SSE payload: {quote_server_text(data)!r}"
        )
    return payload


class _Ctx:
    """Per-stream state the handlers share."""

    __slots__ = ("call_ids", "calls", "input_chars", "secrets")

    def __init__(self, secrets: tuple[str | None, ...]) -> None:
        self.secrets = secrets
        # Input deltas of freeform tools name the item, not the call; remember the pairing
        # from `output_item.added` so consumers get the call_id they key tool state on.
        self.call_ids: dict[str, str] = {}
        self.calls = 0
        # Characters of tool input streamed so far, per item: the consumer keeps them all.
        self.input_chars: dict[str | None, int] = {}


TOOL_CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call"})


_Payload = dict[str, Any]


def _created(p: _Payload, ctx: _Ctx) -> ResponseEvent:
    return Created()


def _item_added(p: _Payload, ctx: _Ctx) -> ResponseEvent | None:
    item = p.get("item")
    if not isinstance(item, dict):
        return None
    if item.get("type") == "custom_tool_call" and item.get("id") and item.get("call_id"):
        ctx.call_ids[item["id"]] = item["call_id"]
    return OutputItemAdded(response_item(item))


def _item_done(p: _Payload, ctx: _Ctx) -> ResponseEvent | None:
    item = p.get("item")
    if not isinstance(item, dict):
        return None
    if item.get("type") in TOOL_CALL_TYPES:
        ctx.calls = count_call(ctx.calls)
        for field in ("arguments", "input"):
            value = item.get(field)
            if isinstance(value, str):
                check_arguments(len(value))
    return OutputItemDone(response_item(item))


def _text_delta(p: _Payload, ctx: _Ctx) -> ResponseEvent | None:
    delta = p.get("delta")
    if not isinstance(delta, str):
        return None
    return OutputTextDelta(check_delta(delta), p.get("item_id"))


def _summary_delta(p: _Payload, ctx: _Ctx) -> ResponseEvent | None:
    delta = p.get("delta")
    if not isinstance(delta, str):
        return None
    return ReasoningSummaryDelta(check_delta(delta), int(p.get("summary_index") or 0))


def _summary_part(p: _Payload, ctx: _Ctx) -> ResponseEvent:
    return ReasoningSummaryPartAdded(int(p.get("summary_index") or 0))


def _reasoning_delta(p: _Payload, ctx: _Ctx) -> ResponseEvent | None:
    delta = p.get("delta")
    if not isinstance(delta, str):
        return None
    return ReasoningContentDelta(check_delta(delta), int(p.get("content_index") or 0))


def _custom_input_delta(p: _Payload, ctx: _Ctx) -> ResponseEvent | None:
    delta = p.get("delta")
    if not isinstance(delta, str):
        return None
    item_id = p.get("item_id")
    total = ctx.input_chars.get(item_id, 0) + len(check_delta(delta))
    check_arguments(total)
    ctx.input_chars[item_id] = total
    call_id = p.get("call_id") or (ctx.call_ids.get(item_id) if item_id else None)
    return CustomToolCallInputDelta(delta, call_id, item_id)


def _completed(p: _Payload, ctx: _Ctx) -> ResponseEvent:
    response = p.get("response") or {}
    usage = response.get("usage")
    return Completed(
        response_id=str(response.get("id") or ""),
        usage=TokenUsage.from_responses(usage) if isinstance(usage, dict) else None,
    )


def _failed(p: _Payload, ctx: _Ctx) -> ResponseEvent:
    error = (p.get("response") or {}).get("error")
    if not isinstance(error, dict):
        raise stream_disconnected("The model response failed without saying why.")
    message, code, kind = server_error_fields({"error": error})
    raise error_for_code(code, message, kind=kind, secrets=ctx.secrets)


def _incomplete(p: _Payload, ctx: _Ctx) -> ResponseEvent:
    details = (p.get("response") or {}).get("incomplete_details") or {}
    reason = details.get("reason") or "unknown"
    raise stream_disconnected(f"Incomplete response returned, reason: {reason}")


def _error_event(p: _Payload, ctx: _Ctx) -> ResponseEvent:
    # `error` events carry the fields at the top level; some servers nest them under "error".
    message, code, kind = server_error_fields(p if "error" in p else {"error": p})
    raise error_for_code(code, message, kind=kind, secrets=ctx.secrets)


_HANDLERS: dict[str, Callable[[_Payload, _Ctx], ResponseEvent | None]] = {
    "response.created": _created,
    "response.output_item.added": _item_added,
    "response.output_item.done": _item_done,
    "response.output_text.delta": _text_delta,
    "response.reasoning_summary_text.delta": _summary_delta,
    "response.reasoning_summary_part.added": _summary_part,
    "response.reasoning_text.delta": _reasoning_delta,
    "response.custom_tool_call_input.delta": _custom_input_delta,
    "response.completed": _completed,
    "response.failed": _failed,
    "response.incomplete": _incomplete,
    "error": _error_event,
}
