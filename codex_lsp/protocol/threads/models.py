"""Threads on the v2 wire: `Thread`, its status, and the `thread/*` methods we serve."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import (
    ApprovalsReviewer,
    AskForApproval,
    ExperimentalOpt,
    GitInfo,
    Opt,
    Personality,
    ReasoningEffort,
    SandboxMode,
    SandboxPolicy,
    SortDirection,
    ThreadSortKey,
    ThreadSourceKind,
    ThreadStartSource,
    V2Model,
)
from codex_lsp.protocol.methods import MethodTable
from codex_lsp.protocol.threads.read_state import ThreadReadState
from codex_lsp.protocol.turns.models import Turn

ThreadHistoryMode = TypeAliasType("ThreadHistoryMode", Literal["legacy", "paginated"])
"""How a thread's history is kept: `legacy` rollouts are read whole (ours), `paginated` ones
by pages of turns."""

ThreadActiveFlag = TypeAliasType(
    "ThreadActiveFlag",
    Literal["waitingOnApproval", "waitingOnUserInput"],
)


class NotLoadedThreadStatus(V2Model):
    type: Literal["notLoaded"] = "notLoaded"


class IdleThreadStatus(V2Model):
    type: Literal["idle"] = "idle"


class SystemErrorThreadStatus(V2Model):
    type: Literal["systemError"] = "systemError"


class ActiveThreadStatus(V2Model):
    type: Literal["active"] = "active"
    active_flags: list[ThreadActiveFlag] = Field(default_factory=list)


ThreadStatus = TypeAliasType(
    "ThreadStatus",
    Annotated[
        NotLoadedThreadStatus | IdleThreadStatus | SystemErrorThreadStatus | ActiveThreadStatus,
        Field(discriminator="type"),
    ],
)

SubAgentSource = TypeAliasType(
    "SubAgentSource",
    Literal["review", "compact", "memory_consolidation"] | dict[str, Any],
)
"""A named sub-agent kind, or `{"thread_spawn": {...}}` / `{"other": "..."}`."""


class CustomSessionSource(V2Model):
    custom: str


class SubAgentSessionSource(V2Model):
    sub_agent: SubAgentSource


SessionSource = TypeAliasType(
    "SessionSource",
    Literal["cli", "vscode", "exec", "appServer", "unknown"]
    | CustomSessionSource
    | SubAgentSessionSource,
)
"""Which front end created the thread."""


class Thread(V2Model):
    """A conversation. `turns` is only filled by resume, fork and read with `includeTurns`."""

    id: str
    session_id: str
    forked_from_id: str | None = None
    parent_thread_id: str | None = None
    preview: str
    ephemeral: bool
    # Sections and projects are the reference app's way of filing threads; unset here.
    section: Any = None
    section_entered_at: int | None = None
    project_id: str | None = None
    history_mode: ThreadHistoryMode = "legacy"
    model_provider: str
    model: str | None = None
    reasoning_effort: ReasoningEffort | None = None
    created_at: int
    updated_at: int
    recency_at: int | None = None
    status: ThreadStatus
    path: str | None = None
    cwd: str
    cli_version: str
    originator: str | None = None
    source: SessionSource
    thread_source: str | None = None
    agent_nickname: str | None = None
    agent_role: str | None = None
    git_info: GitInfo | None = None
    name: str | None = None
    turns: list[Turn] = Field(default_factory=list)


class _SessionOverrides(V2Model):
    """Settings `thread/start`, `thread/resume` and `thread/fork` may override."""

    model: Opt[str] = None
    model_provider: Opt[str] = None
    service_tier: Opt[str] = None
    cwd: Opt[str] = None
    approval_policy: Opt[AskForApproval] = None
    approvals_reviewer: Opt[ApprovalsReviewer] = None
    sandbox: Opt[SandboxMode] = None
    config: Opt[dict[str, Any]] = None
    base_instructions: Opt[str] = None
    developer_instructions: Opt[str] = None


class ThreadStartParams(_SessionOverrides):
    personality: Opt[Personality] = None
    ephemeral: Opt[bool] = None
    service_name: Opt[str] = None
    session_start_source: Opt[ThreadStartSource] = None
    thread_source: Opt[str] = None


class ThreadResumeParams(_SessionOverrides):
    thread_id: str
    personality: Opt[Personality] = None
    exclude_turns: Opt[bool] = None


class ThreadForkParams(_SessionOverrides):
    thread_id: str
    ephemeral: Opt[bool] = None
    exclude_turns: Opt[bool] = None
    last_turn_id: Opt[str] = None
    thread_source: Opt[str] = None


class _SessionResponse(V2Model):
    """What a thread was opened with, after config and overrides were merged."""

    thread: Thread
    model: str
    model_provider: str
    cwd: str
    approval_policy: AskForApproval
    approvals_reviewer: ApprovalsReviewer
    sandbox: SandboxPolicy
    service_tier: str | None = None
    reasoning_effort: ReasoningEffort | None = None
    instruction_sources: list[str] = Field(default_factory=list)
    # Plugins are off here: none is ever disabled.
    disabled_plugin_ids: list[str] = Field(default_factory=list)


class ThreadStartResponse(_SessionResponse):
    pass


class ThreadResumeResponse(_SessionResponse):
    # The thread's collaboration mode (a `threads.ops.CollaborationMode`); paged history
    # is not served here, so its cursors stay unset.
    collaboration_mode: Any = None
    turns_backwards_cursor: str | None = None
    items_backwards_cursor: str | None = None


class ThreadForkResponse(_SessionResponse):
    pass


class ThreadListParams(V2Model):
    cursor: Opt[str] = None
    limit: Opt[int] = None
    # At most `MAX_INCLUDED_THREAD_IDS`; an empty list matches nothing. Exclusions still apply.
    included_thread_ids: Opt[list[str]] = None
    excluded_thread_ids: Opt[list[str]] = None
    sort_key: Opt[ThreadSortKey] = None
    sort_direction: Opt[SortDirection] = None
    model_providers: Opt[list[str]] = None
    source_kinds: Opt[list[ThreadSourceKind]] = None
    originators: Opt[list[str]] = None
    archived: Opt[bool] = None
    # Left out: every section; null: the threads in no section; an id: that section's threads.
    section_id: Opt[str] = None
    # Left out: every project; null: the threads in no project; an id: that project's threads.
    project_id: ExperimentalOpt[str] = None
    cwd: Opt[str | list[str]] = None
    use_state_db_only: Opt[bool] = None
    search_term: Opt[str] = None


MAX_INCLUDED_THREAD_IDS = 100


class ThreadListResponse(V2Model):
    data: list[Thread]
    next_cursor: str | None = None
    backwards_cursor: str | None = None
    # Thread id -> whether the user has read it, for the threads of this page.
    read_states: ExperimentalOpt[dict[str, ThreadReadState]] = None


class ThreadReadParams(V2Model):
    thread_id: str
    include_turns: bool = False


class ThreadReadResponse(V2Model):
    thread: Thread
    read_state: ExperimentalOpt[ThreadReadState] = None


class ThreadArchiveParams(V2Model):
    thread_id: str


class ThreadArchiveResponse(V2Model):
    """Empty; `thread/archived` follows."""


class ThreadUnarchiveParams(V2Model):
    thread_id: str


class ThreadUnarchiveResponse(V2Model):
    thread: Thread


class ThreadSetNameParams(V2Model):
    thread_id: str
    name: str


class ThreadSetNameResponse(V2Model):
    """Empty; `thread/name/updated` follows."""


METHODS = MethodTable()
THREAD_START = METHODS.request("thread/start", ThreadStartParams, ThreadStartResponse)
THREAD_RESUME = METHODS.request("thread/resume", ThreadResumeParams, ThreadResumeResponse)
THREAD_FORK = METHODS.request("thread/fork", ThreadForkParams, ThreadForkResponse)
THREAD_LIST = METHODS.request("thread/list", ThreadListParams, ThreadListResponse)
THREAD_READ = METHODS.request("thread/read", ThreadReadParams, ThreadReadResponse)
THREAD_ARCHIVE = METHODS.request("thread/archive", ThreadArchiveParams, ThreadArchiveResponse)
THREAD_UNARCHIVE = METHODS.request(
    "thread/unarchive", ThreadUnarchiveParams, ThreadUnarchiveResponse
)
THREAD_NAME_SET = METHODS.request("thread/name/set", ThreadSetNameParams, ThreadSetNameResponse)
