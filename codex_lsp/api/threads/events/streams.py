"""Items that stream: an agent message built from text deltas, a reasoning item from summary
and raw-content deltas. Each keeps its v2 id and what has arrived so far, so it can be completed
whenever its turn moves on, even if the engine never sent the finished item."""

from __future__ import annotations

from typing import Any

from codex_lsp.api.convert import now_ms
from codex_lsp.api.threads import items
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.threads.notifications import (
    ReasoningSummaryPartAddedNotification,
    ReasoningSummaryTextDeltaNotification,
    ReasoningTextDeltaNotification,
)
from codex_lsp.protocol.turns.items import MessagePhase

ReasoningDelta = (
    ReasoningSummaryTextDeltaNotification
    | ReasoningSummaryPartAddedNotification
    | ReasoningTextDeltaNotification
)


class MessageStream:
    """An `agentMessage` item in flight; `engine_id` is the model's item id, if it gave one."""

    def __init__(self, item_id: str, engine_id: str | None) -> None:
        self.id = item_id
        self.engine_id = engine_id
        self.parts: list[str] = []
        self.final: str | None = None
        self.phase: MessagePhase | None = None
        self.started_ms = now_ms()

    def owns(self, engine_id: str | None) -> bool:
        """Whether an event naming `engine_id` belongs to this message."""
        return not engine_id or not self.engine_id or engine_id == self.engine_id

    def item(self) -> Any:
        text = self.final if self.final is not None else "".join(self.parts)
        item = items.agent_message(self.id, text, self.phase)
        item.started_at_ms = self.started_ms
        return item


class ReasoningStream:
    """A `reasoning` item in flight: summary parts by index, raw content parts by index."""

    def __init__(self, item_id: str) -> None:
        self.id = item_id
        self.summary: list[str] = []
        self.content: list[str] = []
        # The finished texts the engine reports per part, which win over the deltas.
        self.final_summary: list[str] = []
        self.final_content: list[str] = []
        self.started_ms = now_ms()

    def apply(self, msg: Any, thread_id: str, turn_id: str) -> list[tuple[str, ReasoningDelta]]:
        """Take one reasoning event of the turn `turn_id`; returns the notifications
        (method, params) it makes."""
        if isinstance(msg, ev.AgentReasoningDeltaEvent):
            _grow(self.summary, msg.summary_index)
            self.summary[msg.summary_index] += msg.delta
            summary_delta = ReasoningSummaryTextDeltaNotification(
                thread_id=thread_id,
                turn_id=turn_id,
                item_id=self.id,
                delta=msg.delta,
                summary_index=msg.summary_index,
            )
            return [("item/reasoning/summaryTextDelta", summary_delta)]
        if isinstance(msg, ev.AgentReasoningSectionBreakEvent):
            _grow(self.summary, msg.summary_index)
            part = ReasoningSummaryPartAddedNotification(
                thread_id=thread_id,
                turn_id=turn_id,
                item_id=self.id,
                summary_index=msg.summary_index,
            )
            return [("item/reasoning/summaryPartAdded", part)]
        if isinstance(msg, ev.AgentReasoningRawContentDeltaEvent):
            _grow(self.content, msg.content_index)
            self.content[msg.content_index] += msg.delta
            text_delta = ReasoningTextDeltaNotification(
                thread_id=thread_id,
                turn_id=turn_id,
                item_id=self.id,
                delta=msg.delta,
                content_index=msg.content_index,
            )
            return [("item/reasoning/textDelta", text_delta)]
        if isinstance(msg, ev.AgentReasoningEvent):
            self.final_summary.append(msg.text)
        elif isinstance(msg, ev.AgentReasoningRawContentEvent):
            self.final_content.append(msg.text)
        return []

    def item(self) -> Any:
        summary = self.final_summary or [part for part in self.summary if part]
        content = self.final_content or [part for part in self.content if part]
        item = items.reasoning(self.id, summary, content)
        item.started_at_ms = self.started_ms
        return item


def _grow(parts: list[str], index: int) -> None:
    while len(parts) <= index:
        parts.append("")
