"""Engine events the API awaits as the answer to one of its ops.

Most ops are fire-and-forget: their events flow through the thread's event map as
notifications. A few need an answer before the client's request can be: `list_skills` (its
`list_skills_response`), and `review`, whose target the engine resolves first and then either
starts a task (`task_started`) or refuses with one `error`. `Replies` takes those events out of
the stream by submission id before the map sees them.

A review's events are also *held* until the API releases them: the `review/start` response must
reach the client before the `turn/started` it announces, yet the engine may have sent both by
the time the handler runs again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

from codex_lsp.protocol.core.events import Event


class ThreadGone(Exception):
    """The thread closed while an answer was awaited."""


@dataclass
class _Waiter:
    kinds: frozenset[str]
    hold: bool
    ready: anyio.Event = field(default_factory=anyio.Event)
    answer: Event | None = None
    held: list[Event] = field(default_factory=list)


class Replies:
    """The awaited answers of one thread, fed by its event pump through `offer`."""

    def __init__(self) -> None:
        self._waiting: dict[str, _Waiter] = {}
        self._holding: dict[str, list[Event]] = {}
        self._closed = False

    def expect(self, sub_id: str, kinds: tuple[str, ...], *, hold: bool = False) -> None:
        """Await the first event of `sub_id` whose type is in `kinds` (call before submitting,
        so a fast engine cannot answer first). With `hold`, later events of `sub_id` wait too,
        until `release`; an `error` answer ends the hold (nothing follows it)."""
        waiter = self._waiting[sub_id] = _Waiter(frozenset(kinds), hold)
        if self._closed:
            waiter.ready.set()
        elif hold:
            self._holding[sub_id] = []

    async def wait(self, sub_id: str) -> Event:
        """The answer `expect` asked for; raises `ThreadGone` if the thread closed first."""
        waiter = self._waiting[sub_id]
        try:
            await waiter.ready.wait()
        finally:
            self._waiting.pop(sub_id, None)
        if waiter.answer is None:
            self._holding.pop(sub_id, None)
            raise ThreadGone(sub_id)
        if waiter.answer.msg.type == "error":
            self._holding.pop(sub_id, None)
        return waiter.answer

    def offer(self, event: Event) -> bool:
        """True when `event` is taken here (an answer, or held); False lets the map have it."""
        held = self._holding.get(event.id)
        waiter = self._waiting.get(event.id)
        if waiter is not None and waiter.answer is None and event.msg.type in waiter.kinds:
            waiter.answer = event
            waiter.ready.set()
            if event.msg.type == "error" or held is None:
                return True  # an answer only: the map never sees it
        if held is not None:
            held.append(event)
            return True
        return False

    def release(self, sub_id: str, deliver: Callable[[Event], None]) -> None:
        """Stop holding `sub_id`: hand what was held, in order, to `deliver`."""
        for event in self._holding.pop(sub_id, []):
            deliver(event)

    def forget(self, sub_id: str) -> None:
        """Stop waiting for and holding `sub_id` (its op never reached the engine)."""
        self._waiting.pop(sub_id, None)
        self._holding.pop(sub_id, None)

    def close(self) -> None:
        """The thread is closing: every wait ends with `ThreadGone`."""
        self._closed = True
        for waiter in self._waiting.values():
            waiter.ready.set()
        self._holding.clear()
