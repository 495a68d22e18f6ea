"""One sampling request: stream a response, turn its stream into events, collect its items.

A retryable failure (a dropped stream, an idle timeout, a retryable `response.failed`) re-runs
the whole request up to the provider's `stream_max_retries`, announcing each attempt with a
`stream_error`; nothing from a failed attempt enters the history.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from codex_lsp.engine.history import message_text
from codex_lsp.model import (
    Completed,
    ModelError,
    OutputItemDone,
    OutputTextDelta,
    Prompt,
    RateLimitsUpdated,
    ReasoningContentDelta,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ResponseEvent,
    backoff_delay,
)
from codex_lsp.model.events import (
    RateLimitSnapshot as HeaderRateLimits,
    RateLimitWindow as HeaderRateLimitWindow,
)
from codex_lsp.protocol.core.events import (
    AgentMessageDeltaEvent,
    AgentMessageEvent,
    AgentReasoningDeltaEvent,
    AgentReasoningEvent,
    AgentReasoningRawContentDeltaEvent,
    AgentReasoningSectionBreakEvent,
    EventMsg,
    StreamErrorEvent,
    WebSearchBeginEvent,
    WebSearchEndEvent,
)
from codex_lsp.protocol.core.inputs import RateLimitSnapshot, RateLimitWindow, TokenUsage
from codex_lsp.protocol.core.response_items import ResponseItem

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session

TOOL_CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call"})


class SamplingClient(Protocol):
    """What a sampling request needs of a model client: `ModelClient`, or one wrapping it."""

    def stream(self, prompt: Prompt) -> AsyncIterator[ResponseEvent]: ...


@dataclass
class SamplingResult:
    items: list[ResponseItem] = field(default_factory=list)
    response_id: str | None = None
    usage: TokenUsage | None = None

    @property
    def tool_calls(self) -> list[ResponseItem]:
        return [item for item in self.items if item.get("type") in TOOL_CALL_TYPES]

    @property
    def last_agent_message(self) -> str | None:
        for item in reversed(self.items):
            if item.get("type") == "message" and item.get("role") == "assistant":
                return message_text(item)
        return None


async def run_sampling_request(
    session: Session,
    sub_id: str,
    client: SamplingClient,
    prompt: Prompt,
    *,
    show_messages: bool = True,
    on_output: Callable[[], None] | None = None,
) -> SamplingResult:
    """Stream one response; `on_output` is called when the first output reaches the user."""
    max_retries = session.ctx.provider.effective_stream_retries()
    attempt = 0
    requests = 0
    while True:
        try:
            return await _stream_once(session, sub_id, client, prompt, show_messages, on_output)
        except ModelError as err:
            requests += err.requests
            if not err.retryable or attempt >= max_retries:
                if attempt > 0:
                    # Each try of the turn retried its request too: say what was really sent.
                    err.message = f"{err.message} ({requests} requests over {attempt + 1} tries)"
                raise
            attempt += 1
            delay = err.retry_after_s if err.retry_after_s is not None else backoff_delay(attempt)
            session.emit(
                sub_id,
                StreamErrorEvent(
                    message=f"Reconnecting... {attempt}/{max_retries}",
                    codex_error_info=err.codex_error_info,
                    additional_details=err.message,
                ),
            )
            await anyio.sleep(delay)


async def _stream_once(
    session: Session,
    sub_id: str,
    client: SamplingClient,
    prompt: Prompt,
    show_messages: bool,
    on_output: Callable[[], None] | None,
) -> SamplingResult:
    result = SamplingResult()
    # A summarisation request streams nothing to the user.
    emit = session.emit if show_messages else _discard
    # Text of messages still streaming, so an interrupt keeps what the user already read.
    partial: dict[str | None, list[str]] = {}
    try:
        async for event in client.stream(prompt):
            # Not reading on while the client is behind keeps memory bounded and loses nothing.
            await session.events_drained()
            if on_output is not None and isinstance(event, _VISIBLE_EVENTS):
                on_output()
                on_output = None
            # Most events are text deltas: test for them first.
            if isinstance(event, OutputTextDelta):
                emit(sub_id, AgentMessageDeltaEvent(delta=event.delta, item_id=event.item_id))
                partial.setdefault(event.item_id, []).append(event.delta)
            elif isinstance(event, OutputItemDone):
                partial.pop(str(event.item.get("id")), None)
                if show_messages:
                    _item_done(session, sub_id, event.item)
                result.items.append(event.item)
            elif isinstance(event, Completed):
                _complete(result, event)
                return result
            else:
                _other_event(session, sub_id, emit, event)
    except anyio.get_cancelled_exc_class():
        if show_messages:
            _keep_partial(session, partial)
        raise
    raise ModelError(
        "stream closed before response.completed",
        codex_error_info={"response_stream_disconnected": {"http_status_code": None}},
        retryable=True,
    )


def _other_event(session: Any, sub_id: str, emit: Any, event: Any) -> None:
    if isinstance(event, ReasoningSummaryDelta):
        emit(
            sub_id,
            AgentReasoningDeltaEvent(delta=event.delta, summary_index=event.summary_index),
        )
    elif isinstance(event, ReasoningSummaryPartAdded):
        emit(sub_id, AgentReasoningSectionBreakEvent(summary_index=event.summary_index))
    elif isinstance(event, ReasoningContentDelta):
        emit(
            sub_id,
            AgentReasoningRawContentDeltaEvent(
                delta=event.delta, content_index=event.content_index
            ),
        )
    elif isinstance(event, RateLimitsUpdated):
        session.rate_limits = _snapshot(event.snapshot)


def _complete(result: SamplingResult, event: Completed) -> None:
    result.response_id = event.response_id
    if event.usage is not None:
        u = event.usage
        result.usage = TokenUsage(
            input_tokens=u.input_tokens,
            cached_input_tokens=u.cached_input_tokens,
            output_tokens=u.output_tokens,
            reasoning_output_tokens=u.reasoning_output_tokens,
            total_tokens=u.total_tokens,
        )


def _keep_partial(session: Any, partial: dict[str | None, list[str]]) -> None:
    """An interrupted answer keeps the text already shown: in the thread (its `agent_message`
    is persisted, so a reopened thread shows it) and in the history the model reads next.
    It is not announced as completed: a live client was sent its deltas and, as from the
    reference server, no end of an answer that never ended."""
    for item_id, parts in partial.items():
        text = "".join(parts)
        if not text.strip():
            continue
        session.record_event(AgentMessageEvent(message=text, item_id=item_id))
        content = [{"type": "output_text", "text": text}]
        session.record_items([{"type": "message", "role": "assistant", "content": content}])


_VISIBLE_EVENTS = (
    OutputTextDelta,
    OutputItemDone,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ReasoningContentDelta,
)


def _discard(_sub_id: str, _msg: EventMsg) -> None:
    pass


def _item_done(session: Session, sub_id: str, item: Mapping[str, Any]) -> None:
    kind = item.get("type")
    if kind == "message" and item.get("role") == "assistant":
        session.emit(sub_id, AgentMessageEvent(message=message_text(item), item_id=item.get("id")))
    elif kind == "reasoning":
        for part in item.get("summary") or []:
            text = part.get("text") if isinstance(part, dict) else None
            if text:
                session.emit(sub_id, AgentReasoningEvent(text=text, item_id=item.get("id")))
    elif kind == "web_search_call":
        call_id = item.get("id") or ""
        action = item.get("action") or {}
        session.emit(sub_id, WebSearchBeginEvent(call_id=call_id))
        session.emit(sub_id, WebSearchEndEvent(call_id=call_id, query=action.get("query") or ""))


def _snapshot(snapshot: HeaderRateLimits) -> RateLimitSnapshot:
    def window(w: HeaderRateLimitWindow | None) -> RateLimitWindow | None:
        if w is None:
            return None
        return RateLimitWindow(
            used_percent=w.used_percent, window_minutes=w.window_minutes, resets_at=w.resets_at
        )

    return RateLimitSnapshot(primary=window(snapshot.primary), secondary=window(snapshot.secondary))
