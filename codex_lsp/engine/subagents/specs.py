"""The subagent tools as the model sees them, and what the developer message says about them."""

from __future__ import annotations

from typing import Any

FEATURE = "subagent_tools"

SPAWN = "subagent_spawn"
SEND = "subagent_send"
INTERRUPT = "subagent_interrupt"
LOGS = "subagent_logs"
AWAIT = "subagent_await"
LIST = "subagent_list"
CANCEL = "subagent_cancel"
PRUNE = "subagent_prune"

AWAIT_DEFAULT_S = 1_800
AWAIT_MIN_S = 300
AWAIT_MAX_S = 1_800
LOGS_DEFAULT_LIMIT = 20
LOGS_MAX_LIMIT = 200

_AGENT_ID = {"type": "integer", "description": "The child's agent id, as spawn returned it."}


def _tool(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "name": name,
        "description": description,
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }


TOOL_SPECS: list[dict[str, Any]] = [
    _tool(
        SPAWN,
        "Starts a child agent that works on `message` in parallel with you, in its own "
        "conversation. Returns its agent id at once; use subagent_await to wait for its answer.",
        {
            "message": {"type": "string", "description": "The child's task, self-contained."},
            "fork": {
                "type": "boolean",
                "description": "Start the child from a copy of your conversation so far instead "
                "of an empty one.",
            },
            "label": {"type": "string", "description": "A short name shown in listings."},
        },
        ["message"],
    ),
    _tool(
        SEND,
        "Sends a message to one of your children. An idle child starts working on it at once; a "
        "busy one reads it when its current task ends.",
        {"agent_id": _AGENT_ID, "message": {"type": "string"}},
        ["agent_id", "message"],
    ),
    _tool(
        INTERRUPT,
        "Stops a child's current task. With `message`, the child handles that message next; "
        "without, it stops and drops the messages queued for it.",
        {"agent_id": _AGENT_ID, "message": {"type": "string"}},
        ["agent_id"],
    ),
    _tool(
        LOGS,
        "Shows a child's recent activity (messages, commands, reasoning) without changing its "
        "state. Prefer it to awaiting when you only want to check progress.",
        {
            "agent_id": _AGENT_ID,
            "limit": {
                "type": "integer",
                "description": f"How many recent lines (default {LOGS_DEFAULT_LIMIT}, "
                f"at most {LOGS_MAX_LIMIT}).",
            },
        },
        ["agent_id"],
    ),
    _tool(
        AWAIT,
        "Waits until a child (or, without `agent_id`, every busy child of yours) has finished "
        "its work, and returns their status and last message.",
        {
            "agent_id": _AGENT_ID,
            "timeout_s": {
                "type": "number",
                "description": f"Seconds to wait: omit or 0 for the default ({AWAIT_DEFAULT_S}); "
                f"otherwise between {AWAIT_MIN_S} and {AWAIT_MAX_S}.",
            },
        },
        [],
    ),
    _tool(LIST, "Lists your children with their status and pending messages.", {}, []),
    _tool(
        CANCEL,
        "Stops a child and every agent it started, and removes them.",
        {"agent_id": _AGENT_ID},
        ["agent_id"],
    ),
    _tool(
        PRUNE,
        "Removes finished children (all of yours that are not working, or just `agent_ids`).",
        {"agent_ids": {"type": "array", "items": {"type": "integer"}}},
        [],
    ),
]


def root_section(max_active: int) -> str:
    return (
        "## Subagents\n"
        "You can hand self-contained parts of a task to child agents that work in parallel "
        f"with you (`{SPAWN}`); each child gets a numeric agent id (the user's thread is agent "
        "0). At "
        f"most {max_active} can be working at once. Check on them with `{LOGS}` (read-only) or "
        f"`{LIST}`, steer them with `{SEND}` and `{INTERRUPT}`, and collect their answers "
        f"with `{AWAIT}`. Await in steps of {AWAIT_MIN_S}-{AWAIT_MAX_S} seconds with backoff "
        "(for example 300, then 600, then 1200) rather than parking for the full 30 minutes. "
        f"`{CANCEL}` stops a child; `{PRUNE}` removes finished ones."
    )


def child_role(agent_id: int, parent_agent_id: int) -> str:
    return (
        f"<subagent>\nYou are subagent {agent_id}, started by agent {parent_agent_id} to do the "
        "task in the messages you receive. Work on it autonomously; your final message is what "
        f"agent {parent_agent_id} reads, so make it a complete, concise report.\n</subagent>"
    )
