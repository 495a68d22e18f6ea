"""Compaction of a thread's history: the `contextCompaction` item, then `thread/compacted` (its
deprecated twin, which older clients still wait for).

The engine's `thread_settings_applied` is not announced here: `turn/start` announces changed
settings (`thread/settings/updated`) before its answer, as the reference server does.
"""

from __future__ import annotations

from collections.abc import Mapping

from codex_lsp.api.threads import items
from codex_lsp.api.threads.events.notifier import Notifier
from codex_lsp.api.threads.events.open_items import OpenItems
from codex_lsp.api.threads.events.state import Handler, ThreadState
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.threads.ops import ContextCompactedNotification
from codex_lsp.store.home import new_thread_id

# The running-items key of the turn's compaction (a turn compacts once at a time).
COMPACTION_KEY = "<compaction>"


class CompactionEvents:
    def __init__(self, state: ThreadState, notifier: Notifier, open_items: OpenItems) -> None:
        self._state = state
        self._notifier = notifier
        self._items = open_items

    def handlers(self) -> Mapping[str, Handler]:
        return {
            "context_compaction_started": self._compaction_started,
            "context_compacted": self._compacted,
        }

    def _compaction_started(self, event: ev.Event) -> None:
        turn = self._state.turn
        if turn is not None:
            item = items.context_compaction(new_thread_id())
            self._items.start_tool(turn, COMPACTION_KEY, item)

    def _compacted(self, event: ev.Event) -> None:
        self._compaction_item()
        notice = ContextCompactedNotification(
            thread_id=self._state.thread_id, turn_id=self._state.turn_id()
        )
        self._notifier.send("thread/compacted", notice)

    def _compaction_item(self) -> None:
        turn = self._state.turn
        if turn is None:
            return
        running = turn.running.get(COMPACTION_KEY)
        if running is None:  # a compaction that did not announce itself
            self._items.instant(items.context_compaction(new_thread_id()))
            return
        item = items.context_compaction(running.item.id)
        self._items.end_tool(turn, COMPACTION_KEY, item)
