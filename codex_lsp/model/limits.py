"""How much a model server may send in one response, and the error for sending more.

The model server is a peer the engine does not control: a proxy, a local OSS server, or a
hostile host a config points at. Every piece of a response the engine holds in memory has a
ceiling, far above what a real model sends (a 128k-token answer is about 0.5 MiB of text),
so that a server can cost the engine a bounded amount of memory and time, never more. Going
over ends the response with a `ModelError` that is not retried: asking again would cost the
same.
"""

from __future__ import annotations

from codex_lsp.model.errors import ModelError

MIB = 1 << 20

# One SSE line, and one event's `data` (its lines together). An output item arrives whole in
# one event, so this is above the largest item: tool arguments plus their JSON envelope.
MAX_SSE_LINE_BYTES = 16 * MIB
MAX_SSE_EVENT_BYTES = 16 * MIB
# Everything the server sends in one response (a Responses-API stream repeats its text:
# deltas, then the finished item, then `response.completed`).
MAX_RESPONSE_BYTES = 128 * MIB
# One text, reasoning or tool-input delta, in characters.
MAX_DELTA_CHARS = 4 * MIB
# One tool call's arguments (or a custom tool's input), in characters, however they arrive.
MAX_TOOL_ARGUMENTS_CHARS = 8 * MIB
# Tool calls in one response; each is run before the model hears back.
MAX_TOOL_CALLS = 128
# An HTTP response head, one chunk-size line, one trailer section (h11 enforces it).
MAX_HTTP_FRAMING_BYTES = 64 * 1024


def too_much(what: str) -> ModelError:
    """The error ending a response that went over a limit: says which one, and that it is the
    server's doing."""
    return ModelError(
        f"The model server sent {what}, over codex-lsp's limit for a model response. "
        "The response was stopped: the server, or a proxy in front of it, is misbehaving.",
        codex_error_info="other",
        retryable=False,
    )


def size(nbytes: int) -> str:
    """A limit in words: `16 MiB`."""
    return f"{nbytes // MIB} MiB" if nbytes >= MIB else f"{nbytes // 1024} KiB"


def check_delta(delta: str) -> str:
    """`delta`, unless it is larger than one delta may be."""
    if len(delta) > MAX_DELTA_CHARS:
        raise too_much(f"a delta of more than {MAX_DELTA_CHARS:,} characters")
    return delta


def check_arguments(length: int) -> None:
    """Raise when one call's arguments have reached `length` characters, over the limit."""
    if length > MAX_TOOL_ARGUMENTS_CHARS:
        raise too_much(f"tool call arguments of more than {MAX_TOOL_ARGUMENTS_CHARS:,} characters")


def count_call(calls: int) -> int:
    """`calls` plus one, unless that is more calls than one response may make."""
    calls += 1
    if calls > MAX_TOOL_CALLS:
        raise too_much(f"more than {MAX_TOOL_CALLS} tool calls in one response")
    return calls
