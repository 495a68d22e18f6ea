"""Thread goals: the `get_goal`, `create_goal` and `update_goal` tools, and the client's ops.

A thread has at most one goal: an objective, a status and, when asked for, a token budget.
While the goal is active, every model response of the thread counts against it (its total
tokens, and the time the turn has run); a budget used up turns it `budgetLimited`. Each change
is a `thread_goal_updated` event, kept in the rollout, so a resumed thread finds its goal as
it was. The model may create a goal and mark it complete, blocked or paused; resuming it and
the limits belong to the user and the engine. Tool outputs and errors read as Codex's do.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from codex_lsp.engine.extensions import Extension, OpHandler, ToolHandler
from codex_lsp.engine.goal_continuation import continue_if_idle
from codex_lsp.engine.goal_turns import (
    account,
    give_objective,
    goal_changed,
    goal_context,
    goals_enabled,
    objective_updated_prompt,
)
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput, object_arguments
from codex_lsp.protocol.core.events import ErrorEvent
from codex_lsp.protocol.core.goals import (
    ClearThreadGoal,
    ContinueThreadGoal,
    SetThreadGoal,
    ThreadGoalClearedEvent,
)
from codex_lsp.protocol.core.response_items import ResponseItem

if TYPE_CHECKING:
    from codex_lsp.engine.codex import Codex
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext
    from codex_lsp.protocol.core.ops import Op

# The statuses the model may set; the others are the user's or the engine's to set.
MODEL_STATUSES = ("complete", "blocked", "paused")

COMPLETION_REPORT = (
    "Goal achieved. Report final usage from this tool result's structured goal fields. If "
    "`goal.tokenBudget` is present, include token usage from `goal.tokensUsed` and "
    "`goal.tokenBudget`. If `goal.timeUsedSeconds` is greater than 0, summarize elapsed time "
    "in a concise, human-friendly form appropriate to the response language."
)

GET_GOAL: dict[str, Any] = {
    "type": "function",
    "name": "get_goal",
    "description": (
        "Get the current goal for this thread, including status, budgets, token and "
        "elapsed-time usage, and remaining token budget."
    ),
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    },
}

CREATE_GOAL: dict[str, Any] = {
    "type": "function",
    "name": "create_goal",
    "description": (
        "Create a goal only when explicitly requested by the user or system/developer "
        "instructions; do not infer goals from ordinary tasks.\nSet token_budget only when an "
        "explicit token budget is requested. Fails if an unfinished goal exists; use "
        "update_goal only for status."
    ),
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "objective": {
                "type": "string",
                "description": (
                    "Required. The concrete objective to start pursuing. This starts a new "
                    "active goal when no goal exists or replaces the current goal when it is "
                    "complete."
                ),
            },
            "token_budget": {
                "type": "integer",
                "description": (
                    "Positive token budget for the new goal. Omit unless explicitly requested."
                ),
            },
        },
        "required": ["objective"],
        "additionalProperties": False,
    },
}

UPDATE_GOAL: dict[str, Any] = {
    "type": "function",
    "name": "update_goal",
    "description": (
        "Update the existing goal.\nSet status to `paused` only at the user's explicit request "
        "to pause this goal, never on your own initiative. Ask if unclear; a later resume "
        "revokes that request. Report the returned status and stop goal work. Budget limits "
        "take precedence over pausing.\nSet status to `complete` only when the objective has "
        "actually been achieved and no required work remains.\nSet status to `blocked` only "
        "when the same blocking condition has repeated for at least three consecutive goal "
        "turns, counting the original/user-triggered turn and any automatic continuations, and "
        "the agent cannot make meaningful progress without user input or an external-state "
        "change.\nIf the user resumes a goal that was previously marked `blocked`, treat the "
        "resumed run as a fresh blocked audit. If the same blocking condition then repeats for "
        "at least three consecutive resumed goal turns, set status to `blocked` again.\nOnce "
        "the blocked threshold is satisfied, do not keep reporting that you are still blocked "
        "while leaving the goal active; set status to `blocked`.\nDo not use `blocked` merely "
        "because the work is hard, slow, uncertain, "
        "incomplete, or would benefit from clarification.\nDo not mark a goal complete merely "
        "because its budget is nearly exhausted or because you are stopping work.\nYou cannot "
        "use this tool to resume, budget-limit, or usage-limit a goal; those status changes "
        "are controlled by the user or system.\nWhen marking a budgeted goal achieved with "
        "status `complete`, report the final token usage from the tool result to the user."
    ),
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "status": {
                "type": "string",
                "description": (
                    "Required. `paused` requires an explicit user request. Set to `complete` "
                    "only when the objective is achieved and no required work remains. Set to "
                    "`blocked` only after the same blocking condition has recurred for at "
                    "least three consecutive goal turns and the agent is at an impasse. "
                    "After a previously blocked goal is resumed, the resumed run starts a "
                    "fresh blocked audit."
                ),
                "enum": list(MODEL_STATUSES),
            }
        },
        "required": ["status"],
        "additionalProperties": False,
    },
}

TOOL_SPECS = (GET_GOAL, CREATE_GOAL, UPDATE_GOAL)


def new_goal(thread_id: str, objective: str, token_budget: int | None) -> dict[str, Any]:
    now = int(time.time())
    return {
        "threadId": thread_id,
        "objective": objective,
        "status": "active",
        "tokenBudget": token_budget,
        "tokensUsed": 0,
        "timeUsedSeconds": 0,
        "createdAt": now,
        "updatedAt": now,
    }


def tool_result(goal: dict[str, Any] | None, *, completed: bool = False) -> str:
    """The JSON a goal tool answers with: the goal (a `null` budget left out), what is left
    of its budget, and on completion what to report."""
    shown = None if goal is None else {k: v for k, v in goal.items() if v is not None}
    remaining = None
    if goal is not None and goal.get("tokenBudget") is not None:
        remaining = max(0, int(goal["tokenBudget"]) - int(goal["tokensUsed"]))
    result = {
        "goal": shown,
        "remainingTokens": remaining,
        "completionBudgetReport": COMPLETION_REPORT if completed else None,
    }
    return json.dumps(result, separators=(",", ":"), ensure_ascii=False)


async def handle_get_goal(call: ToolCall) -> ToolOutput:
    return ToolOutput(tool_result(call.session.goal))


async def handle_create_goal(call: ToolCall) -> ToolOutput:
    args = object_arguments(call.payload)
    objective = args.get("objective")
    budget = args.get("token_budget")
    if not isinstance(objective, str) or not objective.strip():
        raise ToolError("goal objective must not be empty")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)):
        raise ToolError("failed to parse function arguments: token_budget must be an integer")
    if budget is not None and budget <= 0:
        raise ToolError("goal budgets must be positive when provided")
    current = call.session.goal
    if current is not None and current.get("status") != "complete":
        raise ToolError(
            "cannot create a new goal because this thread has an unfinished goal; "
            "complete the existing goal first"
        )
    goal = new_goal(call.session.thread_id, objective.strip(), budget)
    # The new goal counts from here; the model reads its objective before its next request.
    call.session.goal_unaccounted = 0
    call.session.goal_clock = time.monotonic()
    call.session.goal_origin_turn = call.sub_id
    goal_changed(call.session, call.sub_id, goal, turn_id=call.sub_id)
    call.task.steering.add_items(give_objective(call.session))
    return ToolOutput(tool_result(goal))


async def handle_update_goal(call: ToolCall) -> ToolOutput:
    status = object_arguments(call.payload).get("status")
    if status in MODEL_STATUSES:
        account(call.session, call.sub_id)  # the goal's final usage includes this turn so far
    current = call.session.goal
    if current is None:
        raise ToolError("cannot update goal because this thread has no goal")
    if status not in MODEL_STATUSES:
        raise ToolError(
            "update_goal can only mark the existing goal complete, blocked, or paused at the "
            "user's explicit request; resume, budget-limited, and usage-limited status changes "
            "are controlled by the user or system"
        )
    goal = {**current, "status": status, "updatedAt": int(time.time())}
    goal_changed(call.session, call.sub_id, goal, turn_id=call.sub_id)
    # The usage report is asked for only when there is usage worth reporting.
    report = goal.get("tokenBudget") is not None or int(goal["timeUsedSeconds"]) > 0
    return ToolOutput(tool_result(goal, completed=status == "complete" and report))


async def _set_goal(codex: Codex, session: Session, sub_id: str, op: Op) -> None:
    """A client creates, edits, resumes or pauses the goal (fields left out stay)."""
    assert isinstance(op, SetThreadGoal)
    current = session.goal
    if op.token_budget is not None and op.token_budget <= 0:
        codex.event(sub_id, ErrorEvent(message="goal budgets must be positive when provided"))
        return
    objective = op.objective.strip() if op.objective is not None else None
    if op.objective is not None and not objective:
        codex.event(sub_id, ErrorEvent(message="goal objective must not be empty"))
        return
    running = session.running_task
    if current is not None and running is not None:
        account(session, running.sub_id)  # what the turn used so far counts for the goal as it was
        current = session.goal
    if current is None:
        if objective is None:
            message = f"cannot update goal for thread {session.thread_id}: no goal exists"
            codex.event(sub_id, ErrorEvent(message=message))
            return
        goal = new_goal(session.thread_id, objective, op.token_budget)
        session.goal_unaccounted = 0
        session.goal_origin_turn = None
    else:  # the goal keeps its usage; what the client names changes
        goal = dict(current)
        if objective is not None:
            goal["objective"] = objective
        if op.token_budget is not None:
            goal["tokenBudget"] = op.token_budget
    if op.status is not None:
        goal["status"] = op.status
    goal["updatedAt"] = int(time.time())
    if goal["status"] == "active":
        session.goal_clock = time.monotonic()
    goal_changed(session, sub_id, goal)
    if goal["status"] != "active" or not goals_enabled(session.ctx):
        return
    if running is None:  # the next turn goes by the op's id, so its asker can hold it
        await continue_if_idle(session, turn_id=sub_id)
    elif current is not None and current["objective"] != goal["objective"]:
        running.steering.add_items([goal_context(objective_updated_prompt(goal))])


async def _continue_goal(codex: Codex, session: Session, sub_id: str, op: Op) -> None:
    assert isinstance(op, ContinueThreadGoal)
    await continue_if_idle(session)


async def _clear_goal(codex: Codex, session: Session, sub_id: str, op: Op) -> None:
    assert isinstance(op, ClearThreadGoal)
    had_goal = session.goal is not None
    session.goal = None
    event = ThreadGoalClearedEvent(thread_id=session.thread_id, cleared=had_goal)
    if had_goal:
        session.emit(sub_id, event)
    else:  # nothing changed: the asker hears so, the thread keeps nothing
        codex.event(sub_id, event)


class GoalsExtension(Extension):
    """The goal tools on every turn, and the ops a client changes the goal with."""

    name = "goals"

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        return [dict(spec) for spec in TOOL_SPECS] if goals_enabled(ctx) else []

    def tool_handlers(self) -> dict[str, ToolHandler]:
        return {
            "get_goal": _enabled(handle_get_goal),
            "create_goal": _enabled(handle_create_goal),
            "update_goal": _enabled(handle_update_goal),
        }

    def op_handlers(self) -> dict[str, OpHandler]:
        return {
            "set_thread_goal": _set_goal,
            "clear_thread_goal": _clear_goal,
            "continue_thread_goal": _continue_goal,
        }

    async def extra_user_items(
        self, session: Session, ctx: TurnContext, sub_id: str, items: Any
    ) -> list[ResponseItem]:
        # The time a goal has taken is the time turns ran on it, not the time between them.
        session.goal_clock = time.monotonic()
        return []


def _enabled(handler: ToolHandler) -> ToolHandler:
    async def run(call: ToolCall) -> ToolOutput:
        if not goals_enabled(call.ctx):
            raise ToolError(f"{call.name} is not available: goals are off ([features] goals)")
        return await handler(call)

    return run


__all__ = ["GoalsExtension", "goals_enabled"]
