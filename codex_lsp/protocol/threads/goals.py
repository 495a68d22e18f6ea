"""A thread's goal on the v2 wire: `thread/goal/get`, `thread/goal/set`, `thread/goal/clear`,
and the `thread/goal/updated` and `thread/goal/cleared` notifications.

The goal is what the model pursues across turns (`engine/goals.py` keeps it, with the thread);
a client reads it, creates or edits it (objective, status, token budget) and clears it.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import V2Model
from codex_lsp.protocol.methods import MethodTable

ThreadGoalStatus = TypeAliasType(
    "ThreadGoalStatus",
    Literal["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"],
)
ThreadGoalMutationOrigin = TypeAliasType("ThreadGoalMutationOrigin", Literal["user", "automatic"])


class ThreadGoal(V2Model):
    thread_id: str
    objective: str
    status: ThreadGoalStatus
    token_budget: int | None = None
    tokens_used: int
    time_used_seconds: int
    created_at: int
    updated_at: int


class ThreadGoalGetParams(V2Model):
    thread_id: str


class ThreadGoalGetResponse(V2Model):
    goal: ThreadGoal | None = None


class ThreadGoalSetParams(V2Model):
    thread_id: str
    objective: str | None = None
    status: ThreadGoalStatus | None = None
    token_budget: int | None = None
    # Missing provenance does not supply user authorization.
    origin: ThreadGoalMutationOrigin | None = None


class ThreadGoalSetResponse(V2Model):
    goal: ThreadGoal


class ThreadGoalClearParams(V2Model):
    thread_id: str
    origin: ThreadGoalMutationOrigin | None = None


class ThreadGoalClearResponse(V2Model):
    cleared: bool


class ThreadGoalUpdatedNotification(V2Model):
    thread_id: str
    turn_id: str | None = None
    goal: ThreadGoal


class ThreadGoalClearedNotification(V2Model):
    thread_id: str


METHODS = MethodTable()
THREAD_GOAL_GET = METHODS.request("thread/goal/get", ThreadGoalGetParams, ThreadGoalGetResponse)
THREAD_GOAL_SET = METHODS.request("thread/goal/set", ThreadGoalSetParams, ThreadGoalSetResponse)
THREAD_GOAL_CLEAR = METHODS.request(
    "thread/goal/clear", ThreadGoalClearParams, ThreadGoalClearResponse
)
METHODS.notification("thread/goal/updated", ThreadGoalUpdatedNotification)
METHODS.notification("thread/goal/cleared", ThreadGoalClearedNotification)
