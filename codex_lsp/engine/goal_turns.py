"""A goal's part in each turn: what the model is told about it, and what the turn costs it.

The model hears of its goal through items of the history, not the instructions: the objective
as a `goal_objective` context output, and, in a `<codex_internal_context source="goal">` user
message, why a turn runs (a continuation), that the user rewrote the objective mid-turn, or that
the budget ran out. Usage is counted as Codex counts it: a response's tokens once its tool
calls have run (a tool reads the goal as it was when the response began), whatever is left when
the turn ends, and `update_goal` counts before it changes the status, so a completed goal
reports what it cost. A budget used up mid-turn tells the model to wrap up; a turn that fails
leaves the goal `blocked`, so nothing keeps sampling into the same error.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from codex_lsp.engine.history import user_message
from codex_lsp.engine.prompts import render
from codex_lsp.protocol.core.goals import ThreadGoalUpdatedEvent
from codex_lsp.protocol.core.response_items import MessageItem, ResponseItem, response_item

if TYPE_CHECKING:
    from codex_lsp.engine.session import RunningTask, Session
    from codex_lsp.engine.turn_context import TurnContext
    from codex_lsp.protocol.core.inputs import TokenUsage

GOAL_CONTEXT_OPEN = '<codex_internal_context source="goal">'
GOAL_CONTEXT_CLOSE = "</codex_internal_context>"
# Statuses under which a turn's usage still counts against the goal.
COUNTED = ("active", "budgetLimited")
_PROGRESS_SECTION = "Showing progress:\n"


def goals_enabled(ctx: TurnContext) -> bool:
    return bool(ctx.features.get("goals", True))


def goal_changed(
    session: Session, sub_id: str, goal: dict[str, Any], *, turn_id: str | None = None
) -> None:
    """Make `goal` the thread's and say so, under `sub_id`; `turn_id` is the turn that changed
    it (None for a client's change)."""
    session.goal = goal
    event = ThreadGoalUpdatedEvent(thread_id=session.thread_id, turn_id=turn_id, goal=dict(goal))
    session.emit(sub_id, event)


# What the model is told ------------------------------------------------------------------


def goal_context(text: str) -> MessageItem:
    return user_message(f"{GOAL_CONTEXT_OPEN}\n{text}\n\n{GOAL_CONTEXT_CLOSE}")


def objective_item(objective: str) -> ResponseItem:
    """The objective as the model reads it: a context output of the `agent` namespace."""
    return response_item(
        {
            "type": "function_call_output",
            "name": "goal_objective",
            "namespace": "agent",
            "output": objective,
        }
    )


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _budget(goal: dict[str, Any], *, unknown: str) -> tuple[str, str]:
    budget = goal.get("tokenBudget")
    if budget is None:
        return "none", unknown
    return str(budget), str(max(0, int(budget) - int(goal["tokensUsed"])))


def continuation_prompt(goal: dict[str, Any], *, update_plan: bool) -> str:
    budget, remaining = _budget(goal, unknown="unbounded")
    text = render(
        "goal_continuation",
        tokens_used=goal["tokensUsed"],
        token_budget=budget,
        remaining_tokens=remaining,
    )
    if not update_plan:  # the advice about plans only where the model may make one
        start = text.index(_PROGRESS_SECTION)
        text = text[:start] + text[text.index("\n\n", start) + 2 :]
    return text


def objective_updated_prompt(goal: dict[str, Any]) -> str:
    budget, remaining = _budget(goal, unknown="unknown")
    return render(
        "goal_objective_updated",
        objective=_escaped(goal["objective"]),
        tokens_used=goal["tokensUsed"],
        token_budget=budget,
        remaining_tokens=remaining,
    )


def budget_limit_prompt(goal: dict[str, Any]) -> str:
    budget = goal.get("tokenBudget")
    return render(
        "goal_budget_limit",
        objective=_escaped(goal["objective"]),
        time_used_seconds=goal["timeUsedSeconds"],
        tokens_used=goal["tokensUsed"],
        token_budget="none" if budget is None else budget,
    )


def give_objective(session: Session) -> list[ResponseItem]:
    """The objective for the history, unless the model was already given this one."""
    goal = session.goal
    if goal is None or goal.get("status") != "active":
        return []
    if session.goal_objective_given == goal["objective"]:
        return []
    session.goal_objective_given = goal["objective"]
    return [objective_item(goal["objective"])]


# What a turn costs -----------------------------------------------------------------------


def _counted(session: Session) -> bool:
    """Whether the running turn's use is the goal's: a Plan-mode turn's is not."""
    running = session.running_task
    return running is None or running.goal_counted


def note_usage(session: Session, usage: TokenUsage | None) -> None:
    """A response's tokens, counted against the goal at the next `account`."""
    goal = session.goal
    counted = goal is not None and goal.get("status") in COUNTED and _counted(session)
    if usage is not None and counted:
        session.goal_unaccounted += usage.total_tokens


def account(session: Session, sub_id: str, task: RunningTask | None = None) -> None:
    """Count what the goal's turn used since the last count (tokens and running time). A
    budget used up here tells the running `task`'s next request to wrap up."""
    goal = session.goal
    tokens, session.goal_unaccounted = session.goal_unaccounted, 0
    if goal is None or goal.get("status") not in COUNTED:
        return
    now = time.monotonic()
    if not _counted(session):
        session.goal_clock = now  # the time spent planning is not the goal's either
        return
    started = session.goal_clock if session.goal_clock is not None else now
    session.goal_clock = now
    updated = {
        **goal,
        "tokensUsed": int(goal["tokensUsed"]) + tokens,
        "timeUsedSeconds": int(goal["timeUsedSeconds"]) + int(now - started),
    }
    budget = updated.get("tokenBudget")
    limited = (
        updated["status"] == "active" and budget is not None and updated["tokensUsed"] >= budget
    )
    if limited:
        updated["status"] = "budgetLimited"
        updated["updatedAt"] = int(time.time())
    if updated == goal:
        return
    goal_changed(session, sub_id, updated, turn_id=sub_id)
    if limited and task is not None:
        task.steering.add_items([goal_context(budget_limit_prompt(updated))])


def end_goal_turn(session: Session, task: RunningTask) -> None:
    """The turn's last count."""
    account(session, task.sub_id)


def turn_failed(session: Session, task: RunningTask) -> None:
    """The turn ends on an error: its active goal is counted and blocked (before the error is
    reported, as Codex does)."""
    task.failed = True
    account(session, task.sub_id)
    goal = session.goal
    if goal is not None and goal.get("status") == "active":
        blocked = {**goal, "status": "blocked", "updatedAt": int(time.time())}
        goal_changed(session, task.sub_id, blocked, turn_id=task.sub_id)


__all__ = [
    "account",
    "continuation_prompt",
    "end_goal_turn",
    "give_objective",
    "goal_changed",
    "goal_context",
    "note_usage",
    "turn_failed",
]
