"""The child threads of a loaded thread's agent team, as the client sees them.

A child's own events (its turns, items, deltas, usage, and what it asks of the user) reach the
client as notifications and requests of the child's thread, mapped by a `ThreadEventMap` of
its own as a root thread's are. Its task arrives as a message from its parent agent, not as
the user's input, so it is not shown as a `userMessage`. A child is announced as idle when it
is first heard of, before its first turn starts; it has no `thread/started`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from codex_lsp.api.approvals.requests import ApprovalRouter
from codex_lsp.api.threads.event_map import Notify, ThreadEventMap
from codex_lsp.protocol.account.models import RateLimitSnapshot
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.threads.models import IdleThreadStatus, ThreadActiveFlag
from codex_lsp.protocol.threads.notifications import ThreadStatusChangedNotification

log = logging.getLogger(__name__)

Waiting = Callable[[ThreadActiveFlag, int], None]
RouterFor = Callable[[str, Waiting], ApprovalRouter]
"""The approval router of a child thread, given its id and how it says what it waits on."""


class ChildThreads:
    def __init__(
        self,
        notify: Notify,
        router_for: RouterFor,
        on_rate_limits: Callable[[RateLimitSnapshot], None] | None,
    ) -> None:
        self._notify = notify
        self._router_for = router_for
        self._on_rate_limits = on_rate_limits
        self._maps: dict[str, ThreadEventMap] = {}
        self._routers: list[ApprovalRouter] = []

    def ids(self) -> list[str]:
        """The child threads heard of so far."""
        return list(self._maps)

    def cancel_all(self) -> None:
        """The root thread is closing: drop every child's requests still out."""
        for router in self._routers:
            router.cancel_all()

    def handle(self, thread_id: str, event: ev.Event) -> None:
        """One event of child thread `thread_id`."""
        if event.msg.type == "user_message":
            return
        child = self._maps.get(thread_id)
        if child is None:
            child = self._open(thread_id)
        try:
            child.handle(event)
        except Exception:  # one bad event must not silence the thread
            log.exception("thread %s: mapping %s failed", thread_id, event.msg.type)

    def _open(self, thread_id: str) -> ThreadEventMap:
        def waiting(flag: ThreadActiveFlag, delta: int) -> None:
            child.waiting(flag, delta)

        router = self._router_for(thread_id, waiting)
        self._routers.append(router)
        child = self._maps[thread_id] = ThreadEventMap(
            thread_id, self._notify, router, self._on_rate_limits
        )
        self._notify(
            "thread/status/changed",
            ThreadStatusChangedNotification(thread_id=thread_id, status=IdleThreadStatus()),
        )
        return child
