"""v2 notifications an editor user should see even without a chat panel.

Every v2 notification already reaches the client as `codex/<method>` (`LspClientPort`); that
is enough for a panel that renders them, but a plain editor drops unknown notifications. The
non-fatal problems the engine reports (an MCP server that did not start, a skipped rollout line,
no sandbox on this system) would then go unseen, so `warning` and `configWarning` are also
shown as `window/showMessage` of type Warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from codex_lsp.protocol.config.write import ConfigWarningNotification
from codex_lsp.protocol.threads.notifications import WarningNotification

if TYPE_CHECKING:
    from codex_lsp.lsp.observers import NotificationObservers
    from codex_lsp.lsp.server import CodexLanguageServer

PREFIX = "Codex: "


def warning_text(notice: WarningNotification | ConfigWarningNotification) -> str | None:
    """The text to show for a warning, None when it has nothing to say."""
    if isinstance(notice, WarningNotification):
        return f"{PREFIX}{notice.message}" if notice.message else None
    if not notice.summary:
        return None
    if notice.details:
        return f"{PREFIX}{notice.summary}\n{notice.details}"
    return f"{PREFIX}{notice.summary}"


class EditorNotices:
    def __init__(self, server: CodexLanguageServer) -> None:
        self._server = server

    def register(self, server: CodexLanguageServer) -> None:
        """Nothing to register: the feature only watches notifications (`subscribe`)."""

    def subscribe(self, observers: NotificationObservers) -> None:
        observers.on(WarningNotification, self._show)
        observers.on(ConfigWarningNotification, self._show)

    def _show(self, notice: WarningNotification | ConfigWarningNotification) -> None:
        text = warning_text(notice)
        if text is not None:
            self._server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=text)
            )
