"""The model layer: stream one sampling request from a provider as `ResponseEvent`s.

Entry point: `ModelClient(provider).stream(prompt)`. Both wires (the Responses API and Chat
Completions for OSS servers) yield the same events; failures raise `ModelError`.
"""

from codex_lsp.model.client import MAX_RETRY_WAIT_S, ModelClient
from codex_lsp.model.errors import ModelError
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
from codex_lsp.model.prompt import Prompt
from codex_lsp.model.retry import backoff_delay, parse_retry_after, parse_try_again
from codex_lsp.model.sse import SseMessage, SseParser

__all__ = [
    "MAX_RETRY_WAIT_S",
    "Completed",
    "Created",
    "CustomToolCallInputDelta",
    "ModelClient",
    "ModelError",
    "OutputItemAdded",
    "OutputItemDone",
    "OutputTextDelta",
    "Prompt",
    "RateLimitSnapshot",
    "RateLimitWindow",
    "RateLimitsUpdated",
    "ReasoningContentDelta",
    "ReasoningSummaryDelta",
    "ReasoningSummaryPartAdded",
    "ResponseEvent",
    "ServerModel",
    "SseMessage",
    "SseParser",
    "TokenUsage",
    "backoff_delay",
    "parse_retry_after",
    "parse_try_again",
]
