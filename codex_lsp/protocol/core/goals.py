"""A thread's goal: what the model pursues across turns, its status and its budget.

The goal travels in the shape the v2 protocol and the goal tools give it (camelCase), the same
JSON in the tools' output, the core events and the rollout, so a resumed thread finds it as it
was. The ops let a client set or clear it; the events say it changed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from codex_lsp.protocol.core.inputs import WireModel

ThreadGoalStatus = Literal[
    "active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"
]
GOAL_STATUSES: tuple[str, ...] = (
    "active",
    "paused",
    "blocked",
    "usageLimited",
    "budgetLimited",
    "complete",
)


class ThreadGoalUpdatedEvent(WireModel):
    type: Literal["thread_goal_updated"] = "thread_goal_updated"
    thread_id: str
    # The turn that changed it; None for a change a client made between turns.
    turn_id: str | None = None
    goal: dict[str, Any]


class ThreadGoalClearedEvent(WireModel):
    type: Literal["thread_goal_cleared"] = "thread_goal_cleared"
    thread_id: str
    # False answers a clear on a thread that had no goal (nothing was kept).
    cleared: bool = True


class SetThreadGoal(WireModel):
    """Create or change the thread's goal; fields left out keep their value."""

    type: Literal["set_thread_goal"] = "set_thread_goal"
    objective: str | None = None
    status: ThreadGoalStatus | None = None
    token_budget: int | None = Field(default=None)


class ClearThreadGoal(WireModel):
    type: Literal["clear_thread_goal"] = "clear_thread_goal"


class ContinueThreadGoal(WireModel):
    """Take up the thread's active goal again if nothing runs (a resumed thread)."""

    type: Literal["continue_thread_goal"] = "continue_thread_goal"
