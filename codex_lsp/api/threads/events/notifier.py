"""How a thread's event map speaks: v2 notifications scoped to its thread, with the item and
error notifications written in one place so every family sends them alike."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from codex_lsp.api.convert import now_ms
from codex_lsp.api.threads.events.state import ThreadState
from codex_lsp.protocol.threads.notifications import (
    ErrorNotification,
    ItemCompletedNotification,
    ItemStartedNotification,
    WarningNotification,
)
from codex_lsp.protocol.turns.items import ThreadItem
from codex_lsp.protocol.turns.models import TurnError

Notify = Callable[[str, BaseModel], None]
"""Sends one v2 notification: its method and its params model."""


class Notifier:
    def __init__(self, state: ThreadState, notify: Notify) -> None:
        self._state = state
        self.send: Notify = notify

    @property
    def thread_id(self) -> str:
        return self._state.thread_id

    def item_started(
        self, item: ThreadItem, at_ms: int | None = None, *, turn_id: str | None = None
    ) -> None:
        at = at_ms if at_ms is not None else now_ms()
        item.started_at_ms = at
        self.send(
            "item/started",
            ItemStartedNotification(
                item=item,
                thread_id=self.thread_id,
                turn_id=turn_id or self._state.turn_id(),
                started_at_ms=at,
            ),
        )

    def item_completed(self, item: ThreadItem, turn_id: str | None = None) -> None:
        at = now_ms()
        item.completed_at_ms = at
        self.send(
            "item/completed",
            ItemCompletedNotification(
                item=item,
                thread_id=self.thread_id,
                turn_id=turn_id or self._state.turn_id(),
                completed_at_ms=at,
            ),
        )

    def error(self, error: TurnError, turn_id: str, *, will_retry: bool) -> None:
        """The v2 `error` notification for a `TurnError`; final for the turn unless the
        engine will retry."""
        self.send(
            "error",
            ErrorNotification(
                error=error, will_retry=will_retry, thread_id=self.thread_id, turn_id=turn_id
            ),
        )

    def warning(self, message: str) -> None:
        self.send("warning", WarningNotification(message=message, thread_id=self.thread_id))
