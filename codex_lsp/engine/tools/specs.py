"""Tool specs in the Responses-API form, chosen per turn."""

from __future__ import annotations

from typing import Any

from codex_lsp.engine.patch import (
    APPLY_PATCH_FREEFORM_DESCRIPTION,
    APPLY_PATCH_FUNCTION_DESCRIPTION,
    APPLY_PATCH_LARK_GRAMMAR,
)

APPROVAL_PROPERTIES: dict[str, Any] = {
    "sandbox_permissions": {
        "type": "string",
        "description": 'Leave unset, or "require_escalated" to ask the user to run this command '
        "without the sandbox.",
    },
    "justification": {
        "type": "string",
        "description": "With require_escalated: one sentence the user reads when asked to approve.",
    },
}

SHELL_COMMAND: dict[str, Any] = {
    "type": "function",
    "name": "shell_command",
    "description": "Runs a shell script with the user's default shell and returns its output. "
    "Always set `workdir`; avoid `cd`.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The script to run."},
            "workdir": {"type": "string", "description": "Directory to run it in."},
            "timeout_ms": {"type": "number", "description": "Timeout in milliseconds."},
            **APPROVAL_PROPERTIES,
        },
        "required": ["command"],
        "additionalProperties": False,
    },
}

UPDATE_PLAN: dict[str, Any] = {
    "type": "function",
    "name": "update_plan",
    "description": "Updates the task plan: a short list of steps with their status. At most one "
    "step can be in_progress at a time.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "explanation": {"type": "string"},
            "plan": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "step": {"type": "string"},
                        "status": {
                            "type": "string",
                            "description": "One of: pending, in_progress, completed",
                        },
                    },
                    "required": ["step", "status"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["plan"],
        "additionalProperties": False,
    },
}

APPLY_PATCH_FREEFORM: dict[str, Any] = {
    "type": "custom",
    "name": "apply_patch",
    "description": APPLY_PATCH_FREEFORM_DESCRIPTION,
    "format": {"type": "grammar", "syntax": "lark", "definition": APPLY_PATCH_LARK_GRAMMAR},
}

APPLY_PATCH_FUNCTION: dict[str, Any] = {
    "type": "function",
    "name": "apply_patch",
    "description": APPLY_PATCH_FUNCTION_DESCRIPTION,
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {"input": {"type": "string", "description": "The entire patch."}},
        "required": ["input"],
        "additionalProperties": False,
    },
}


def base_tools(*, wire_api: str) -> list[dict[str, Any]]:
    """The built-in tools; chat servers get apply_patch as a JSON function."""
    patch = APPLY_PATCH_FREEFORM if wire_api == "responses" else APPLY_PATCH_FUNCTION
    return [SHELL_COMMAND, patch, UPDATE_PLAN]
