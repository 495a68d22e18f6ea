"""What `codex-lsp exec` tells a person at a terminal: pure functions from events to text.

The session header (which sandbox and approval policy are in force), why a command failed
(a bounded tail of its output, and how to allow what the sandbox blocked), and the change a
patch would make, shown before the user is asked to apply it. File names are shown on one line
with their control characters named (`display.visible`); the caller shows the rest the same way
with its lines kept.
"""

from __future__ import annotations

from typing import Any

from codex_lsp.display import visible
from codex_lsp.protocol.core.events import ExecCommandEndEvent, SessionConfiguredEvent
from codex_lsp.protocol.core.policy import DangerFullAccess, ReadOnly, SandboxPolicy, WorkspaceWrite
from codex_lsp.sandbox import is_likely_sandbox_denied

# Enough to show the cause (usually the last lines) without flooding the terminal.
FAILURE_TAIL_LINES = 12
LINE_CHARS = 240
PATCH_PREVIEW_LINES = 200

_APPROVAL_MEANING = {
    "untrusted": "asks before any command that is not a known-safe read",
    "on-failure": "asks when the sandbox blocks a command",
    "on-request": "asks when the agent wants to leave the sandbox",
    "never": "never asks; what the sandbox blocks fails",
}


def sandbox_summary(policy: SandboxPolicy) -> str:
    if isinstance(policy, DangerFullAccess):
        return "danger-full-access (no sandbox: commands can change anything you can)"
    network = "network on" if policy.network_access else "no network"
    if isinstance(policy, ReadOnly):
        return f"read-only (commands can read files but not write them; {network})"
    roots = ", ".join(policy.writable_roots)
    extra = f" and {roots}" if roots else ""
    return f"workspace-write (commands can write in the workdir{extra}; {network})"


def session_header(msg: SessionConfiguredEvent) -> str:
    approval = str(msg.approval_policy)
    meaning = _APPROVAL_MEANING.get(approval)
    lines = [
        f"workdir: {msg.cwd}",
        f"model: {msg.model} (provider: {msg.model_provider_id})",
        f"sandbox: {sandbox_summary(msg.sandbox_policy)}",
        f"approval: {approval}" + (f" ({meaning})" if meaning else ""),
        f"session: {msg.session_id}",
    ]
    return "\n".join(lines)


def failure_details(msg: ExecCommandEndEvent, policy: SandboxPolicy | None) -> str:
    """The last lines of a failed command's output, then sandbox advice if it was denied."""
    output = msg.aggregated_output or (msg.stdout + msg.stderr)
    lines = [line[:LINE_CHARS] for line in output.rstrip("\n").splitlines()]
    shown = lines[-FAILURE_TAIL_LINES:]
    parts: list[str] = []
    if len(lines) > len(shown):
        parts.append(f"  ... {len(lines) - len(shown)} earlier lines not shown")
    parts.extend(f"  | {line}" for line in shown)
    advice = sandbox_advice(policy) if policy is not None else None
    if advice is not None and is_likely_sandbox_denied(msg.exit_code, output):
        parts.append(advice)
    return "\n".join(parts)


def sandbox_advice(policy: SandboxPolicy) -> str | None:
    """How to allow what `policy` blocks; None when there is no sandbox to blame."""
    network = "-c sandbox_workspace_write.network_access=true"
    if isinstance(policy, DangerFullAccess):
        return None
    if isinstance(policy, ReadOnly):
        return (
            "  the read-only sandbox blocked this command. To let commands write in the "
            "workdir, run with -s workspace-write (or --full-auto); for network access add "
            f"{network}."
        )
    assert isinstance(policy, WorkspaceWrite)
    if policy.network_access:
        return (
            "  the workspace-write sandbox blocked this command (it writes outside the "
            "workdir). Add the folder to sandbox_workspace_write.writable_roots, or run with "
            "-s danger-full-access to turn the sandbox off."
        )
    return (
        "  the workspace-write sandbox blocked this command (it writes outside the workdir "
        f"or uses the network). For network access run with {network}; for other folders "
        "add them to sandbox_workspace_write.writable_roots; -s danger-full-access turns the "
        "sandbox off."
    )


def patch_preview(changes: dict[str, dict[str, Any]]) -> str:
    """Each file's change as a diff: what the user is about to approve, bounded in length."""
    lines: list[str] = []
    for path, change in changes.items():
        kind = change.get("type")
        shown = visible(path)
        if kind == "add":
            lines.append(f"  add {shown}")
            lines.extend(f"    +{line}" for line in _lines(str(change.get("content") or "")))
        elif kind == "delete":
            lines.append(f"  delete {shown}")
        else:
            move = change.get("move_path")
            lines.append(f"  update {shown}" + (f" -> {visible(str(move))}" if move else ""))
            diff = str(change.get("unified_diff") or "")
            lines.extend(f"    {line}" for line in _lines(diff))
    if len(lines) > PATCH_PREVIEW_LINES:
        hidden = len(lines) - PATCH_PREVIEW_LINES
        lines = [*lines[:PATCH_PREVIEW_LINES], f"  ... {hidden} more lines"]
    return "\n".join(line[:LINE_CHARS] for line in lines)


def _lines(text: str) -> list[str]:
    # Split on newlines only: a carriage return or a form feed inside a line is shown, not
    # taken for a line break as `str.splitlines` would.
    if not text:
        return []
    return [visible(line, multiline=True) for line in text.removesuffix("\n").split("\n")]
