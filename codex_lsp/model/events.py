"""Events a model stream yields, whichever wire (Responses or Chat Completions) produced them.

The engine consumes one `ResponseEvent` union, so the Chat Completions client translates its chunks
into these same events. Output items stay plain dicts in Responses-API JSON (`message`,
`reasoning`, `function_call`, `custom_tool_call`, `web_search_call`, ...): they go back into the
next request's `input` unchanged, so a typed copy would only have to be converted back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codex_lsp.protocol.core.response_items import ResponseItem


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts of one response, in the shape of the core `token_count` event."""

    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        if not isinstance(other, TokenUsage):
            return NotImplemented
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_output_tokens=self.reasoning_output_tokens + other.reasoning_output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )

    @classmethod
    def from_responses(cls, usage: dict[str, Any]) -> TokenUsage:
        """Read a Responses-API `response.usage` object; missing details count as zero."""
        in_details = usage.get("input_tokens_details") or {}
        out_details = usage.get("output_tokens_details") or {}
        return cls(
            input_tokens=int(usage.get("input_tokens") or 0),
            cached_input_tokens=int(in_details.get("cached_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            reasoning_output_tokens=int(out_details.get("reasoning_tokens") or 0),
            total_tokens=int(usage.get("total_tokens") or 0),
        )

    @classmethod
    def from_chat(cls, usage: dict[str, Any]) -> TokenUsage:
        """Read a Chat Completions `usage` object (prompt/completion naming)."""
        in_details = usage.get("prompt_tokens_details") or {}
        out_details = usage.get("completion_tokens_details") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        return cls(
            input_tokens=prompt,
            cached_input_tokens=int(in_details.get("cached_tokens") or 0),
            output_tokens=completion,
            reasoning_output_tokens=int(out_details.get("reasoning_tokens") or 0),
            total_tokens=int(usage.get("total_tokens") or (prompt + completion)),
        )


@dataclass(frozen=True, slots=True)
class RateLimitWindow:
    """One rate-limit window as the server reports it in `x-codex-*` headers."""

    used_percent: float
    window_minutes: int | None = None
    resets_at: int | None = None  # unix seconds


@dataclass(frozen=True, slots=True)
class RateLimitSnapshot:
    primary: RateLimitWindow | None = None
    secondary: RateLimitWindow | None = None


@dataclass(frozen=True, slots=True)
class Created:
    """The server accepted the request and started a response."""


@dataclass(frozen=True, slots=True)
class OutputItemAdded:
    item: ResponseItem


@dataclass(frozen=True, slots=True)
class OutputItemDone:
    item: ResponseItem


@dataclass(frozen=True, slots=True)
class OutputTextDelta:
    delta: str
    item_id: str | None = None


@dataclass(frozen=True, slots=True)
class ReasoningSummaryDelta:
    delta: str
    summary_index: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningSummaryPartAdded:
    summary_index: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningContentDelta:
    delta: str
    content_index: int = 0


@dataclass(frozen=True, slots=True)
class CustomToolCallInputDelta:
    """A piece of a freeform tool's input (e.g. an apply_patch body) while it streams.

    The Responses API names the item (`item_id`); `call_id` is filled when the server sends it.
    """

    delta: str
    call_id: str | None = None
    item_id: str | None = None


@dataclass(frozen=True, slots=True)
class RateLimitsUpdated:
    snapshot: RateLimitSnapshot


@dataclass(frozen=True, slots=True)
class ServerModel:
    """The model the server actually routed to (from `openai-model`), when it says."""

    model: str


@dataclass(frozen=True, slots=True)
class Completed:
    """The response finished; always the last event of a successful stream."""

    response_id: str
    usage: TokenUsage | None = None


ResponseEvent = (
    Created
    | OutputItemAdded
    | OutputItemDone
    | OutputTextDelta
    | ReasoningSummaryDelta
    | ReasoningSummaryPartAdded
    | ReasoningContentDelta
    | CustomToolCallInputDelta
    | RateLimitsUpdated
    | ServerModel
    | Completed
)
