"""Server -> client notifications of the v2 API and the `SERVER_NOTIFICATIONS` registry."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import (
    Opt,
    RequestId,
    ThreadTokenUsage,
    V2Model,
)
from codex_lsp.protocol.threads.models import Thread, ThreadStatus
from codex_lsp.protocol.turns.items import ThreadItem
from codex_lsp.protocol.turns.models import Turn, TurnError


class ThreadStartedNotification(V2Model):
    thread: Thread


class ThreadArchivedNotification(V2Model):
    thread_id: str


class ThreadUnarchivedNotification(V2Model):
    thread_id: str


class ThreadNameUpdatedNotification(V2Model):
    thread_id: str
    # Named `threadName` on the wire (not `name`); absent when the name was cleared.
    thread_name: Opt[str] = None


class ThreadStatusChangedNotification(V2Model):
    thread_id: str
    status: ThreadStatus


class ThreadTokenUsageUpdatedNotification(V2Model):
    thread_id: str
    turn_id: str
    token_usage: ThreadTokenUsage


class TurnStartedNotification(V2Model):
    thread_id: str
    turn: Turn


class TurnCompletedNotification(V2Model):
    """The turn ended: `completed`, `interrupted` or `failed` (then `turn.error` says why)."""

    thread_id: str
    turn: Turn


class TurnDiffUpdatedNotification(V2Model):
    """The whole aggregated unified diff of the turn so far, not an increment."""

    thread_id: str
    turn_id: str
    diff: str


TurnPlanStepStatus = TypeAliasType(
    "TurnPlanStepStatus", Literal["pending", "inProgress", "completed"]
)


class TurnPlanStep(V2Model):
    step: str
    status: TurnPlanStepStatus


class TurnPlanUpdatedNotification(V2Model):
    thread_id: str
    turn_id: str
    explanation: str | None = None
    plan: list[TurnPlanStep]


class ItemStartedNotification(V2Model):
    item: ThreadItem
    thread_id: str
    turn_id: str
    started_at_ms: int


class ItemCompletedNotification(V2Model):
    item: ThreadItem
    thread_id: str
    turn_id: str
    # How many tokens the item's content takes; the reference server writes null too.
    content_token_count: int | None = None
    completed_at_ms: int


class _ItemDelta(V2Model):
    thread_id: str
    turn_id: str
    item_id: str


class AgentMessageDeltaNotification(_ItemDelta):
    delta: str


class ReasoningSummaryTextDeltaNotification(_ItemDelta):
    delta: str
    summary_index: int


class ReasoningSummaryPartAddedNotification(_ItemDelta):
    """A new summary section begins; following deltas carry this `summaryIndex`."""

    summary_index: int


class ReasoningTextDeltaNotification(_ItemDelta):
    delta: str
    content_index: int


class CommandExecutionOutputDeltaNotification(_ItemDelta):
    # Decoded text, not base64 (unlike `command/exec/outputDelta`).
    delta: str


class FileChangeOutputDeltaNotification(_ItemDelta):
    delta: str


class ServerRequestResolvedNotification(V2Model):
    """A server request was answered, or dropped because its turn moved on."""

    thread_id: str
    request_id: RequestId


class ErrorNotification(V2Model):
    """A turn error. `willRetry: true` means the stream is being retried and the turn goes on."""

    error: TurnError
    will_retry: bool
    thread_id: str
    turn_id: str


class WarningNotification(V2Model):
    thread_id: str | None = None
    message: str


SERVER_NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "error": ErrorNotification,
    "warning": WarningNotification,
    "thread/started": ThreadStartedNotification,
    "thread/archived": ThreadArchivedNotification,
    "thread/unarchived": ThreadUnarchivedNotification,
    "thread/name/updated": ThreadNameUpdatedNotification,
    "thread/status/changed": ThreadStatusChangedNotification,
    "thread/tokenUsage/updated": ThreadTokenUsageUpdatedNotification,
    "turn/started": TurnStartedNotification,
    "turn/completed": TurnCompletedNotification,
    "turn/diff/updated": TurnDiffUpdatedNotification,
    "turn/plan/updated": TurnPlanUpdatedNotification,
    "item/started": ItemStartedNotification,
    "item/completed": ItemCompletedNotification,
    "item/agentMessage/delta": AgentMessageDeltaNotification,
    "item/reasoning/summaryTextDelta": ReasoningSummaryTextDeltaNotification,
    "item/reasoning/summaryPartAdded": ReasoningSummaryPartAddedNotification,
    "item/reasoning/textDelta": ReasoningTextDeltaNotification,
    "item/commandExecution/outputDelta": CommandExecutionOutputDeltaNotification,
    "item/fileChange/outputDelta": FileChangeOutputDeltaNotification,
    "serverRequest/resolved": ServerRequestResolvedNotification,
}
"""Notification method -> params model."""
