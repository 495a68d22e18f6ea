"""Approvals as `session/request_permission`: the four ACP options and the engine's decisions.

Allow once is `accept`, allow always `acceptForSession` (the engine stops asking about that
command or those files for the session). Reject once is `decline`: the model is told and the
turn goes on. Reject always also declines, and the door then declines every later request of
the same kind in that session without asking (the engine has no standing refusal). A client
that answers `cancelled` (its prompt was cancelled) interrupts the turn, as `cancel` does.
"""

from __future__ import annotations

from typing import Any

from codex_lsp.acp.updates import display_command

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"
REJECT_ALWAYS = "reject_always"

OPTIONS = [
    {"optionId": ALLOW_ONCE, "name": "Allow once", "kind": "allow_once"},
    {"optionId": ALLOW_ALWAYS, "name": "Allow for this session", "kind": "allow_always"},
    {"optionId": REJECT_ONCE, "name": "Reject", "kind": "reject_once"},
    {"optionId": REJECT_ALWAYS, "name": "Reject for this session", "kind": "reject_always"},
]

_DECISIONS = {
    ALLOW_ONCE: "accept",
    ALLOW_ALWAYS: "acceptForSession",
    REJECT_ONCE: "decline",
    REJECT_ALWAYS: "decline",
}

APPROVAL_METHODS = {
    "item/commandExecution/requestApproval": "command",
    "item/fileChange/requestApproval": "patch",
}


def decision(outcome: dict[str, Any]) -> str:
    """The v2 decision for the client's `outcome`."""
    if outcome.get("outcome") != "selected":
        return "cancel"
    return _DECISIONS.get(str(outcome.get("optionId")), "decline")


def tool_call(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The `toolCall` a permission request names: the pending item, with what is asked."""
    call: dict[str, Any] = {"toolCallId": params["itemId"], "status": "pending"}
    if method == "item/commandExecution/requestApproval":
        command = params.get("command")
        call["kind"] = "execute"
        title = display_command(str(command)) if command else "Run a command"
        if (params.get("codexLsp") or {}).get("runUnsandboxed"):
            # Approving it lets the command past the sandbox: the prompt must say so.
            title = f"Run OUTSIDE the sandbox: {title}"
        call["title"] = title
        call["rawInput"] = {
            "command": command,
            "cwd": params.get("cwd"),
            "reason": params.get("reason"),
        }
    else:
        call["kind"] = "edit"
        call["rawInput"] = {"reason": params.get("reason"), "grantRoot": params.get("grantRoot")}
    return call
