"""The items a turn has open, and when they close.

A streaming message or reasoning item completes as soon as another kind of item starts; a tool
item completes with its end event, or when its turn ends. A tool announced early (with its
approval request) is not announced again by its begin event. A process the model left running
outlives its turn: its item stays open until the process exits.
"""

from __future__ import annotations

from codex_lsp.api.convert import now_ms
from codex_lsp.api.threads.events.notifier import Notifier
from codex_lsp.api.threads.events.state import Running, ThreadState, ToolItem, TurnState
from codex_lsp.protocol.turns.items import (
    CommandExecutionThreadItem,
    FileChangeThreadItem,
    McpToolCallThreadItem,
    ThreadItem,
)


class OpenItems:
    def __init__(self, state: ThreadState, notifier: Notifier) -> None:
        self._state = state
        self._notifier = notifier

    def instant(self, item: ThreadItem) -> None:
        """An item that starts and completes at once (user messages, compaction markers)."""
        self.close_streams()
        self._notifier.item_started(item)
        self._notifier.item_completed(item)

    def close_reasoning(self) -> None:
        turn = self._state.turn
        if turn is not None and turn.reasoning is not None:
            item, turn.reasoning = turn.reasoning.item(), None
            self._notifier.item_completed(item)

    def close_streams(self) -> None:
        """Complete the streaming items: another kind of item is starting."""
        self.close_reasoning()
        turn = self._state.turn
        if turn is not None and turn.message is not None:
            item, turn.message = turn.message.item(), None
            turn.last_message = item
            self._notifier.item_completed(item)

    def start_tool(self, turn: TurnState, call_id: str, item: ToolItem) -> None:
        """Announce a tool item unless it is already running (announced with its approval)."""
        if call_id in turn.running:
            return
        self.close_streams()
        turn.running[call_id] = Running(item)
        self._notifier.item_started(item)

    def end_tool(self, turn: TurnState, call_id: str, item: ToolItem) -> None:
        running = turn.running.pop(call_id, None)
        if running is None:
            self.close_streams()
        item.started_at_ms = running.item.started_at_ms if running is not None else now_ms()
        self._notifier.item_completed(item)

    def close_tools(self, turn: TurnState, *, complete: bool = True) -> None:
        """Whatever is still running when the turn ends did not finish (completed as failed,
        unless `complete` is False: an interrupted turn leaves its items as they were), except
        a process the model left running for later: its item stays open until it exits."""
        for call_id in list(turn.running):
            running = turn.running.pop(call_id)
            item = running.item
            if isinstance(item, CommandExecutionThreadItem) and item.source == "unifiedExecStartup":
                self._state.background[call_id] = (turn.id, running)
                continue
            if not complete:
                continue
            if isinstance(
                item, CommandExecutionThreadItem | FileChangeThreadItem | McpToolCallThreadItem
            ):
                item.status = "failed"
            self._notifier.item_completed(item)
