"""Builders for `ScriptedModelServer` scripts: plain JSON lists of steps.

Item builders (`message_item`, `reasoning_step`, `function_call_item`, `custom_tool_call_item`)
return the steps of one output item; `multi_item_response` wraps items in `response.created`
... `response.completed` the way the Responses API streams them. Every response builder ends
with `response.completed` carrying `response.id` and `usage` unless told otherwise.
"""

from __future__ import annotations

import json
from typing import Any

Step = dict[str, Any]
Script = list[Step]


def usage(
    input_tokens: int = 12,
    output_tokens: int = 7,
    *,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached_tokens},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }


def sse(event: dict[str, Any]) -> Step:
    return {"sse": event}


def _item_event(kind: str, item_id: str, index: int, **fields: Any) -> Step:
    return sse({"type": kind, "item_id": item_id, "output_index": index, **fields})


def _added(item: dict[str, Any], index: int) -> Step:
    return sse({"type": "response.output_item.added", "output_index": index, "item": item})


def _done(item: dict[str, Any], index: int) -> Step:
    return sse({"type": "response.output_item.done", "output_index": index, "item": item})


def pieces(text: str, n: int = 3) -> list[str]:
    """`text` cut into up to `n` non-empty parts that join back to it."""
    if not text:
        return []
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


def created(response_id: str = "resp_1") -> Step:
    return sse(
        {"type": "response.created", "response": {"id": response_id, "status": "in_progress"}}
    )


def completed(response_id: str = "resp_1", usage_: dict[str, Any] | None = None) -> Step:
    response = {"id": response_id, "status": "completed", "usage": usage_ or usage()}
    return sse({"type": "response.completed", "response": response})


# -- output items ------------------------------------------------------------------------------


def message_item(text: str, *, item_id: str = "msg_1", index: int = 0) -> Script:
    done = {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    added = {**done, "status": "in_progress", "content": []}
    deltas = [
        _item_event("response.output_text.delta", item_id, index, content_index=0, delta=part)
        for part in pieces(text)
    ]
    return [_added(added, index), *deltas, _done(done, index)]


def reasoning_step(
    summary_text: str,
    *,
    item_id: str = "rs_1",
    index: int = 0,
    encrypted_content: str = "gAAAA-scripted",
    summary_index: int = 0,
) -> Script:
    """A reasoning item whose summary streams as deltas after a `summary_part.added`."""
    done = {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": summary_text}],
        "encrypted_content": encrypted_content,
    }
    part_added = _item_event(
        "response.reasoning_summary_part.added",
        item_id,
        index,
        summary_index=summary_index,
        part={"type": "summary_text", "text": ""},
    )
    deltas = [
        _item_event(
            "response.reasoning_summary_text.delta",
            item_id,
            index,
            summary_index=summary_index,
            delta=part,
        )
        for part in pieces(summary_text)
    ]
    return [_added({**done, "summary": []}, index), part_added, *deltas, _done(done, index)]


def function_call_item(
    name: str,
    arguments: dict[str, Any] | str,
    *,
    call_id: str = "call_1",
    item_id: str | None = None,
    index: int = 0,
) -> Script:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    item_id = item_id or f"fc_{call_id}"
    done = {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": args,
        "status": "completed",
    }
    added = {**done, "arguments": "", "status": "in_progress"}
    deltas = [
        _item_event("response.function_call_arguments.delta", item_id, index, delta=part)
        for part in pieces(args)
    ]
    return [_added(added, index), *deltas, _done(done, index)]


def custom_tool_call_item(
    name: str,
    input: str,
    *,
    call_id: str = "call_1",
    item_id: str | None = None,
    index: int = 0,
) -> Script:
    """A freeform tool call (e.g. apply_patch); its input streams as deltas naming the item."""
    item_id = item_id or f"ctc_{call_id}"
    done = {
        "type": "custom_tool_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "input": input,
        "status": "completed",
    }
    added = {**done, "input": "", "status": "in_progress"}
    deltas = [
        _item_event("response.custom_tool_call_input.delta", item_id, index, delta=part)
        for part in pieces(input)
    ]
    return [_added(added, index), *deltas, _done(done, index)]


# -- whole responses ---------------------------------------------------------------------------


def multi_item_response(
    parts: list[Script | dict[str, Any]],
    *,
    response_id: str = "resp_1",
    usage_: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    complete: bool = True,
) -> Script:
    """`response.created`, each part, then `response.completed`.

    A part is either the steps of an item builder or a bare item dict, which is sent as
    `output_item.added` + `output_item.done`.
    """
    steps: Script = [{"headers": headers}] if headers else []
    steps.append(created(response_id))
    for index, part in enumerate(parts):
        if isinstance(part, dict):
            steps += [_added(part, index), _done(part, index)]
        else:
            steps.extend(part)
    if complete:
        steps.append(completed(response_id, usage_))
    return steps


def text_response(
    text: str,
    *,
    response_id: str = "resp_1",
    usage: dict[str, Any] | None = None,
    item_id: str = "msg_1",
    headers: dict[str, str] | None = None,
) -> Script:
    return multi_item_response(
        [message_item(text, item_id=item_id)],
        response_id=response_id,
        usage_=usage,
        headers=headers,
    )


def slow_text_response(deltas: int = 600, pause_s: float = 0.05) -> Script:
    """A reply that streams for about `deltas * pause_s` seconds, one short delta at a time."""
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress"}
    steps: Script = [created(), _added({**item, "content": []}, 0)]
    for n in range(deltas):
        steps.append(
            _item_event("response.output_text.delta", "msg_1", 0, content_index=0, delta=f"w{n} ")
        )
        steps.append({"stall_s": pause_s})
    text = "".join(f"w{n} " for n in range(deltas))
    content = [{"type": "output_text", "text": text, "annotations": []}]
    steps.append(_done({**item, "status": "completed", "content": content}, 0))
    return [*steps, completed()]


def function_call_response(
    name: str,
    arguments: dict[str, Any] | str,
    *,
    call_id: str = "call_1",
    response_id: str = "resp_1",
    usage: dict[str, Any] | None = None,
) -> Script:
    return multi_item_response(
        [function_call_item(name, arguments, call_id=call_id)],
        response_id=response_id,
        usage_=usage,
    )


def custom_tool_call_response(
    name: str,
    input: str,
    *,
    call_id: str = "call_1",
    response_id: str = "resp_1",
    usage: dict[str, Any] | None = None,
) -> Script:
    return multi_item_response(
        [custom_tool_call_item(name, input, call_id=call_id)],
        response_id=response_id,
        usage_=usage,
    )


def response_failed(code: str, message: str, *, response_id: str = "resp_1") -> Script:
    failed = {
        "id": response_id,
        "status": "failed",
        "error": {"code": code, "message": message},
    }
    return [created(response_id), sse({"type": "response.failed", "response": failed})]


def response_incomplete(
    reason: str = "max_output_tokens", *, response_id: str = "resp_1"
) -> Script:
    response = {"id": response_id, "status": "incomplete", "incomplete_details": {"reason": reason}}
    return [created(response_id), sse({"type": "response.incomplete", "response": response})]


def http_error(
    status: int, body: str | dict[str, Any] = "", headers: dict[str, str] | None = None
) -> Script:
    step: Step = {"status": status, "body": body}
    if headers:
        step["headers"] = headers
    return [step]


def rate_limit_headers(
    primary_used_percent: float,
    primary_window_minutes: int | None = None,
    primary_reset_at: int | None = None,
    *,
    secondary_used_percent: float | None = None,
    secondary_window_minutes: int | None = None,
    secondary_reset_at: int | None = None,
) -> dict[str, str]:
    """The `x-codex-*` rate-limit headers, for `multi_item_response(headers=...)`."""
    values = {
        "x-codex-primary-used-percent": primary_used_percent,
        "x-codex-primary-window-minutes": primary_window_minutes,
        "x-codex-primary-reset-at": primary_reset_at,
        "x-codex-secondary-used-percent": secondary_used_percent,
        "x-codex-secondary-window-minutes": secondary_window_minutes,
        "x-codex-secondary-reset-at": secondary_reset_at,
    }
    return {k: str(v) for k, v in values.items() if v is not None}


# -- Chat Completions wire ---------------------------------------------------------------------


def chat_chunk(
    delta: dict[str, Any] | None = None,
    *,
    finish_reason: str | None = None,
    response_id: str = "chatcmpl-1",
    model: str = "scripted-model",
) -> Step:
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish_reason}
    return {
        "data": {
            "id": response_id,
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [choice],
        }
    }


def chat_usage(
    prompt_tokens: int = 12, completion_tokens: int = 7, *, response_id: str = "chatcmpl-1"
) -> Step:
    return {
        "data": {
            "id": response_id,
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    }


CHAT_DONE: Step = {"data": "[DONE]"}


def chat_text_response(text: str, *, response_id: str = "chatcmpl-1") -> Script:
    steps = [chat_chunk({"role": "assistant", "content": ""}, response_id=response_id)]
    steps += [chat_chunk({"content": p}, response_id=response_id) for p in pieces(text)]
    steps.append(chat_chunk(finish_reason="stop", response_id=response_id))
    steps += [chat_usage(response_id=response_id), CHAT_DONE]
    return steps


def chat_tool_call_response(
    name: str,
    arguments: dict[str, Any] | str,
    call_id: str = "call_1",
    *,
    text: str | None = None,
    response_id: str = "chatcmpl-1",
) -> Script:
    """An assistant turn calling one function; the arguments arrive in several chunks."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    steps = [chat_chunk({"role": "assistant", "content": text or ""}, response_id=response_id)]
    first = {"index": 0, "id": call_id, "type": "function", "function": {"name": name}}
    steps.append(
        chat_chunk({"tool_calls": [{**first, "function": {"name": name, "arguments": ""}}]})
    )
    for part in pieces(args):
        steps.append(
            chat_chunk(
                {"tool_calls": [{"index": 0, "function": {"arguments": part}}]},
                response_id=response_id,
            )
        )
    steps.append(chat_chunk(finish_reason="tool_calls", response_id=response_id))
    steps += [chat_usage(response_id=response_id), CHAT_DONE]
    return steps
