"""Event Queue: the `EventMsg`s `Codex` sends to the UI, and their `Event` envelope.

Turn start and end serialise as `task_started` / `task_complete` for v1 wire compatibility;
`turn_started` / `turn_complete` are accepted as aliases when parsing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, TypeAdapter

# The tools' events live beside this module; they are imported from here like every event.
from codex_lsp.protocol.core.events_collab import (
    CollabAgentToolCallBeginEvent as CollabAgentToolCallBeginEvent,
    CollabAgentToolCallEndEvent as CollabAgentToolCallEndEvent,
    SubAgentActivityEvent as SubAgentActivityEvent,
)
from codex_lsp.protocol.core.events_exec import (
    ApplyPatchApprovalRequestEvent as ApplyPatchApprovalRequestEvent,
    Duration as Duration,
    ExecApprovalRequestEvent as ExecApprovalRequestEvent,
    ExecCommandBeginEvent as ExecCommandBeginEvent,
    ExecCommandEndEvent as ExecCommandEndEvent,
    ExecCommandOutputDeltaEvent as ExecCommandOutputDeltaEvent,
    ExecCommandSource as ExecCommandSource,
    PatchApplyBeginEvent as PatchApplyBeginEvent,
    PatchApplyEndEvent as PatchApplyEndEvent,
    TerminalInteractionEvent as TerminalInteractionEvent,
)
from codex_lsp.protocol.core.events_history import (
    ItemsInjectedEvent,
    SteerAcceptedEvent,
    ThreadRolledBackEvent,
    ThreadSettingsAppliedEvent,
)
from codex_lsp.protocol.core.events_mcp import (
    McpStartupUpdateEvent as McpStartupUpdateEvent,
    McpToolCallBeginEvent as McpToolCallBeginEvent,
    McpToolCallEndEvent as McpToolCallEndEvent,
)
from codex_lsp.protocol.core.goals import ThreadGoalClearedEvent, ThreadGoalUpdatedEvent
from codex_lsp.protocol.core.inputs import (
    PlanItem,
    RateLimitSnapshot,
    ReviewOutputEvent,
    ReviewTarget,
    TokenUsageInfo,
    WireModel,
)
from codex_lsp.protocol.core.policy import AskForApproval, SandboxPolicy

CodexErrorInfo = str | dict[str, Any]


class ErrorEvent(WireModel):
    type: Literal["error"] = "error"
    message: str
    codex_error_info: CodexErrorInfo | None = None


class WarningEvent(WireModel):
    type: Literal["warning"] = "warning"
    message: str


class StreamErrorEvent(WireModel):
    type: Literal["stream_error"] = "stream_error"
    message: str
    codex_error_info: CodexErrorInfo | None = None
    additional_details: str | None = None


class SessionConfiguredEvent(WireModel):
    type: Literal["session_configured"] = "session_configured"
    session_id: str
    forked_from_id: str | None = None
    thread_name: str | None = None
    model: str
    model_provider_id: str
    approval_policy: AskForApproval
    sandbox_policy: SandboxPolicy
    cwd: str
    reasoning_effort: str | None = None
    history_log_id: int = 0
    history_entry_count: int = 0
    initial_messages: list[dict[str, Any]] | None = None
    rollout_path: str | None = None


class TaskStartedEvent(WireModel):
    type: Literal["task_started"] = "task_started"
    turn_id: str
    # The turn a chain of turns started from (a goal's turns of the engine's own go back to
    # the turn whose model made the goal); None for the turn itself.
    root_turn_id: str | None = None
    started_at: int | None = None
    model_context_window: int | None = None
    collaboration_mode_kind: str = "default"


class TaskCompleteEvent(WireModel):
    type: Literal["task_complete"] = "task_complete"
    turn_id: str
    last_agent_message: str | None = None
    response_id: str | None = None
    completed_at: int | None = None
    duration_ms: int | None = None


TurnAbortReason = Literal["interrupted", "replaced", "review_ended", "budget_limited"]


class TurnAbortedEvent(WireModel):
    type: Literal["turn_aborted"] = "turn_aborted"
    turn_id: str
    reason: TurnAbortReason
    # The last response the model completed before the cut: the bookmark a client passes as
    # `previous_response_id` to continue from there.
    response_id: str | None = None


class UserMessageEvent(WireModel):
    type: Literal["user_message"] = "user_message"
    message: str
    images: list[str] | None = None
    local_images: list[str] = Field(default_factory=list)


class AgentMessageEvent(WireModel):
    type: Literal["agent_message"] = "agent_message"
    message: str
    item_id: str | None = None
    phase: Literal["commentary", "final_answer"] | None = None


class AgentMessageDeltaEvent(WireModel):
    type: Literal["agent_message_delta"] = "agent_message_delta"
    delta: str
    item_id: str | None = None


class AgentReasoningEvent(WireModel):
    type: Literal["agent_reasoning"] = "agent_reasoning"
    text: str
    item_id: str | None = None


class AgentReasoningDeltaEvent(WireModel):
    type: Literal["agent_reasoning_delta"] = "agent_reasoning_delta"
    delta: str
    item_id: str | None = None
    summary_index: int = 0


class AgentReasoningRawContentEvent(WireModel):
    type: Literal["agent_reasoning_raw_content"] = "agent_reasoning_raw_content"
    text: str
    item_id: str | None = None


class AgentReasoningRawContentDeltaEvent(WireModel):
    type: Literal["agent_reasoning_raw_content_delta"] = "agent_reasoning_raw_content_delta"
    delta: str
    item_id: str | None = None
    content_index: int = 0


class AgentReasoningSectionBreakEvent(WireModel):
    type: Literal["agent_reasoning_section_break"] = "agent_reasoning_section_break"
    item_id: str | None = None
    summary_index: int = 0


class TurnDiffEvent(WireModel):
    type: Literal["turn_diff"] = "turn_diff"
    unified_diff: str


class TokenCountEvent(WireModel):
    type: Literal["token_count"] = "token_count"
    info: TokenUsageInfo | None = None
    rate_limits: RateLimitSnapshot | None = None


class PlanUpdateEvent(WireModel):
    type: Literal["plan_update"] = "plan_update"
    explanation: str | None = None
    plan: list[PlanItem]


class ProposedPlanEvent(WireModel):
    """The plan a turn in Plan mode ended with (its `<proposed_plan>` block), as one item."""

    type: Literal["proposed_plan"] = "proposed_plan"
    item_id: str
    text: str


class RequestUserInputEvent(WireModel):
    type: Literal["request_user_input"] = "request_user_input"
    call_id: str
    turn_id: str
    questions: list[dict[str, Any]]


class WebSearchBeginEvent(WireModel):
    type: Literal["web_search_begin"] = "web_search_begin"
    call_id: str


class WebSearchEndEvent(WireModel):
    type: Literal["web_search_end"] = "web_search_end"
    call_id: str
    query: str


class ViewImageToolCallEvent(WireModel):
    """The model looked at the image at `path` (absolute) with `view_image`."""

    type: Literal["view_image_tool_call"] = "view_image_tool_call"
    call_id: str
    path: str


class ContextCompactionStartedEvent(WireModel):
    """The history is being summarised; `context_compacted` follows when it is done."""

    type: Literal["context_compaction_started"] = "context_compaction_started"


class ContextCompactedEvent(WireModel):
    type: Literal["context_compacted"] = "context_compacted"


class EnteredReviewModeEvent(WireModel):
    type: Literal["entered_review_mode"] = "entered_review_mode"
    target: ReviewTarget
    user_facing_hint: str | None = None


class ExitedReviewModeEvent(WireModel):
    type: Literal["exited_review_mode"] = "exited_review_mode"
    review_output: ReviewOutputEvent | None = None


class ListSkillsResponseEvent(WireModel):
    type: Literal["list_skills_response"] = "list_skills_response"
    skills: list[dict[str, Any]]


class ThreadNameUpdatedEvent(WireModel):
    type: Literal["thread_name_updated"] = "thread_name_updated"
    thread_id: str
    thread_name: str | None = None


SubagentStatus = Literal["running", "completed", "interrupted", "failed", "canceled"]


class SubagentSummary(WireModel):
    """One child session as UIs see it; agent 0 is the root thread."""

    agent_id: int
    parent_agent_id: int
    session_id: str
    # The parent's thread id: tells a fork of the root apart from the thread it came from.
    parent_session_id: str | None = None
    label: str | None = None
    status: SubagentStatus
    reasoning_header: str | None = None
    pending_regular: int = 0
    pending_interrupt: int = 0
    rollout_path: str | None = None


SubagentChange = Literal["spawned", "forked", "status", "reasoning", "canceled", "pruned"]


class SubagentLifecycleEvent(WireModel):
    """A child was attached (`spawned`/`forked`), changed, or detached (`canceled`/`pruned`)."""

    type: Literal["subagent_lifecycle"] = "subagent_lifecycle"
    change: SubagentChange
    agent_id: int
    # The child that changed, and every child still attached after the change.
    agent: SubagentSummary
    agents: list[SubagentSummary]


class AgentInboxEvent(WireModel):
    type: Literal["agent_inbox"] = "agent_inbox"
    agent_id: int
    session_id: str
    pending_regular: int
    pending_interrupt: int


class ShutdownCompleteEvent(WireModel):
    type: Literal["shutdown_complete"] = "shutdown_complete"


EventMsg = Annotated[
    ErrorEvent
    | WarningEvent
    | StreamErrorEvent
    | SessionConfiguredEvent
    | TaskStartedEvent
    | TaskCompleteEvent
    | TurnAbortedEvent
    | UserMessageEvent
    | AgentMessageEvent
    | AgentMessageDeltaEvent
    | AgentReasoningEvent
    | AgentReasoningDeltaEvent
    | AgentReasoningRawContentEvent
    | AgentReasoningRawContentDeltaEvent
    | AgentReasoningSectionBreakEvent
    | ExecCommandBeginEvent
    | ExecCommandOutputDeltaEvent
    | ExecCommandEndEvent
    | TerminalInteractionEvent
    | ExecApprovalRequestEvent
    | ApplyPatchApprovalRequestEvent
    | PatchApplyBeginEvent
    | PatchApplyEndEvent
    | TurnDiffEvent
    | TokenCountEvent
    | PlanUpdateEvent
    | ProposedPlanEvent
    | RequestUserInputEvent
    | McpToolCallBeginEvent
    | McpToolCallEndEvent
    | WebSearchBeginEvent
    | WebSearchEndEvent
    | ViewImageToolCallEvent
    | CollabAgentToolCallBeginEvent
    | CollabAgentToolCallEndEvent
    | SubAgentActivityEvent
    | ContextCompactionStartedEvent
    | ContextCompactedEvent
    | EnteredReviewModeEvent
    | ExitedReviewModeEvent
    | ListSkillsResponseEvent
    | ThreadNameUpdatedEvent
    | ThreadGoalUpdatedEvent
    | ThreadGoalClearedEvent
    | SubagentLifecycleEvent
    | AgentInboxEvent
    | ShutdownCompleteEvent
    | SteerAcceptedEvent
    | ItemsInjectedEvent
    | ThreadRolledBackEvent
    | ThreadSettingsAppliedEvent
    | McpStartupUpdateEvent,
    Field(discriminator="type"),
]

EVENT_ALIASES = {"turn_started": "task_started", "turn_complete": "task_complete"}

_event_msg_adapter: TypeAdapter[EventMsg] = TypeAdapter(EventMsg)


def parse_event_msg(data: Any) -> EventMsg:
    """Validate one event message, accepting the `turn_*` aliases of `task_*`."""
    if isinstance(data, dict) and data.get("type") in EVENT_ALIASES:
        data = {**data, "type": EVENT_ALIASES[data["type"]]}
    return _event_msg_adapter.validate_python(data)


M = TypeVar("M", bound=WireModel)


class Event(WireModel):
    """One entry of the Event Queue; `id` is the `sub_id` of the op that caused it."""

    id: str
    msg: EventMsg

    def to_wire(self) -> dict[str, Any]:
        return {"id": self.id, "msg": self.msg.model_dump(mode="json", exclude_none=True)}

    def msg_as(self, kind: type[M]) -> M:
        """`msg`, known to be a `kind`: for a handler a dispatch table chose by `msg.type`."""
        msg = self.msg
        if not isinstance(msg, kind):
            raise TypeError(f"a {msg.type} event reached the {kind.__name__} handler")
        return msg

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Event:
        return cls(id=str(data["id"]), msg=parse_event_msg(data["msg"]))
