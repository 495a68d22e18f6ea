"""Input steered into a running turn.

A regular turn takes more user input while it runs. The input waits here until the turn's
next model request, which carries it. A request still waiting for the model's first output
when input arrives is abandoned and sent again with the input, so the model answers what the
user said last; once output is streaming it is left to finish and the input follows it, so
nothing the user already saw is taken back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import anyio

from codex_lsp.protocol.core.inputs import UserInput
from codex_lsp.protocol.core.response_items import ResponseItem


@dataclass
class Steering:
    pending: list[list[UserInput]] = field(default_factory=list)
    # Items the engine adds for the model's next request (what it must know about its goal).
    items: list[ResponseItem] = field(default_factory=list)
    # Set once the turn has decided to end: input arriving later would never be sent.
    closed: bool = False
    _request: anyio.CancelScope | None = None
    _output_seen: bool = False
    # Set (and replaced) when input arrives, for a tool that stops waiting for it.
    added: anyio.Event = field(default_factory=anyio.Event)

    def add(self, items: list[UserInput]) -> None:
        self.pending.append(items)
        self.added.set()
        self.added = anyio.Event()
        if self._request is not None and not self._output_seen:
            self._request.cancel()

    def add_items(self, items: list[ResponseItem]) -> None:
        self.items.extend(items)

    def take_items(self) -> list[ResponseItem]:
        taken, self.items = self.items, []
        return taken

    def take(self) -> list[list[UserInput]]:
        taken, self.pending = self.pending, []
        return taken

    def output_started(self) -> None:
        self._output_seen = True

    @contextmanager
    def request(self) -> Iterator[anyio.CancelScope]:
        """Scope one model request; check `cancelled_caught` to learn it was abandoned."""
        with anyio.CancelScope() as scope:
            self._request, self._output_seen = scope, False
            try:
                yield scope
            finally:
                self._request = None
