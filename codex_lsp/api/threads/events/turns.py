"""A turn's start and end: `turn/started`, and `turn/completed` once whatever the turn left
open is closed.

An interrupted turn ends as the reference server ends one: what was still streaming or running
is left as it was (no `item/completed`), and `turn/completed` lists no items. While the client
waits on `turn/interrupt`, the end is held back (`hold_finish`), so the answer goes out between
the turn's last usage report and its end.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import anyio

from codex_lsp.api.threads.events.notifier import Notifier
from codex_lsp.api.threads.events.open_items import OpenItems
from codex_lsp.api.threads.events.requests import ApprovalHooks
from codex_lsp.api.threads.events.state import Handler, ThreadState, TurnState
from codex_lsp.api.threads.events.status import StatusTracker
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.threads.notifications import (
    TurnCompletedNotification,
    TurnStartedNotification,
)
from codex_lsp.protocol.threads.read_state import ThreadReadStateChangedNotification
from codex_lsp.protocol.turns.models import Turn, TurnStatus

TurnUnread = Callable[[str], ThreadReadStateChangedNotification | None]
"""Records that a turn (by id) left something to read; the notification, or None if none."""


class TurnLifecycle:
    def __init__(
        self,
        state: ThreadState,
        notifier: Notifier,
        open_items: OpenItems,
        status: StatusTracker,
        hooks: ApprovalHooks,
        turn_unread: TurnUnread | None = None,
    ) -> None:
        self._state = state
        self._turn_unread = turn_unread
        self._notifier = notifier
        self._items = open_items
        self._status = status
        self._hooks = hooks
        # turn/interrupt waiting for the turn to stop: its id, and the event that wakes it.
        self._hold: tuple[str, anyio.Event] | None = None
        self._held_finish: Callable[[], None] | None = None

    def handlers(self) -> Mapping[str, Handler]:
        return {
            "task_started": self._task_started,
            "task_complete": self._task_complete,
            "turn_aborted": self._turn_aborted,
        }

    @property
    def holding(self) -> bool:
        """Whether the end of an interrupted turn waits for `release_finish`."""
        return self._held_finish is not None

    def hold_finish(self, turn_id: str, stopped: anyio.Event) -> None:
        """Keep the end of `turn_id` back when it is interrupted: set `stopped` instead, until
        `release_finish` runs (the interrupt's answer is out)."""
        self._hold = (turn_id, stopped)

    def release_finish(self) -> None:
        """Send the held end of an interrupted turn, if there is one."""
        self._hold = None
        finish, self._held_finish = self._held_finish, None
        if finish is not None:
            finish()

    def _task_started(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.TaskStartedEvent)
        if self._state.turn is not None:  # a turn that never reported its end
            self._finish("interrupted", None)
        started_at = msg.started_at or int(time.time())
        self._state.failed = False
        root = msg.root_turn_id or msg.turn_id
        self._state.turn = TurnState(
            id=msg.turn_id, started_at=started_at, started_mono=time.monotonic(), root_id=root
        )
        self._state.last_turn_id = msg.turn_id
        self._status.update()
        turn = Turn(
            id=msg.turn_id,
            root_turn_id=root,
            status="inProgress",
            started_at=started_at,
            items_view="notLoaded",
        )
        self._notifier.send(
            "turn/started", TurnStartedNotification(thread_id=self._state.thread_id, turn=turn)
        )

    def _task_complete(self, event: ev.Event) -> None:
        self._finish("completed", event.msg_as(ev.TaskCompleteEvent))

    def _turn_aborted(self, event: ev.Event) -> None:
        msg = event.msg_as(ev.TurnAbortedEvent)
        turn = self._state.turn
        hold = self._hold
        if turn is not None and hold is not None and hold[0] == turn.id:
            self._held_finish = lambda: self._finish("interrupted", msg)
            hold[1].set()
            return
        self._finish("interrupted", msg)

    def _finish(
        self, status: TurnStatus, msg: ev.TaskCompleteEvent | ev.TurnAbortedEvent | None
    ) -> None:
        turn = self._state.turn
        if turn is None:
            return
        interrupted = status == "interrupted"
        if not interrupted:
            self._items.close_streams()
        # An interrupted turn leaves its unfinished items as they were.
        self._items.close_tools(turn, complete=not interrupted)
        self._state.steered.pop(turn.id, None)
        if status == "completed" and turn.error is not None:
            status = "failed"
        completed = msg if isinstance(msg, ev.TaskCompleteEvent) else None
        duration = completed.duration_ms if completed is not None else None
        if duration is None:
            duration = int((time.monotonic() - turn.started_mono) * 1000)
        result = Turn(
            id=turn.id,
            root_turn_id=turn.root_id or turn.id,
            # The reference server's "summary" view: the turn's final answer. An interrupted
            # turn has none, and its items are not loaded.
            items=[turn.last_message] if turn.last_message is not None and not interrupted else [],
            items_view="notLoaded" if interrupted else "summary",
            status=status,
            error=turn.error if status == "failed" else None,
            started_at=turn.started_at,
            completed_at=(completed.completed_at if completed is not None else None)
            or int(time.time()),
            duration_ms=duration,
        )
        if not interrupted and self._turn_unread is not None:
            # The user has not seen what the turn left; clients hear it before the thread goes idle.
            unread = self._turn_unread(turn.id)
            if unread is not None:
                self._notifier.send("thread/readState/changed", unread)
        self._state.inputs.pop(turn.id, None)
        self._state.turn = None
        self._status.clear_waiting()
        self._status.update()
        ended = TurnCompletedNotification(thread_id=self._state.thread_id, turn=result)
        self._notifier.send("turn/completed", ended)
        # Requests still out are moot now; the client hears so after the turn's end.
        self._hooks.turn_ended(turn.id)
        hold = self._hold
        if hold is not None and hold[0] == turn.id:  # it ended on its own before stopping
            hold[1].set()
