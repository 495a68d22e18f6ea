"""`[hooks]` of config.toml: the user's commands run before and after a tool call, as Codex
runs them (Claude Code's hook protocol).

Each matching command of `PreToolUse` / `PostToolUse` runs through `sh -c` in the turn's
working directory with a JSON object on stdin (`session_id`, `turn_id`, `transcript_path`,
`cwd`, `hook_event_name`, `model`, `permission_mode`, `tool_name`, `tool_input`,
`tool_use_id`; `PostToolUse` adds `tool_response`). A hook blocks by exiting 2 with a reason on
stderr, or by printing `{"decision": "block", "reason": ...}` or a `hookSpecificOutput` with
`permissionDecision: "deny"`. A blocked `PreToolUse` keeps the tool from running and the model
reads the reason; a blocked `PostToolUse` adds its reason to what the model reads. A hook that
fails otherwise (another status, a timeout) is logged and does not block. The commands run
outside the sandbox, as the user's own configuration.

Shell tools are matched as `Bash` (and `shell`), `apply_patch` also as `Write` and `Edit`, as
in Codex; a group without `matcher` (or `*`) matches every tool.
"""

from __future__ import annotations

import json
import logging
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.store.config_hooks import HookGroup

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 600.0
_SHELL_TOOLS = frozenset({"exec_command", "shell_command", "shell"})


@dataclass(frozen=True)
class HookTarget:
    """The tool call as hooks see it."""

    tool_name: str
    aliases: tuple[str, ...]
    tool_input: Any


def hook_target(name: str, arguments: Any, raw: str) -> HookTarget:
    if name in _SHELL_TOOLS:
        command = (
            arguments.get("cmd") or arguments.get("command")
            if isinstance(arguments, dict)
            else None
        )
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        return HookTarget("Bash", ("Bash", "shell", name), {"command": command})
    if name == "apply_patch":
        patch = arguments.get("input") if isinstance(arguments, dict) else raw
        return HookTarget("apply_patch", ("apply_patch", "Write", "Edit"), {"command": patch})
    return HookTarget(name, (name,), arguments if arguments is not None else raw)


def matching(groups: Sequence[HookGroup], target: HookTarget) -> list[tuple[str, float]]:
    """The commands (and timeouts) of every group whose matcher takes the tool."""
    commands: list[tuple[str, float]] = []
    for group in groups:
        if any(group.matches(alias) for alias in target.aliases):
            for hook in group.hooks:
                commands.append((hook.command, hook.timeout or DEFAULT_TIMEOUT_S))
    return commands


def _block_reason(status: int, stdout: str, stderr: str) -> str | None:
    if status == 2:
        return stderr.strip() or None
    if status != 0:
        return None
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    if not isinstance(answer, dict):
        return None
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason") or "denied by a hook")
    if answer.get("decision") == "block":
        return str(answer.get("reason") or "blocked by a hook")
    return None


async def run_hooks(
    event: str, commands: Sequence[tuple[str, float]], payload: dict[str, Any], cwd: Path
) -> str | None:
    """Run `commands` in order; the first block's reason, or None."""
    stdin = json.dumps({**payload, "hook_event_name": event}).encode()
    for command, timeout in commands:
        try:
            with anyio.fail_after(timeout):
                done = await anyio.run_process(
                    ["sh", "-c", command],
                    input=stdin,
                    cwd=cwd,
                    check=False,
                    stderr=subprocess.PIPE,
                )
        except TimeoutError:
            log.warning("%s hook %r timed out after %gs", event, command, timeout)
            continue
        except OSError as err:
            log.warning("%s hook %r cannot run: %s", event, command, err.strerror)
            continue
        stdout = done.stdout.decode("utf-8", "replace")
        stderr = done.stderr.decode("utf-8", "replace")
        reason = _block_reason(done.returncode, stdout, stderr)
        if reason is not None:
            return reason
        if done.returncode not in (0, 2):
            log.warning("%s hook %r exited with status %d", event, command, done.returncode)
    return None
