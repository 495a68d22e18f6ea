"""Which `EventMsg`s go into a rollout, and how they are trimmed first.

Deltas and begin events are never persisted: a rollout holds what is needed to rebuild a thread's
turns for display, not the live stream. The set is Codex's "limited" mode plus the end events a
chat panel needs to redraw commands, patches and tool calls after a resume.
"""

from __future__ import annotations

from typing import Any

MAX_PERSISTED_EXEC_OUTPUT_BYTES = 10_000

LIMITED_EVENTS = frozenset(
    {
        "user_message",
        "agent_message",
        "agent_reasoning",
        "agent_reasoning_raw_content",
        "token_count",
        "thread_name_updated",
        "context_compacted",
        "entered_review_mode",
        "exited_review_mode",
        "thread_rolled_back",
        "undo_completed",
        "turn_aborted",
        "task_started",
        "turn_started",
        "task_complete",
        "turn_complete",
        "image_generation_end",
    }
)

EXTRA_EVENTS = frozenset(
    {
        "error",
        "exec_command_end",
        "patch_apply_end",
        "turn_aborted",
        "mcp_tool_call_end",
        "web_search_end",
        "view_image_tool_call",
        "collab_agent_tool_call_end",
        "sub_agent_activity",
        "proposed_plan",
        # A resumed thread finds its goal where these left it.
        "thread_goal_updated",
        "thread_goal_cleared",
        # A resumed thread rebuilds its subagents from these before replaying turns.
        "subagent_lifecycle",
        "agent_inbox",
    }
)

PERSISTED_EVENTS = LIMITED_EVENTS | EXTRA_EVENTS


def should_persist_event(event_type: str, payload: dict[str, Any] | None = None) -> bool:
    """Whether an event of this type is written to the rollout.

    `item_completed` is kept only for plan items, so its payload is needed to decide; without
    one it is not persisted.
    """
    if event_type in PERSISTED_EVENTS:
        return True
    if event_type == "item_completed" and payload is not None:
        item = payload.get("item")
        return isinstance(item, dict) and str(item.get("type", "")).lower() == "plan"
    return False


def truncate_utf8(text: str, max_bytes: int) -> str:
    """At most `max_bytes` of UTF-8, cut on a character boundary."""
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    return encoded[:max_bytes].decode("utf-8", errors="ignore")


def sanitize_event(event: dict[str, Any]) -> dict[str, Any]:
    """A copy of `event` fit for the rollout.

    Command output can be megabytes; the display needs a bounded excerpt, and the model-facing
    copy already lives in the `function_call_output` response item.
    """
    if event.get("type") != "exec_command_end":
        return event
    trimmed = dict(event)
    output = trimmed.get("aggregated_output")
    if isinstance(output, str):
        trimmed["aggregated_output"] = truncate_utf8(output, MAX_PERSISTED_EXEC_OUTPUT_BYTES)
    for key in ("stdout", "stderr", "formatted_output"):
        if key in trimmed:
            trimmed[key] = ""
    return trimmed
