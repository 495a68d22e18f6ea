"""A thread's v2 status (`idle`, `active` with what it waits on, `systemError`), announced with
`thread/status/changed` whenever it changes."""

from __future__ import annotations

from codex_lsp.api.threads.events.notifier import Notifier
from codex_lsp.api.threads.events.state import ThreadState
from codex_lsp.protocol.threads.models import (
    ActiveThreadStatus,
    IdleThreadStatus,
    SystemErrorThreadStatus,
    ThreadActiveFlag,
)
from codex_lsp.protocol.threads.notifications import ThreadStatusChangedNotification

ThreadStatus = ActiveThreadStatus | IdleThreadStatus | SystemErrorThreadStatus


class StatusTracker:
    def __init__(self, state: ThreadState, notifier: Notifier) -> None:
        self._state = state
        self._notifier = notifier
        # Approvals and questions waiting on the client, per kind.
        self._waiting: dict[ThreadActiveFlag, int] = {}
        self._status: tuple[str, tuple[ThreadActiveFlag, ...]] = ("idle", ())

    def current(self) -> ThreadStatus:
        kind, flags = self._status
        if kind == "systemError":
            return SystemErrorThreadStatus()
        return (
            IdleThreadStatus() if kind == "idle" else ActiveThreadStatus(active_flags=list(flags))
        )

    def waiting(self, flag: ThreadActiveFlag, delta: int) -> None:
        """An approval or question started (+1) or stopped (-1) waiting on the client."""
        self._waiting[flag] = max(self._waiting.get(flag, 0) + delta, 0)
        self.update()

    def clear_waiting(self) -> None:
        """The turn ended: nothing it asked is waited on any more."""
        self._waiting.clear()

    def update(self) -> None:
        if self._state.failed:
            # The model failed the turn for good: the thread shows it until the next turn.
            status: tuple[str, tuple[ThreadActiveFlag, ...]] = ("systemError", ())
        elif self._state.turn is None:
            status = ("idle", ())
        else:
            status = ("active", tuple(sorted(flag for flag, n in self._waiting.items() if n > 0)))
        if status != self._status:
            self._status = status
            self._notifier.send(
                "thread/status/changed",
                ThreadStatusChangedNotification(
                    thread_id=self._state.thread_id, status=self.current()
                ),
            )
