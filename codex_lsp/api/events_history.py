"""Engine events about a thread's history and settings, as v2 notifications.

`thread/settings/updated` when a turn starts with settings that differ from the last turn's,
and `thread/compacted` (the deprecated twin of the `contextCompaction` item, which older
clients still wait for) after a compaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from codex_lsp.protocol import events as ev
from codex_lsp.protocol.events_history import ThreadSettingsAppliedEvent
from codex_lsp.protocol.v2_common import approval_policy_to_v2, dump, sandbox_policy_to_v2
from codex_lsp.protocol.v2_thread_ops import (
    CollaborationMode,
    CollaborationModeSettings,
    ContextCompactedNotification,
    ThreadSettings,
    ThreadSettingsUpdatedNotification,
)


def thread_settings(applied: ThreadSettingsAppliedEvent) -> ThreadSettings:
    return ThreadSettings(
        cwd=applied.cwd,
        model=applied.model,
        model_provider=applied.model_provider,
        approval_policy=approval_policy_to_v2(applied.approval_policy),
        approvals_reviewer="user",
        sandbox_policy=sandbox_policy_to_v2(applied.sandbox_policy),
        collaboration_mode=CollaborationMode(
            mode="default",
            settings=CollaborationModeSettings(
                model=applied.model, reasoning_effort=applied.effort
            ),
        ),
        effort=applied.effort,
        summary=applied.summary,
        personality=applied.personality,
    )


class HistoryEventsMixin:
    thread_id: str
    _notify: Callable[[str, dict[str, Any]], None]

    if TYPE_CHECKING:  # provided by the map and the tool events

        def _turn_id(self) -> str: ...

        def _compacted(self, event: ev.Event) -> None: ...

    def history_handlers(self) -> dict[str, Callable[[ev.Event], None]]:
        return {
            "thread_settings_applied": self._settings_applied,
            "context_compacted": self._compacted_notice,
        }

    def _settings_applied(self, event: ev.Event) -> None:
        applied: ThreadSettingsAppliedEvent = event.msg  # type: ignore[assignment]
        notice = ThreadSettingsUpdatedNotification(
            thread_id=self.thread_id, thread_settings=thread_settings(applied)
        )
        self._notify("thread/settings/updated", dump(notice))

    def _compacted_notice(self, event: ev.Event) -> None:
        self._compacted(event)
        notice = ContextCompactedNotification(thread_id=self.thread_id, turn_id=self._turn_id())
        self._notify("thread/compacted", dump(notice))
