"""What a turn says, for a client that did not declare `experimental.codex`.

Such a client is sent no `codex/*` notifications (it would drop them, or warn once per
streamed delta), so it hears of its turns through standard LSP instead: each message the agent
finishes goes to the editor's log (`window/logMessage`), and when the turn ends its last
message is shown (`window/showMessage`), or, for a turn that failed, why it failed, as an
error. Turn progress is `$/progress` (`progress`); approvals and questions are message prompts
(`approvals`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from codex_lsp.protocol.threads.notifications import (
    ErrorNotification,
    ItemCompletedNotification,
    TurnCompletedNotification,
)
from codex_lsp.protocol.turns.items import AgentMessageThreadItem

if TYPE_CHECKING:
    from codex_lsp.lsp.observers import NotificationObservers
    from codex_lsp.lsp.server import CodexLanguageServer

PREFIX = "Codex: "


class PlainClientNotices:
    def __init__(self, server: CodexLanguageServer) -> None:
        self._server = server
        # The last message of each running turn, by turn id.
        self._answers: dict[str, str] = {}

    def register(self, server: CodexLanguageServer) -> None:
        """Nothing to register: the feature only watches notifications (`subscribe`)."""

    def subscribe(self, observers: NotificationObservers) -> None:
        observers.on(ItemCompletedNotification, self._item_completed)
        observers.on(ErrorNotification, self._error)
        observers.on(TurnCompletedNotification, self._turn_completed)

    def _plain(self) -> bool:
        return not self._server.codex_client

    def _item_completed(self, notice: ItemCompletedNotification) -> None:
        item = notice.item
        if not self._plain() or not isinstance(item, AgentMessageThreadItem) or not item.text:
            return
        self._answers[notice.turn_id] = item.text
        self._log(types.MessageType.Info, f"{PREFIX}{item.text}")

    def _error(self, notice: ErrorNotification) -> None:
        if self._plain():
            retry = " (retrying)" if notice.will_retry else ""
            self._log(types.MessageType.Error, f"{PREFIX}error{retry}: {notice.error.message}")

    def _turn_completed(self, notice: TurnCompletedNotification) -> None:
        answer = self._answers.pop(notice.turn.id, None)
        if not self._plain():
            return
        turn = notice.turn
        if turn.status == "failed":
            reason = (turn.error.message if turn.error else "") or "unknown error"
            self._show(types.MessageType.Error, f"{PREFIX}the turn failed: {reason}")
        elif answer is not None:
            self._show(types.MessageType.Info, f"{PREFIX}{answer}")

    def _log(self, kind: types.MessageType, message: str) -> None:
        self._server.window_log_message(types.LogMessageParams(type=kind, message=message))

    def _show(self, kind: types.MessageType, message: str) -> None:
        self._server.window_show_message(types.ShowMessageParams(type=kind, message=message))
