"""The child threads of a loaded thread's agent team, as the client sees them.

A child's own events (its turns, items, deltas, usage) reach the client as notifications of
the child's thread, mapped by a `ThreadEventMap` of its own as a root thread's are. What a
child asks of the user goes through the root thread instead (its router answers it), and
its task arrives as a message from its parent agent, not as the user's input, so neither is
shown on the child's thread. A child is announced as idle when it is first heard of, before
its first turn starts; it has no `thread/started`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from codex_lsp.api.threads.event_map import Notify, ThreadEventMap
from codex_lsp.api.threads.events.requests import ApprovalHooks
from codex_lsp.protocol.account.models import RateLimitSnapshot
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.threads.models import IdleThreadStatus
from codex_lsp.protocol.threads.notifications import ThreadStatusChangedNotification
from codex_lsp.protocol.turns.items import FileUpdateChange

log = logging.getLogger(__name__)

# Not the child thread's to show: requests the root thread forwards and answers, and the
# child's task, which its parent agent sent.
_NOT_SHOWN = frozenset(
    {
        "exec_approval_request",
        "apply_patch_approval_request",
        "request_user_input",
        "user_message",
    }
)


class _AnsweredByTheRoot(ApprovalHooks):
    """A child map's hooks: its requests never reach it (the root thread's router has them)."""

    def ask_exec(
        self, turn_id: str, event: ev.ExecApprovalRequestEvent, *, scope: str | None = None
    ) -> None:
        pass

    def ask_patch(
        self,
        turn_id: str,
        event: ev.ApplyPatchApprovalRequestEvent,
        diffs: list[FileUpdateChange],
        *,
        scope: str | None = None,
    ) -> None:
        pass

    def ask_user_input(self, turn_id: str, event: ev.RequestUserInputEvent) -> None:
        pass

    def ask_mcp_tool(
        self,
        turn_id: str,
        event: ev.ExecApprovalRequestEvent,
        server: str,
        tool: str,
        *,
        scope: str | None = None,
    ) -> None:
        pass

    def turn_ended(self, turn_id: str) -> None:
        pass


class ChildThreads:
    def __init__(
        self, notify: Notify, on_rate_limits: Callable[[RateLimitSnapshot], None] | None
    ) -> None:
        self._notify = notify
        self._on_rate_limits = on_rate_limits
        self._maps: dict[str, ThreadEventMap] = {}

    def ids(self) -> list[str]:
        """The child threads heard of so far."""
        return list(self._maps)

    def handle(self, thread_id: str, event: ev.Event) -> None:
        """One event of child thread `thread_id`."""
        if event.msg.type in _NOT_SHOWN:
            return
        child = self._maps.get(thread_id)
        if child is None:
            child = self._maps[thread_id] = ThreadEventMap(
                thread_id, self._notify, _AnsweredByTheRoot(), self._on_rate_limits
            )
            self._notify(
                "thread/status/changed",
                ThreadStatusChangedNotification(thread_id=thread_id, status=IdleThreadStatus()),
            )
        try:
            child.handle(event)
        except Exception:  # one bad event must not silence the thread
            log.exception("thread %s: mapping %s failed", thread_id, event.msg.type)
