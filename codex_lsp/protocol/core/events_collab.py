"""Engine events for the subagent tools, shaped like the reference's `collabAgentToolCall` item.

One begin and one end event per call of a subagent tool: the end event carries everything the
item shows (the children it reached and their last known states), so a resumed thread rebuilds
the item from the end event alone.
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
