"""Approvals as `session/request_permission`: the four ACP options and the engine's decisions.

Allow once is `accept`, allow always `acceptForSession` (the engine stops asking about that
command or those files for the session). A command the engine proposes a prefix rule for gets
a fifth option, of kind allow_always: "Always allow commands starting with …", which saves the
rule in the rules file for every later session (`acceptWithExecpolicyAmendment`), as the
official Codex adapter offers it. Reject once is `decline`: the model is told and the
turn goes on. Reject always also declines, and the door then declines every later request of
the same kind in that session without asking (the engine has no standing refusal). A client
that answers `cancelled` (its prompt was cancelled) interrupts the turn, as `cancel` does.
"""

from __future__ import annotations

import shlex
from typing import Any

from codex_lsp.acp.updates import display_command
from codex_lsp.display import visible

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"
REJECT_ALWAYS = "reject_always"
ALLOW_PREFIX = "allow_command_prefix"

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


def proposed_prefix(params: dict[str, Any]) -> list[str] | None:
    """The prefix rule a command approval proposes, if any."""
    words = params.get("proposedExecpolicyAmendment")
    if isinstance(words, list) and words and all(isinstance(w, str) for w in words):
        return words
    return None


def options(params: dict[str, Any]) -> list[dict[str, str]]:
    """The options offered for the approval `params`: the four, and the prefix rule proposed."""
    prefix = proposed_prefix(params)
    if prefix is None:
        return OPTIONS
    name = f"Always allow commands starting with `{visible(shlex.join(prefix))}`"
    rule = {"optionId": ALLOW_PREFIX, "name": name, "kind": "allow_always"}
    return [*OPTIONS[:2], rule, *OPTIONS[2:]]


def decision(outcome: dict[str, Any], params: dict[str, Any]) -> str | dict[str, Any]:
    """The v2 decision for the client's `outcome` to the approval `params`."""
    if outcome.get("outcome") != "selected":
        return "cancel"
    prefix = proposed_prefix(params)
    if outcome.get("optionId") == ALLOW_PREFIX and prefix is not None:
        return {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": prefix}}
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
