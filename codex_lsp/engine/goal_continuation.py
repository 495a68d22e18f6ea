"""A thread with an active goal keeps working on it by itself.

When a turn ends and the goal is still active, the engine starts the next turn on its own, as
Codex does: a turn of its own id with no user message, whose history gains the objective (when
the model was not given this one yet) and a continuation prompt saying how far the budget has
gone. It stops once the goal is no longer active (the model completed, blocked or paused it,
the budget ran out, a client paused or cleared it), after a turn that failed (the goal is then
blocked), after an interrupted turn (until another turn ends on its own), and when goals are
off (`[features] goals = false`). A client that activates a goal on an idle thread, or
resumes a thread whose goal is active, sets it going too. A thread in Plan mode never goes on
by itself, and its Plan-mode turns count neither tokens nor time against the goal; switching
back to the default mode does not start a turn, the next turn that ends does.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from codex_lsp.engine import goal_turns
from codex_lsp.engine.task import run_regular_task
from codex_lsp.engine.tools.config import turn_tools
from codex_lsp.engine.turn_context import restricted_for_plan
from codex_lsp.store.home import new_thread_id

if TYPE_CHECKING:
    from codex_lsp.engine.session import RunningTask, Session

log = logging.getLogger(__name__)


def _goes_on(session: Session) -> bool:
    goal = session.goal
    return (
        not session.closed
        and goal is not None
        and goal.get("status") == "active"
        and goal_turns.goals_enabled(session.ctx)
        # In Plan mode the user leads: the goal waits for the thread to leave it.
        and session.ctx.collaboration_mode != "plan"
    )


def after_turn(session: Session, task: RunningTask) -> None:
    """Called when a turn has ended on its own (an interrupted turn never gets here): once the
    task is over, the next turn starts if the goal is still to be pursued."""
    if task.failed or not _goes_on(session):
        return
    session.task_group.start_soon(_continue_after, session, task)


async def _continue_after(session: Session, task: RunningTask) -> None:
    await task.done.wait()
    await continue_if_idle(session)


async def continue_if_idle(session: Session, *, turn_id: str | None = None) -> None:
    """Start a continuation turn (as `turn_id`, or a new id) if nothing runs and the goal is
    still to be pursued."""
    if session.running_task is not None or not _goes_on(session):
        return
    try:
        await session.start_task(turn_id or new_thread_id(), "regular", _continuation)
    except Exception:  # a continuation that cannot start leaves the thread idle, as it was
        log.exception("the goal's next turn could not start")


async def _continuation(session: Session, task: RunningTask) -> None:
    ctx = restricted_for_plan(session.ctx)
    goal = session.goal
    if goal is None or goal.get("status") != "active":
        return  # changed between scheduling and starting: nothing to do
    prompt = goal_turns.continuation_prompt(goal, update_plan=turn_tools(ctx).update_plan)
    opening = [*goal_turns.give_objective(session), goal_turns.goal_context(prompt)]
    # Codex counts the turns back to the one whose model made the goal, if one did.
    root = session.goal_origin_turn
    await run_regular_task(session, task, ctx, [], opening=opening, root_turn_id=root)
    after_turn(session, task)


__all__ = ["after_turn", "continue_if_idle"]
