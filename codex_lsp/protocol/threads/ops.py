"""Thread history and housekeeping on the v2 wire: paging turns and items, loaded threads,
subscriptions, compaction, deletion, metadata, injected items, revert and steering.

The notifications that go with them (`thread/closed`, `thread/deleted`, `thread/reverted`,
`thread/compacted`, `thread/settings/updated`) are here too.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import (
    ApprovalsReviewer,
    AskForApproval,
    Opt,
    Personality,
    ReasoningEffort,
    ReasoningSummary,
    SandboxPolicy,
    SnakeModel,
    SortDirection,
    V2Model,
)
from codex_lsp.protocol.methods import MethodTable
from codex_lsp.protocol.threads.models import Thread
from codex_lsp.protocol.turns.items import ThreadItem, UserInput
from codex_lsp.protocol.turns.models import Turn, TurnItemsView

# -- paging ------------------------------------------------------------------------------------


class ThreadTurnsListParams(V2Model):
    """A page of a thread's turns, newest first unless `sortDirection` says `asc`."""

    thread_id: str
    cursor: Opt[str] = None
    limit: Opt[int] = Field(default=None, ge=0)
    sort_direction: Opt[SortDirection] = None
    items_view: Opt[TurnItemsView] = None


class ThreadTurnsListResponse(V2Model):
    data: list[Turn]
    next_cursor: str | None = None
    backwards_cursor: str | None = None


class ItemThreadItemsListAnchor(V2Model):
    """An item of the requested turn; the page starts just past it."""

    type: Literal["item"] = "item"
    item_id: str


ThreadItemsListCursor = TypeAliasType("ThreadItemsListCursor", str | ItemThreadItemsListAnchor)


class ThreadItemOutputDeferral(V2Model):
    """Which saved outputs to fetch separately; accepted and not acted on (outputs are inline)."""


class ThreadItemsListParams(V2Model):
    """A page of a thread's items, oldest first unless `sortDirection` says `desc`."""

    thread_id: str
    turn_id: Opt[str] = None
    cursor: Opt[ThreadItemsListCursor] = None
    limit: Opt[int] = Field(default=None, ge=0)
    sort_direction: Opt[SortDirection] = None
    defer_output: Opt[ThreadItemOutputDeferral] = None


class ThreadItemEntry(V2Model):
    turn_id: str
    item: ThreadItem
    started_at_ms: int | None = None
    completed_at_ms: int | None = None


class ThreadItemsListResponse(V2Model):
    data: list[ThreadItemEntry]
    next_cursor: str | None = None
    backwards_cursor: str | None = None


class ThreadLoadedListParams(V2Model):
    cursor: Opt[str] = None
    limit: Opt[int] = Field(default=None, ge=0)


class ThreadLoadedListResponse(V2Model):
    data: list[str]
    next_cursor: str | None = None


# -- subscriptions, deletion, metadata ---------------------------------------------------------

ThreadUnsubscribeStatus = TypeAliasType(
    "ThreadUnsubscribeStatus", Literal["notLoaded", "notSubscribed", "unsubscribed"]
)


class ThreadUnsubscribeParams(V2Model):
    thread_id: str


class ThreadUnsubscribeResponse(V2Model):
    status: ThreadUnsubscribeStatus


class ThreadDeleteParams(V2Model):
    thread_id: str


class ThreadDeleteResponse(V2Model):
    """Empty; `thread/deleted` follows."""


class ThreadMetadataGitInfoUpdateParams(V2Model):
    """A patch: a field left out is kept, `null` clears it, a string replaces it.

    Which fields were given matters, so the handler reads `model_fields_set`.
    """

    sha: Opt[str] = None
    branch: Opt[str] = None
    origin_url: Opt[str] = None


class ThreadMetadataUpdateParams(V2Model):
    thread_id: str
    git_info: Opt[ThreadMetadataGitInfoUpdateParams] = None


class ThreadMetadataUpdateResponse(V2Model):
    thread: Thread


# -- history changes ---------------------------------------------------------------------------


class ThreadCompactStartParams(V2Model):
    thread_id: str


class ThreadCompactStartResponse(V2Model):
    """Empty: the compaction runs as a turn and reports through the usual notifications."""


class ThreadInjectItemsParams(V2Model):
    thread_id: str
    items: list[Any]


class ThreadInjectItemsResponse(V2Model):
    """Empty: the items are in the thread's model-visible history."""


class ThreadRevertParams(V2Model):
    """Replace the thread's history with what it was before `beforeTurnId` began.

    Only the conversation changes; files the agent edited stay as they are.
    """

    thread_id: str
    before_turn_id: str


class ThreadRevertResponse(V2Model):
    thread: Thread
    turns_backwards_cursor: str | None = None
    items_backwards_cursor: str | None = None


class TurnSteerParams(V2Model):
    """More input for the turn that is running; `expectedTurnId` must name it."""

    thread_id: str
    input: list[UserInput]
    expected_turn_id: str
    client_user_message_id: Opt[str] = None


class TurnSteerResponse(V2Model):
    turn_id: str


# -- notifications -----------------------------------------------------------------------------


class ThreadClosedNotification(V2Model):
    thread_id: str


class ThreadDeletedNotification(V2Model):
    thread_id: str


class ThreadRevertedNotification(V2Model):
    thread_id: str


class ContextCompactedNotification(V2Model):
    """Deprecated by the `contextCompaction` item, still sent for older clients."""

    thread_id: str
    turn_id: str


ModeKind = TypeAliasType("ModeKind", Literal["plan", "default"])


class CollaborationModeSettings(SnakeModel):
    """The settings of a collaboration mode (snake_case on the wire)."""

    model: str
    reasoning_effort: ReasoningEffort | None = None
    developer_instructions: str | None = None


class CollaborationMode(V2Model):
    mode: ModeKind
    settings: CollaborationModeSettings


class ActivePermissionProfile(V2Model):
    id: str
    extends: str | None = None


class ThreadSettings(V2Model):
    """The settings the thread's next turn runs with."""

    cwd: str
    model: str
    model_provider: str
    approval_policy: AskForApproval
    approvals_reviewer: ApprovalsReviewer
    sandbox_policy: SandboxPolicy
    collaboration_mode: CollaborationMode
    active_permission_profile: ActivePermissionProfile | None = None
    effort: ReasoningEffort | None = None
    summary: ReasoningSummary | None = None
    personality: Personality | None = None
    service_tier: str | None = None
    disabled_plugin_ids: list[str] = Field(default_factory=list)


class ThreadSettingsUpdatedNotification(V2Model):
    thread_id: str
    thread_settings: ThreadSettings


class ThreadSettingsUpdateParams(V2Model):
    """Change what the thread's next turns run with, without starting one (None: unchanged)."""

    thread_id: str
    cwd: Opt[str] = None
    approval_policy: Opt[AskForApproval] = None
    approvals_reviewer: Opt[ApprovalsReviewer] = None
    sandbox_policy: Opt[SandboxPolicy] = None
    permissions: Opt[str] = None
    model: Opt[str] = None
    service_tier: Opt[str] = None
    effort: Opt[ReasoningEffort] = None
    summary: Opt[ReasoningSummary] = None
    collaboration_mode: Opt[CollaborationMode] = None
    personality: Opt[Personality] = None
    disabled_plugin_ids: Opt[list[str]] = None
    environments: Opt[list[Any]] = None


class ThreadSettingsUpdateResponse(V2Model):
    """Empty; `thread/settings/updated` follows when anything changed."""


METHODS = MethodTable()
THREAD_TURNS_LIST = METHODS.request(
    "thread/turns/list", ThreadTurnsListParams, ThreadTurnsListResponse
)
THREAD_ITEMS_LIST = METHODS.request(
    "thread/items/list", ThreadItemsListParams, ThreadItemsListResponse
)
THREAD_LOADED_LIST = METHODS.request(
    "thread/loaded/list", ThreadLoadedListParams, ThreadLoadedListResponse
)
THREAD_UNSUBSCRIBE = METHODS.request(
    "thread/unsubscribe", ThreadUnsubscribeParams, ThreadUnsubscribeResponse
)
THREAD_DELETE = METHODS.request("thread/delete", ThreadDeleteParams, ThreadDeleteResponse)
THREAD_METADATA_UPDATE = METHODS.request(
    "thread/metadata/update", ThreadMetadataUpdateParams, ThreadMetadataUpdateResponse
)
THREAD_COMPACT_START = METHODS.request(
    "thread/compact/start", ThreadCompactStartParams, ThreadCompactStartResponse
)
THREAD_INJECT_ITEMS = METHODS.request(
    "thread/inject_items", ThreadInjectItemsParams, ThreadInjectItemsResponse
)
THREAD_REVERT = METHODS.request("thread/revert", ThreadRevertParams, ThreadRevertResponse)
TURN_STEER = METHODS.request("turn/steer", TurnSteerParams, TurnSteerResponse)
THREAD_SETTINGS_UPDATE = METHODS.request(
    "thread/settings/update",
    ThreadSettingsUpdateParams,
    ThreadSettingsUpdateResponse,
    experimental=True,
)
METHODS.notification("thread/closed", ThreadClosedNotification)
METHODS.notification("thread/deleted", ThreadDeletedNotification)
METHODS.notification("thread/reverted", ThreadRevertedNotification)
METHODS.notification("thread/compacted", ContextCompactedNotification)
METHODS.notification("thread/settings/updated", ThreadSettingsUpdatedNotification)
