"""Engine events for the subagent tools, shaped like the reference's `collabAgentToolCall` and
`subAgentActivity` items.

One begin and one end event per call of a subagent tool: the end event carries everything the
item shows (the children it reached and their last known states), so a resumed thread rebuilds
the item from the end event alone. A `sub_agent_activity` event is one whole item: a child was
started, messaged, interrupted or finished its task.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.core.inputs import WireModel

CollabAgentTool = TypeAliasType(
    "CollabAgentTool",
    Literal[
        "spawnAgent",
        "sendInput",
        "resumeAgent",
        "wait",
        "closeAgent",
        "sendMessage",
        "followupTask",
        "interruptAgent",
        "listAgents",
    ],
)
CollabAgentStatus = TypeAliasType(
    "CollabAgentStatus",
    Literal[
        "pendingInit", "running", "interrupted", "completed", "errored", "shutdown", "notFound"
    ],
)
CollabAgentToolCallStatus = TypeAliasType(
    "CollabAgentToolCallStatus", Literal["inProgress", "completed", "failed", "interrupted"]
)


class CollabAgentStateRecord(WireModel):
    status: CollabAgentStatus
    message: str | None = None


class CollabAgentToolCallBeginEvent(WireModel):
    type: Literal["collab_agent_tool_call_begin"] = "collab_agent_tool_call_begin"
    call_id: str
    tool: CollabAgentTool
    sender_thread_id: str
    receiver_thread_ids: list[str] = Field(default_factory=list)
    prompt: str | None = None


class CollabAgentToolCallEndEvent(WireModel):
    type: Literal["collab_agent_tool_call_end"] = "collab_agent_tool_call_end"
    call_id: str
    tool: CollabAgentTool
    sender_thread_id: str
    receiver_thread_ids: list[str] = Field(default_factory=list)
    prompt: str | None = None
    status: CollabAgentToolCallStatus
    # Thread id of each child reached -> its last known state.
    agents_states: dict[str, CollabAgentStateRecord] = Field(default_factory=dict)


SubAgentActivityKind = TypeAliasType(
    "SubAgentActivityKind", Literal["started", "interacted", "interrupted", "completed"]
)


class SubAgentActivityEvent(WireModel):
    type: Literal["sub_agent_activity"] = "sub_agent_activity"
    # The tool call's id, or `subagent-completed-<the child's turn id>` for a finished task.
    item_id: str
    kind: SubAgentActivityKind
    agent_thread_id: str
    agent_path: str
    # Set on `started` only: what the child runs with.
    model: str | None = None
    reasoning_effort: str | None = None
