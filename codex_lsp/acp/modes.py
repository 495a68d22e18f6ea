"""Session modes (approval presets and Plan mode) and the model and reasoning-effort options.

A preset sets the thread's approval policy and sandbox; Plan mode sets its collaboration mode
instead, so the thread explores read-only under whatever preset it had and ends with a plan.
Each is applied with `thread/settings/update`: it holds for the thread's next turns, on every
door that resumes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Preset:
    id: str
    name: str
    description: str
    approval_policy: str
    sandbox: dict[str, Any]


PRESETS = (
    Preset(
        "read-only",
        "Read-only",
        "Reads files; asks before editing files or running commands that change anything.",
        "on-request",
        {"type": "readOnly"},
    ),
    Preset(
        "agent",
        "Agent",
        "Reads and edits files in the workspace and runs commands there; asks for more.",
        "on-request",
        {"type": "workspaceWrite"},
    ),
    Preset(
        "full-access",
        "Full access",
        "Edits files anywhere and runs commands with network access, without asking.",
        "never",
        {"type": "dangerFullAccess"},
    ),
)
PLAN = "plan"
MODE_IDS = {preset.id for preset in PRESETS} | {PLAN}


def available_modes() -> list[dict[str, Any]]:
    modes = [{"id": p.id, "name": p.name, "description": p.description} for p in PRESETS]
    modes.append(
        {
            "id": PLAN,
            "name": "Plan",
            "description": "Explores read-only and proposes a plan; changes nothing.",
        }
    )
    return modes


def preset(mode_id: str) -> Preset | None:
    return next((p for p in PRESETS if p.id == mode_id), None)


def mode_of(settings: dict[str, Any]) -> str:
    """The mode a thread's settings (a `thread/start` or `thread/resume` answer) amount to."""
    collaboration = settings.get("collaborationMode") or {}
    if collaboration.get("mode") == PLAN:
        return PLAN
    sandbox = (settings.get("sandbox") or settings.get("sandboxPolicy") or {}).get("type")
    if sandbox == "dangerFullAccess":
        return "full-access"
    if sandbox == "readOnly":
        return "read-only"
    return "agent"


def mode_state(current: str) -> dict[str, Any]:
    return {"currentModeId": current, "availableModes": available_modes()}


def settings_for(mode_id: str, model: str) -> dict[str, Any]:
    """The `thread/settings/update` params (without the thread id) that select `mode_id`."""
    found = preset(mode_id)
    if found is None:  # Plan mode
        return {"collaborationMode": {"mode": PLAN, "settings": {"model": model}}}
    return {
        "approvalPolicy": found.approval_policy,
        "sandboxPolicy": found.sandbox,
        "collaborationMode": {"mode": "default", "settings": {"model": model}},
    }


MODE = "mode"
MODEL = "model"
EFFORT = "reasoning_effort"


def config_options(
    models: list[dict[str, Any]], model: str, effort: str | None, mode: str
) -> list[Any]:
    """The session's select options: the mode (as `session/set_mode` sets it, for clients
    that know only config options), which model, and how hard it thinks."""
    choices = [
        {
            "value": m["id"],
            "name": m.get("displayName") or m["id"],
            "description": m.get("description"),
        }
        for m in models
        if not m.get("hidden")
    ]
    if not any(choice["value"] == model for choice in choices):
        choices.insert(0, {"value": model, "name": model})
    modes = available_modes()
    options: list[Any] = [
        {
            "id": MODE,
            "name": "Mode",
            "description": "What the agent may do without asking",
            "category": "mode",
            "type": "select",
            "currentValue": mode,
            "options": [
                {"value": m["id"], "name": m["name"], "description": m["description"]}
                for m in modes
            ],
        },
        {
            "id": MODEL,
            "name": "Model",
            "description": "The model the session's turns use",
            "category": "model",
            "type": "select",
            "currentValue": model,
            "options": choices,
        },
    ]
    current = next((m for m in models if m["id"] == model), None)
    efforts = [e["reasoningEffort"] for e in (current or {}).get("supportedReasoningEfforts", [])]
    if efforts:
        value = effort if effort in efforts else (current or {}).get("defaultReasoningEffort")
        options.append(
            {
                "id": EFFORT,
                "name": "Reasoning effort",
                "description": "How much the model reasons before it answers",
                "category": "thought_level",
                "type": "select",
                "currentValue": value or efforts[0],
                "options": [{"value": e, "name": e.capitalize()} for e in efforts],
            }
        )
    return options
