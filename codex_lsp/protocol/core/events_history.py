"""Events about a thread's history and settings rather than a turn's progress.

They answer the ops that change what the model will see (steering, injected items, a revert)
and say when the settings the next turn runs with have changed.
"""

from __future__ import annotations

from typing import Literal

from codex_lsp.protocol.core.inputs import (
    Personality,
    ReasoningEffort,
    ReasoningSummary,
    WireModel,
)
from codex_lsp.protocol.core.policy import AskForApproval, SandboxPolicy


class SteerAcceptedEvent(WireModel):
    """The running turn took the steered input; it reaches the model at its next request."""

    type: Literal["steer_accepted"] = "steer_accepted"
    turn_id: str


class ItemsInjectedEvent(WireModel):
    type: Literal["items_injected"] = "items_injected"
    count: int


class ThreadRolledBackEvent(WireModel):
    """The last `num_turns` turns left the history (persisted, so a replay drops them too)."""

    type: Literal["thread_rolled_back"] = "thread_rolled_back"
    num_turns: int


class ThreadSettingsAppliedEvent(WireModel):
    """A turn starts with settings that differ from the previous turn's."""

    type: Literal["thread_settings_applied"] = "thread_settings_applied"
    cwd: str
    model: str
    model_provider: str
    approval_policy: AskForApproval
    sandbox_policy: SandboxPolicy
    effort: ReasoningEffort | None = None
    summary: ReasoningSummary | None = None
    personality: Personality | None = None
