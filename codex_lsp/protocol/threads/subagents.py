"""Our v2 extension for subagents: `subagent/lifecycle` and `agent/inbox` notifications.

Each call of a subagent tool is a `collabAgentToolCall` item, as in the reference protocol; the
tree itself (every child's status and inbox) is reported with events of this engine's own, which
the API forwards with the same payloads in camelCase. They are deliberately kept out of
`SERVER_NOTIFICATIONS`: that registry is what the reference schema covers (and what
`generate-json-schema` writes), and these methods are not in it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, V2Model

SubagentStatus = TypeAliasType(
    "SubagentStatus", Literal["running", "completed", "interrupted", "failed", "canceled"]
)
SubagentChange = TypeAliasType(
    "SubagentChange",
    Literal["spawned", "forked", "status", "reasoning", "canceled", "pruned"],
)


class SubagentSummary(V2Model):
    """One child session; agent 0 is the root thread, so `parentAgentId` 0 is a direct child."""

    agent_id: int
    parent_agent_id: int
    session_id: str
    parent_session_id: Opt[str] = None
    label: Opt[str] = None
    status: SubagentStatus
    reasoning_header: Opt[str] = None
    pending_regular: int = 0
    pending_interrupt: int = 0
    rollout_path: Opt[str] = None


class SubagentLifecycleNotification(V2Model):
    """A child was attached (`spawned`/`forked`), changed, or detached (`canceled`/`pruned`);
    `agents` lists every child still attached after the change."""

    thread_id: str
    change: SubagentChange
    agent_id: int
    agent: SubagentSummary
    agents: list[SubagentSummary] = Field(default_factory=list)


class AgentInboxNotification(V2Model):
    """A child's inbox depth changed: messages waiting for its current task to end."""

    thread_id: str
    agent_id: int
    session_id: str
    pending_regular: int
    pending_interrupt: int


EXTENSION_NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "subagent/lifecycle": SubagentLifecycleNotification,
    "agent/inbox": AgentInboxNotification,
}
"""Notification method -> params model, for the methods outside the reference schema."""
