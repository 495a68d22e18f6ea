"""Tool specs in the Responses-API form. Which of them a turn offers is `tools.config`'s call.

Names, parameters, types and required fields follow the reference tools exactly (a model trained
on them calls them by those); the descriptions are ours.
"""

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

_OUTPUT_TOKENS: dict[str, Any] = {
    "type": "number",
    "description": "Most tokens of output to return (default 10000, and never more than the "
    "model's output budget); the middle of longer output is cut.",
}

EXEC_COMMAND: dict[str, Any] = {
    "type": "function",
    "name": "exec_command",
    "description": "Starts a command in a shell, on a PTY if asked, and returns its output once "
    "it exits or the yield time passes; a command still running gets a session ID to poll or "
    "type into with write_stdin.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "cmd": {"type": "string", "description": "The shell command line to run."},
            "justification": {
                "type": "string",
                "description": "Only with require_escalated: the question the user approves.",
            },
            "login": {
                "type": "boolean",
                "description": "Run the shell as a login shell (default true).",
            },
            "max_output_tokens": _OUTPUT_TOKENS,
            "prefix_rule": {
                "type": "array",
                "description": "Only with require_escalated: a command prefix the user may "
                'allow from now on, e.g. ["npm", "test"].',
                "items": {"type": "string"},
            },
            "sandbox_permissions": {
                "type": "string",
                "description": 'Leave as "use_default", or "require_escalated" to ask the user '
                "to run this command outside the sandbox.",
                "enum": ["use_default", "require_escalated"],
            },
            "shell": {
                "type": "string",
                "description": "The shell program to use (default: the user's shell).",
            },
            "tty": {
                "type": "boolean",
                "description": "Give the command a PTY, for interactive programs (default: "
                "plain pipes).",
            },
            "workdir": {
                "type": "string",
                "description": "Directory to run in (default: the turn's working directory).",
            },
            "yield_time_ms": {
                "type": "number",
                "description": "How long to wait for output before returning (default 10000, "
                "between 250 and 30000).",
            },
        },
        "required": ["cmd"],
        "additionalProperties": False,
    },
}

WRITE_STDIN: dict[str, Any] = {
    "type": "function",
    "name": "write_stdin",
    "description": "Types characters into a session exec_command left running (a PTY one) "
    "and returns what it printed since; empty characters just wait for more output.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "chars": {
                "type": "string",
                "description": "What to type, e.g. a line ending in \\n, or \\u0003 for "
                "Ctrl-C. Empty (the default) only polls.",
            },
            "max_output_tokens": _OUTPUT_TOKENS,
            "session_id": {
                "type": "number",
                "description": "The session ID exec_command returned.",
            },
            "yield_time_ms": {
                "type": "number",
                "description": "How long to wait for output: 250 ms by default after typing "
                "(at most 30000); a poll waits 5000 to 300000 ms.",
            },
        },
        "required": ["session_id"],
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
                            "description": "Where the step stands.",
                            "enum": ["pending", "in_progress", "completed"],
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
