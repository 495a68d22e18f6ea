"""The client requests of the v2 protocol this server does not serve, and why.

Most belong to OpenAI's hosted product (plugins, apps, ChatGPT account services, credits) or to
a platform this server does not run on; they answer JSON-RPC "method not found" with the method
named and the reason, so a client can tell a deliberate gap from a typo.
"""

from __future__ import annotations

_HOSTED = "it belongs to OpenAI's hosted product"

_REASONS: dict[str, tuple[str, ...]] = {
    f"plugins and their marketplace: {_HOSTED}": (
        "marketplace/add",
        "marketplace/remove",
        "marketplace/upgrade",
        "plugin/list",
        "plugin/installed",
        "plugin/reconcile",
        "plugin/read",
        "plugin/skill/read",
        "plugin/install",
        "plugin/uninstall",
        "plugin/share/save",
        "plugin/share/updateTargets",
        "plugin/share/list",
        "plugin/share/checkout",
        "plugin/share/delete",
    ),
    f"apps (connectors): {_HOSTED}": ("app/read", "app/list", "app/installed"),
    f"gateway sign-in: {_HOSTED}": (
        "account/gatewayOAuth/read",
        "account/gatewayOAuth/login",
        "account/gatewayOAuth/cancel",
    ),
    f"ChatGPT account state: {_HOSTED}": (
        "account/usage/read",
        "account/securitySetup/read",
        "account/workspaceMessages/read",
    ),
    f"credits and usage nudges: {_HOSTED}": (
        "account/rateLimitResetCredit/consume",
        "account/sendAddCreditsNudgeEmail",
    ),
    f"uploading feedback: {_HOSTED}; feedback/save writes the same bundle locally": (
        "feedback/upload",
    ),
    "guardian review of denied actions is not part of this engine": (
        "thread/approveGuardianDeniedAction",
    ),
    "the Windows sandbox: this server runs on Linux": (
        "windowsSandbox/setupStart",
        "windowsSandbox/readiness",
    ),
    "importing other agents' configuration is not part of this server": (
        "externalAgentConfig/detect",
        "externalAgentConfig/import",
        "externalAgentConfig/import/recordHistory",
        "externalAgentConfig/import/readHistories",
    ),
}

OUT_OF_SCOPE: dict[str, str] = {
    method: reason for reason, methods in _REASONS.items() for method in methods
}
"""Method -> why this server does not serve it."""

LEGACY: dict[str, str] = {
    "getAuthStatus": "a request of the older protocol; account/read tells how you are signed in",
    "getConversationSummary": "a request of the older protocol; thread/read gives the summary",
    "gitDiffToRemote": "a request of the older protocol; review/start reviews a branch's changes",
}
"""Older-protocol requests the reference still answers (its TypeScript bindings name them, its
JSON Schema does not) -> why this server does not."""

NOT_SERVED_YET = frozenset(
    {
        "thread/rollback",
        # Projects of the experimental API (threads filed under named root folders).
        "project/list",
        "project/read",
        "project/create",
        "project/import",
        "project/update",
        "project/move",
        "project/delete",
    }
)
"""Methods of the protocol still to come here (`thread/revert` covers most of `thread/rollback`)."""


def not_found_message(method: str) -> str:
    """The -32601 message for `method`: named, with the reason when there is one."""
    reason = OUT_OF_SCOPE.get(method) or LEGACY.get(method)
    if reason is not None:
        return f"Method not found: {method} (not served by codex-lsp: {reason})"
    if method in NOT_SERVED_YET:
        return f"Method not found: {method} (not served by codex-lsp yet)"
    return f"Method not found: {method}"
