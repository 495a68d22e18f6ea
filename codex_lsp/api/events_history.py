"""Engine events about a thread's history, as v2 notifications: `thread/compacted` (the
deprecated twin of the `contextCompaction` item, which older clients still wait for) after a
compaction.

The engine's `thread_settings_applied` is not announced here: `turn/start` announces changed
settings (`thread/settings/updated`) before its answer, as the reference server does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from codex_lsp.protocol import events as ev
from codex_lsp.protocol.v2_common import dump
from codex_lsp.protocol.v2_thread_ops import ContextCompactedNotification


class HistoryEventsMixin:
    thread_id: str
    _notify: Callable[[str, dict[str, Any]], None]

    if TYPE_CHECKING:  # provided by the map and the tool events

        def _turn_id(self) -> str: ...

        def _compacted(self, event: ev.Event) -> None: ...

    def history_handlers(self) -> dict[str, Callable[[ev.Event], None]]:
        return {
            "context_compacted": self._compacted_notice,
        }

    def _compacted_notice(self, event: ev.Event) -> None:
        self._compacted(event)
        notice = ContextCompactedNotification(thread_id=self.thread_id, turn_id=self._turn_id())
        self._notify("thread/compacted", dump(notice))
