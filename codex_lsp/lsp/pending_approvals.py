"""Approvals and questions waiting for an editor that cannot show a prompt.

Some editors (Helix among them) do not answer `window/showMessageRequest`. For them each
approval or question waits here under a short id until the user answers through a command
(`codex.approve`, `codex.deny`, `codex.answer`) or a code action carrying it; the user is
told with a `window/showMessage` how to answer. The turn that asked waits meanwhile, as it
would on a prompt, and an interrupted turn takes its entries away.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Literal

EntryKind = Literal["approval", "question"]


@dataclass(frozen=True)
class Choice:
    """One way to answer: what the user sees, and the value the asker gets."""

    title: str
    value: str


@dataclass
class PendingEntry:
    id: str
    kind: EntryKind
    summary: str
    choices: list[Choice]
    answer: asyncio.Future[str] = field(repr=False)


class UnknownEntryError(LookupError):
    """No pending entry has that id (answered already, or never asked)."""


class PendingApprovals:
    def __init__(self) -> None:
        self._entries: dict[str, PendingEntry] = {}
        self._ids = itertools.count(1)

    def entries(self, kind: EntryKind | None = None) -> list[PendingEntry]:
        """What waits for an answer, oldest first."""
        return [e for e in self._entries.values() if kind is None or e.kind == kind]

    def add(self, kind: EntryKind, summary: str, choices: list[Choice]) -> PendingEntry:
        entry = PendingEntry(
            str(next(self._ids)),
            kind,
            summary,
            choices,
            asyncio.get_running_loop().create_future(),
        )
        self._entries[entry.id] = entry
        return entry

    async def wait(self, entry: PendingEntry) -> str:
        """The value of the choice the user made; the entry is gone afterwards, or on cancel."""
        try:
            return await entry.answer
        finally:
            self._entries.pop(entry.id, None)

    def find(self, entry_id: str | None, kind: EntryKind) -> PendingEntry:
        """The entry `entry_id`, or without an id the only one of `kind` waiting."""
        if entry_id is not None:
            entry = self._entries.get(entry_id)
            if entry is None or entry.kind != kind:
                raise UnknownEntryError(f"no pending {kind} has the id {entry_id!r}{self._hint()}")
            return entry
        waiting = self.entries(kind)
        if len(waiting) == 1:
            return waiting[0]
        if not waiting:
            raise UnknownEntryError(f"no {kind} is waiting for an answer")
        ids = ", ".join(f"{e.id} ({e.summary})" for e in waiting)
        raise UnknownEntryError(f"several {kind}s are waiting; name one by its id: {ids}")

    def answer(self, entry: PendingEntry, value: str) -> None:
        if not entry.answer.done():
            entry.answer.set_result(value)
        self._entries.pop(entry.id, None)

    def _hint(self) -> str:
        if not self._entries:
            return "; nothing is waiting for an answer"
        ids = ", ".join(f"{e.id} ({e.summary})" for e in self._entries.values())
        return f"; waiting: {ids}"
