"""Rebuild a thread's state from its rollout lines, for resume and for display.

The model-visible history is what the next request must carry: the newest compaction's
replacement history as the base, then every response item recorded after it, with rolled-back
turns removed. Settings come from the last `turn_context`, usage from the last `token_count`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from codex_lsp.protocol.core.response_items import MessageItem, ResponseItem, response_item
from codex_lsp.store.rollout import (
    COMPACTED,
    EVENT_MSG,
    RESPONSE_ITEM,
    SESSION_META,
    TURN_CONTEXT,
    RolloutLine,
)

# Put before a compaction summary in the user message that replaces the history. The engine's
# compaction uses the same text, so a summary is recognised (and not kept as a user turn) later.
SUMMARY_PREFIX = (
    "Another language model worked on this task before you and wrote the handoff summary "
    "below. Treat it as your own notes: build on the progress and decisions it records "
    "instead of starting over."
)

# Recent user messages kept by a compaction, in approximate tokens (4 bytes each).
COMPACT_USER_MESSAGE_TOKENS = 20_000
BYTES_PER_TOKEN = 4

# User-role messages that carry injected context rather than something the user typed.
_CONTEXT_MARKERS = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<skill>",
    "<turn_aborted>",
)


@dataclass(slots=True)
class ResumedState:
    """What a resumed thread needs: history for the model, settings, usage, display events."""

    meta: dict[str, Any] | None
    history: list[ResponseItem] = field(default_factory=list)
    turn_context: dict[str, Any] | None = None
    token_info: dict[str, Any] | None = None
    rate_limits: dict[str, Any] | None = None
    # Persisted `EventMsg` payloads in order, rollbacks included, to rebuild turns for display.
    events: list[dict[str, Any]] = field(default_factory=list)
    # The thread's goal as its last `thread_goal_updated` left it (None once cleared).
    goal: dict[str, Any] | None = None
    thread_name: str | None = None
    # Response ids that ended a turn, and how long the history was then: the bookmarks a
    # later turn may fork from. A compaction or rollback invalidates the ones before it.
    bookmarks: dict[str, int] = field(default_factory=dict)


def message_text(item: Mapping[str, object]) -> str:
    """The concatenated text parts of a Responses-API `message` item."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        part.get("text", "")
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    return "".join(parts)


def user_message_item(text: str) -> MessageItem:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def is_real_user_message(item: Any, summary_prefix: str = SUMMARY_PREFIX) -> bool:
    """A user turn's message, as opposed to injected context or a compaction summary."""
    if not isinstance(item, dict) or item.get("type") != "message" or item.get("role") != "user":
        return False
    text = message_text(item).lstrip()
    if text.startswith(summary_prefix):
        return False
    return not text.startswith(_CONTEXT_MARKERS)


def _middle_truncate(text: str, max_bytes: int) -> str:
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    marker = f"\n…{len(encoded) - max_bytes} bytes truncated…\n".encode()
    keep = max(max_bytes - len(marker), 0)
    head = encoded[: keep // 2].decode("utf-8", errors="ignore")
    tail = encoded[len(encoded) - (keep - keep // 2) :].decode("utf-8", errors="ignore")
    return head + marker.decode() + tail


def compacted_history(
    history: list[ResponseItem],
    summary: str,
    *,
    summary_prefix: str = SUMMARY_PREFIX,
    max_user_tokens: int = COMPACT_USER_MESSAGE_TOKENS,
) -> list[ResponseItem]:
    """The history a compaction leaves: recent user messages, then the summary.

    Used for compactions recorded without a replacement history. The newest user messages are
    kept up to the token budget, the oldest kept one cut in the middle; ghost snapshots stay so
    undo keeps working. The initial context is not included: the engine adds its own.
    """
    budget = max_user_tokens * BYTES_PER_TOKEN
    kept: list[str] = []
    for item in reversed(history):
        if budget <= 0:
            break
        if not is_real_user_message(item, summary_prefix):
            continue
        text = message_text(item)
        size = len(text.encode("utf-8"))
        if size > budget:
            text = _middle_truncate(text, budget)
        kept.append(text)
        budget -= size
    rebuilt: list[ResponseItem] = [user_message_item(text) for text in reversed(kept)]
    rebuilt.append(user_message_item(f"{summary_prefix}\n{summary}"))
    rebuilt.extend(item for item in history if item.get("type") == "ghost_snapshot")
    return rebuilt


def drop_last_user_turns(
    history: list[ResponseItem], num_turns: int, summary_prefix: str = SUMMARY_PREFIX
) -> list[ResponseItem]:
    """`history` without its last `num_turns` user turns (each starts at a real user message)."""
    if num_turns <= 0:
        return history
    starts = [i for i, item in enumerate(history) if is_real_user_message(item, summary_prefix)]
    if not starts:
        return history
    cut = starts[0] if num_turns >= len(starts) else starts[-num_turns]
    return history[:cut]


def reconstruct_history(
    lines: Iterable[RolloutLine], *, summary_prefix: str = SUMMARY_PREFIX
) -> ResumedState:
    """Replay rollout lines into the state a resumed thread continues from."""
    state = ResumedState(meta=None)
    history: list[ResponseItem] = []
    for line in lines:
        kind, payload = line.type, line.payload
        if kind == RESPONSE_ITEM:
            if isinstance(payload, dict):
                history.append(response_item(payload))
        elif kind == EVENT_MSG:
            if isinstance(payload, dict):
                _apply_event(state, payload)
                response_id = payload.get("response_id")
                if payload.get("type") in ("task_complete", "turn_complete") and response_id:
                    state.bookmarks[str(response_id)] = len(history)
                if payload.get("type") == "thread_rolled_back":
                    turns = payload.get("num_turns")
                    if isinstance(turns, int):
                        history = drop_last_user_turns(history, turns, summary_prefix)
                        state.bookmarks.clear()
        elif kind == COMPACTED:
            if not isinstance(payload, dict):
                continue
            replacement = payload.get("replacement_history")
            if isinstance(replacement, list):
                rebuilt = [response_item(item) for item in replacement if isinstance(item, dict)]
                # A replacement that is a prefix of the history is a rewind to a bookmark (an
                # in-thread fork): the bookmarks it keeps stay valid, as they do in the session.
                if history[: len(rebuilt)] == rebuilt:
                    kept = len(rebuilt)
                    state.bookmarks = {k: n for k, n in state.bookmarks.items() if n <= kept}
                else:
                    state.bookmarks.clear()
                history = rebuilt
            else:
                state.bookmarks.clear()
                summary = payload.get("message")
                summary = summary if isinstance(summary, str) else ""
                history = compacted_history(history, summary, summary_prefix=summary_prefix)
        elif kind == TURN_CONTEXT:
            if isinstance(payload, dict):
                state.turn_context = payload
        elif kind == SESSION_META and state.meta is None and isinstance(payload, dict):
            state.meta = payload
    state.history = history
    return state


def history_before_turn(
    lines: list[RolloutLine], turn_id: str, *, summary_prefix: str = SUMMARY_PREFIX
) -> list[ResponseItem] | None:
    """The model-visible history as it was just before turn `turn_id` started, rebuilt from
    the rollout lines before its `task_started`; None if the rollout has no such turn."""
    for index, line in enumerate(lines):
        payload = line.payload
        if (
            line.type == EVENT_MSG
            and isinstance(payload, dict)
            and payload.get("type") in ("task_started", "turn_started")
            and payload.get("turn_id") == turn_id
        ):
            return reconstruct_history(lines[:index], summary_prefix=summary_prefix).history
    return None


def _apply_event(state: ResumedState, event: dict[str, Any]) -> None:
    state.events.append(event)
    event_type = event.get("type")
    if event_type == "token_count":
        if event.get("info") is not None:
            state.token_info = event["info"]
        if event.get("rate_limits") is not None:
            state.rate_limits = event["rate_limits"]
    elif event_type == "thread_goal_updated" and isinstance(event.get("goal"), dict):
        # A `null` budget is left out when the event is written.
        state.goal = {"tokenBudget": None, **event["goal"]}
    elif event_type == "thread_goal_cleared" and event.get("cleared", True):
        state.goal = None
    elif event_type == "thread_name_updated":
        name = event.get("thread_name")
        if isinstance(name, str):
            state.thread_name = name
