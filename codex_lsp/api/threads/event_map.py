"""One thread's engine events as v2 notifications.

`ThreadEventMap` follows a thread's Event Queue and tells the client what happened in the v2
vocabulary: `turn/started`, items starting and completing, the deltas in between, usage, diffs,
plans and errors. It keeps just enough state (`events.state`) to give each item one stable id
from `item/started` to `item/completed`, and to close whatever a turn left open when it ends.

The map itself is the dispatch table: each family of engine events (`events.turns`,
`events.messages`, `events.tools`, `events.requests`, `events.notices`, `events.review`,
`events.history`) hands it the handlers of the event types it owns, and no two own the same.
They share the thread's state, its `Notifier` and its `OpenItems` as objects, not as one
class's attributes. Approvals go to an `ApprovalHooks` right after their pending item is
announced, so the client sees `item/started` before the request, as the reference server sends
them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import anyio

from codex_lsp.api.threads.events.history import CompactionEvents
from codex_lsp.api.threads.events.messages import MessageEvents
from codex_lsp.api.threads.events.notices import TurnNotices
from codex_lsp.api.threads.events.notifier import Notifier, Notify
from codex_lsp.api.threads.events.open_items import OpenItems
from codex_lsp.api.threads.events.requests import ApprovalHooks, RequestEvents
from codex_lsp.api.threads.events.review import ReviewEvents
from codex_lsp.api.threads.events.state import Handler, ThreadState
from codex_lsp.api.threads.events.status import StatusTracker, ThreadStatus
from codex_lsp.api.threads.events.tools import ToolEvents
from codex_lsp.api.threads.events.turns import TurnLifecycle, TurnUnread
from codex_lsp.protocol.account.models import RateLimitSnapshot
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.threads.models import ThreadActiveFlag
from codex_lsp.protocol.turns.items import UserInput

__all__ = ["ApprovalHooks", "Notify", "ThreadEventMap"]


def _dispatch_table(*families: Mapping[str, Handler]) -> dict[str, Handler]:
    table: dict[str, Handler] = {}
    for handlers in families:
        claimed = table.keys() & handlers.keys()
        if claimed:
            raise ValueError(f"event types mapped twice: {sorted(claimed)}")
        table.update(handlers)
    return table


class ThreadEventMap:
    def __init__(
        self,
        thread_id: str,
        notify: Notify,
        hooks: ApprovalHooks,
        on_rate_limits: Callable[[RateLimitSnapshot], None] | None = None,
        *,
        mcp_servers: frozenset[str] = frozenset(),
        turn_unread: TurnUnread | None = None,
    ) -> None:
        """`mcp_servers` names the thread's configured MCP servers, whose approval requests
        are shown on their `mcpToolCall` item; `turn_unread` records a finished turn as unread
        (a thread with no rollout keeps no read state)."""
        self._state = ThreadState(thread_id)
        notifier = Notifier(self._state, notify)
        open_items = OpenItems(self._state, notifier)
        self._status = StatusTracker(self._state, notifier)
        self._turns = TurnLifecycle(
            self._state, notifier, open_items, self._status, hooks, turn_unread
        )
        self._messages = MessageEvents(self._state, notifier, open_items)
        self._handlers = _dispatch_table(
            self._turns.handlers(),
            self._messages.handlers(),
            ToolEvents(self._state, notifier, open_items).handlers(),
            RequestEvents(self._state, open_items, hooks, mcp_servers).handlers(),
            TurnNotices(self._state, notifier, self._status, on_rate_limits).handlers(),
            ReviewEvents(self._state, notifier, open_items).handlers(),
            CompactionEvents(self._state, notifier, open_items).handlers(),
        )

    @property
    def thread_id(self) -> str:
        return self._state.thread_id

    @property
    def active_turn_id(self) -> str | None:
        return self._state.active_turn_id

    @property
    def failed(self) -> bool:
        """Whether the model failed the latest turn for good."""
        return self._state.failed

    def expect_turn(self, turn_id: str, content: list[UserInput]) -> None:
        """The client's own input for a turn about to start, shown as its `userMessage`."""
        self._state.inputs[turn_id] = content

    def expect_steer(self, turn_id: str, content: list[UserInput]) -> None:
        """The client's input steered into running turn `turn_id`, shown when it is sent."""
        self._state.steered.setdefault(turn_id, []).append(content)

    def forget_steer(self, turn_id: str) -> None:
        """The turn refused the input last announced with `expect_steer`."""
        queued = self._state.steered.get(turn_id)
        if queued:
            queued.pop()

    def is_expected(self, turn_id: str) -> bool:
        """Whether `turn_id` was submitted and has not begun yet."""
        return turn_id in self._state.inputs and turn_id != self.active_turn_id

    def status(self) -> ThreadStatus:
        return self._status.current()

    def waiting(self, flag: ThreadActiveFlag, delta: int) -> None:
        """An approval or question started (+1) or stopped (-1) waiting on the client."""
        self._status.waiting(flag, delta)

    def hold_finish(self, turn_id: str, stopped: anyio.Event) -> None:
        """Keep the end of `turn_id` back when it is interrupted: set `stopped` instead, until
        `release_finish` runs (the interrupt's answer is out)."""
        self._turns.hold_finish(turn_id, stopped)

    def release_finish(self) -> None:
        """Send the held end of an interrupted turn, if there is one."""
        self._turns.release_finish()

    def handle(self, event: ev.Event) -> None:
        msg = event.msg
        if msg.type == "agent_message_delta":  # the hot path: most events are text deltas
            self._messages.message_delta(msg)
            return
        if self._turns.holding:  # whatever comes next, the interrupted turn ended
            self._turns.release_finish()
        handler = self._handlers.get(msg.type)
        if handler is not None:
            handler(event)
