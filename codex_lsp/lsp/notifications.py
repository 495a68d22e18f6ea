"""v2 notifications an editor user should see even without a chat panel.

Every v2 notification already reaches the client as `codex/<method>` (`LspClientPort`); that
is enough for a panel that renders them, but a plain editor drops unknown notifications. The
non-fatal problems the engine reports (an MCP server that did not start, a skipped rollout line,
no sandbox on this system) would then go unseen, so `warning` and `configWarning` are also
shown as `window/showMessage` of type Warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from codex_lsp.lsp.server import CodexLanguageServer

PREFIX = "Codex: "


def warning_text(method: str, params: dict[str, Any]) -> str | None:
    """The text to show for a warning notification, None for any other notification."""
    if method == "warning":
        message = params.get("message")
        return f"{PREFIX}{message}" if message else None
    if method == "configWarning":
        summary, details = params.get("summary"), params.get("details")
        if not summary:
            return None
        return f"{PREFIX}{summary}\n{details}" if details else f"{PREFIX}{summary}"
    return None


class EditorNotices:
    def __init__(self, server: CodexLanguageServer) -> None:
        self._server = server

    def register(self, server: CodexLanguageServer) -> None:
        """Nothing to register: the feature only watches notifications (`observe`)."""

    def observe(self, method: str, params: dict[str, Any]) -> None:
        """Called with every v2 notification the API sends."""
        text = warning_text(method, params)
        if text is not None:
            self._server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=text)
            )
