"""What each op does to an open Session: turns, interrupts, approvals, metadata."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from codex_lsp.engine.compact import compact
from codex_lsp.engine.config_reload import reload_user_config
from codex_lsp.engine.editor_tasks import turn_instructions
from codex_lsp.engine.goal_continuation import after_turn
from codex_lsp.engine.history_ops import inject_items, revert_to_turn, steer_input
from codex_lsp.engine.models import model_info
from codex_lsp.engine.session import RunningTask, Session
from codex_lsp.engine.task import run_regular_task
from codex_lsp.engine.turn_context import TurnContext, restricted_for_plan
from codex_lsp.model import ModelError
from codex_lsp.protocol.core.events import (
    ErrorEvent,
    ShutdownCompleteEvent,
    TaskCompleteEvent,
    TaskStartedEvent,
    ThreadNameUpdatedEvent,
)
from codex_lsp.protocol.core.events_history import ThreadSettingsAppliedEvent
from codex_lsp.protocol.core.ops import (
    Compact,
    ExecApproval,
    InjectItems,
    Interrupt,
    Op,
    OverrideTurnContext,
    PatchApproval,
    ReloadUserConfig,
    RevertToTurn,
    RunUserShellCommand,
    SetThreadName,
    Shutdown,
    SteerInput,
    UserInputAnswer,
    UserInputOp,
    UserTurn,
)

if TYPE_CHECKING:
    from codex_lsp.engine.codex import Codex


async def handle_op(codex: Codex, session: Session, sub_id: str, op: Op) -> None:
    if isinstance(op, UserTurn):
        ctx = session.ctx.with_overrides(
            cwd=op.cwd,
            approval_policy=op.approval_policy,
            sandbox_policy=op.sandbox_policy,
            model=op.model,
            effort=op.effort,
            summary=op.summary,
            personality=op.personality,
            collaboration_mode=op.collaboration_mode,
        )
        await _start_turn(session, sub_id, ctx, op)
    elif isinstance(op, UserInputOp):
        await _start_turn(session, sub_id, session.ctx, op)
    elif isinstance(op, OverrideTurnContext):
        overrides = op.model_dump(exclude={"type"}, exclude_none=True)
        session.ctx = _with_model_window(session, session.ctx.with_overrides(**overrides))
    elif isinstance(op, Interrupt):
        await session.abort_task("interrupted")
        # Codex gives the objective again to the goal's next turn after an interrupt.
        session.goal_objective_given = None
    elif isinstance(op, ExecApproval | PatchApproval):
        if isinstance(op, PatchApproval) and op.declined_hunks:
            session.declined_hunks[op.id] = [(h.path, h.index) for h in op.declined_hunks]
        if isinstance(op, ExecApproval) and op.execpolicy_amendment:
            session.exec_amendments[op.id] = op.execpolicy_amendment
        if not session.approvals.answer(op.id, op.decision):
            session.declined_hunks.pop(op.id, None)
            session.exec_amendments.pop(op.id, None)
            codex.event(sub_id, ErrorEvent(message=f"no pending approval with id {op.id!r}"))
    elif isinstance(op, UserInputAnswer):
        if not session.answers.answer(op.id, op.model_dump(exclude={"type", "id"})):
            codex.event(sub_id, ErrorEvent(message=f"no pending question for turn {op.id!r}"))
    elif isinstance(op, SetThreadName):
        name = op.name.strip()
        if not name:
            codex.event(sub_id, ErrorEvent(message="thread name cannot be empty"))
            return
        session.thread_name = name
        session.emit(sub_id, ThreadNameUpdatedEvent(thread_id=session.thread_id, thread_name=name))
    elif isinstance(op, Compact):
        await session.start_task(sub_id, "compact", _compact_task)
    elif isinstance(op, RunUserShellCommand):
        from codex_lsp.engine.user_shell import start_user_shell_command

        await start_user_shell_command(session, sub_id, op.command, op.timeout_ms)
    elif isinstance(op, SteerInput):
        steer_input(session, sub_id, op)
    elif isinstance(op, InjectItems):
        inject_items(session, sub_id, op)
    elif isinstance(op, RevertToTurn):
        revert_to_turn(session, sub_id, op)
    elif isinstance(op, ReloadUserConfig):
        await reload_user_config(session, sub_id)
    elif isinstance(op, Shutdown):
        from codex_lsp.engine.codex import close_session

        await session.abort_task("interrupted")
        # Forget the session first: later ops must hear there is none, not run on a closed
        # rollout, and leaving the engine must not close it a second time.
        if codex.session is session:
            codex.session = None
        await close_session(codex.services, session)
        codex.event(sub_id, ShutdownCompleteEvent())
    else:
        await codex.services.handle_extra_op(codex, session, sub_id, op)


async def _start_turn(
    session: Session, sub_id: str, ctx: TurnContext, op: UserTurn | UserInputOp
) -> None:
    ctx = _with_model_window(session, ctx)
    applied = settings_applied(ctx)
    if applied != settings_applied(session.ctx):
        session.emit(sub_id, applied)
    # Settings persist to later turns; an output schema applies to this turn only.
    session.ctx = replace(ctx, output_schema=None)
    turn_ctx = restricted_for_plan(replace(ctx, output_schema=op.final_output_json_schema))

    async def body(sess: Session, task: RunningTask) -> None:
        instructions = None
        if isinstance(op, UserTurn):
            # Rendered when the task starts: the files are read as they are then.
            instructions = turn_instructions(op.task, op.attachments, sess.workspace, turn_ctx.cwd)
        await run_regular_task(
            sess, task, turn_ctx, list(op.items), op.previous_response_id, instructions
        )
        after_turn(sess, task)

    await session.start_task(sub_id, "regular", body)


def settings_applied(ctx: TurnContext) -> ThreadSettingsAppliedEvent:
    """The settings a client shows for a thread, as they are in `ctx`."""
    return ThreadSettingsAppliedEvent(
        cwd=str(ctx.cwd),
        model=ctx.model,
        model_provider=ctx.provider_id,
        approval_policy=ctx.approval_policy,
        sandbox_policy=ctx.sandbox_policy,
        effort=ctx.effort,
        summary=ctx.summary,
        personality=ctx.personality,
    )


def _with_model_window(session: Session, ctx: TurnContext) -> TurnContext:
    """A model switch brings that model's context window unless config pinned one."""
    if ctx.model == session.ctx.model or session.services.config.model_context_window:
        return ctx
    return replace(ctx, context_window=model_info(ctx.model).context_window)


async def _compact_task(session: Session, task: RunningTask) -> None:
    session.emit(task.sub_id, TaskStartedEvent(turn_id=task.sub_id, started_at=session.now()))
    try:
        await compact(session, task, session.ctx)
    except ModelError as err:
        session.emit(
            task.sub_id, ErrorEvent(message=err.message, codex_error_info=err.codex_error_info)
        )
    session.emit(task.sub_id, TaskCompleteEvent(turn_id=task.sub_id, completed_at=session.now()))
