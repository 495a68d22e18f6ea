"""The `collaboration` tools (`[features] multi_agent_v2`) as the model sees them.

They come as one namespace tool, as the reference offers them: agents are named by task paths
(`/root` is the user's thread, `/root/<task_name>` a child it spawned) and talk through messages
in the envelope below.
"""

from __future__ import annotations

from typing import Any

FEATURE = "multi_agent_v2"
NAMESPACE = "collaboration"
ROOT_PATH = "/root"

SPAWN = "spawn_agent"
SEND = "send_message"
FOLLOWUP = "followup_task"
WAIT = "wait_agent"
INTERRUPT = "interrupt_agent"
LIST = "list_agents"

WAIT_DEFAULT_MS = 30_000
WAIT_MIN_MS = 10_000
WAIT_MAX_MS = 3_600_000


def _function(
    name: str, description: str, properties: dict[str, Any], required: list[str] | None
) -> dict[str, Any]:
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        parameters["required"] = required
    parameters["additionalProperties"] = False
    return {
        "type": "function",
        "name": name,
        "description": description,
        "strict": False,
        "parameters": parameters,
    }


def _message(description: str) -> dict[str, Any]:
    # `encrypted` lets the provider carry the text to the recipient without echoing it.
    return {"type": "string", "description": description, "encrypted": True}


def _target(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _spawn_description(models: list[str]) -> str:
    offered = "".join(f"\n- `{slug}`" for slug in models)
    return (
        "Available model overrides (optional; the inherited parent model is preferred):"
        f"{offered}\n"
        "Spawns an agent to work on the task in `message`. Its canonical task name is your own "
        'task name followed by `/<task_name>` (from `/root`, task_name "tests" gives '
        "`/root/tests`); address it by that name or by `task_name` alone. It has the same "
        "tools as you, and its final answer reaches you as a message when it finishes.\n"
        'With `fork_turns="none"` the agent starts without your conversation and needs a '
        'self-contained task; `fork_turns="all"` (the default) gives it everything so far.'
    )


def namespace_spec(models: list[str]) -> dict[str, Any]:
    """The one tool offered: the six functions, in the reference's order."""
    tools = [
        _function(
            FOLLOWUP,
            "Send a follow-up task to an existing non-root target agent and trigger a turn if "
            "it is idle. If the target is already running, deliver the task promptly at message "
            "boundaries while sampling, or after the pending tool call completes.",
            {
                "message": _message("Message text to send to the target agent."),
                "target": _target(
                    "Agent id or canonical task name to send a follow-up task to "
                    "(from spawn_agent)."
                ),
            },
            ["target", "message"],
        ),
        _function(
            INTERRUPT,
            "Interrupt an agent's current turn, if any, and return its previous status. The "
            "agent remains available for messages and follow-up tasks.",
            {"target": _target("Agent id or canonical task name to interrupt (from spawn_agent).")},
            ["target"],
        ),
        _function(
            LIST,
            "List live agents in the current root thread tree. Optionally filter by task-path "
            "prefix.",
            {
                "path_prefix": _target(
                    "Task-path prefix filter without a trailing slash. Omit to list all live "
                    "agents."
                )
            },
            None,
        ),
        _function(
            SEND,
            "Send a message to an existing agent. The message will be delivered promptly. Does "
            "not trigger a new turn.",
            {
                "message": _message("Message text to queue on the target agent."),
                "target": _target("Relative or canonical task name to message (from spawn_agent)."),
            },
            ["target", "message"],
        ),
        _function(
            SPAWN,
            _spawn_description(models),
            {
                "fork_turns": _target(
                    "Parent history to inherit. Defaults to `all`; use `none` to start without "
                    "parent history. Only `all` and `none` are supported."
                ),
                "message": _message("Initial plain-text task for the new agent."),
                "model": _target(
                    "Model override for the new agent. Omit unless an explicit override is needed."
                ),
                "reasoning_effort": _target(
                    "Reasoning effort override for the new agent. Omit to inherit the parent "
                    "effort."
                ),
                "task_name": _target(
                    "Task name for the new agent. Use lowercase letters, digits, and underscores."
                ),
            },
            ["task_name", "message"],
        ),
        _function(
            WAIT,
            "Wait for a mailbox update from any live agent, including queued messages and "
            "final-status notifications. The wait also ends early when new user input is "
            "steered into the active turn. Does not return the content; returns either a "
            "summary of which agents have updates (if any), an interruption summary for "
            "steered input, or a timeout summary if no activity arrives before the deadline.",
            {
                "timeout_ms": {
                    "type": "number",
                    "description": f"Timeout in milliseconds. Defaults to {WAIT_DEFAULT_MS}, "
                    f"min {WAIT_MIN_MS}, max {WAIT_MAX_MS}.",
                }
            },
            None,
        ),
    ]
    return {
        "type": "namespace",
        "name": NAMESPACE,
        "description": "Tools for spawning and managing sub-agents.",
        "tools": tools,
    }


def envelope(kind: str, recipient: str, sender: str, payload: str) -> str:
    """A message between agents as the recipient's model reads it."""
    return f"Message Type: {kind}\nTask name: {recipient}\nSender: {sender}\nPayload:\n{payload}"


def root_section(max_active: int) -> str:
    return (
        f"You are `{ROOT_PATH}`, the primary agent of a team working on the user's goals. "
        f"The `{NAMESPACE}` tools let you start agents (`{SPAWN}`), give an agent a new task "
        f"(`{FOLLOWUP}`), pass a note to a working agent without starting a task (`{SEND}`), "
        f"wait for news from them (`{WAIT}`; prefer waits of minutes over polling), stop one "
        f"(`{INTERRUPT}`) and see who is there (`{LIST}`). Call them directly, never from "
        "inside a command. Messages from agents reach you in the form\n"
        "Message Type: MESSAGE | FINAL_ANSWER\nTask name: <recipient>\nSender: <author>\n"
        "Payload:\n<text>\n"
        "Every agent shares your workspace and sees your edits at once. "
        f"Up to {max_active} agents can be working at a time. Only spawn agents when the "
        "user, AGENTS.md or a skill asks for delegation or parallel work."
    )


def child_section(path: str) -> str:
    return (
        f"You are `{path}`, an agent of a team working on a task for the user. Tasks and "
        "messages reach you in the form\n"
        "Message Type: NEW_TASK | MESSAGE\nTask name: <you>\nSender: <author>\nPayload:\n"
        "<text>\n"
        "Do the task autonomously in the shared workspace; your final answer goes to the "
        "agent that gave you the task, so make it a complete, concise report."
    )
