"""What each op does to the Session: configure, turns, interrupts, approvals, metadata."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anyio.abc import TaskGroup

from codex_lsp import __version__
from codex_lsp.engine.compact import compact
from codex_lsp.engine.config_reload import reload_user_config
from codex_lsp.engine.context_factory import initial_turn_context
from codex_lsp.engine.editor_tasks import turn_instructions
from codex_lsp.engine.history import ConversationHistory
from codex_lsp.engine.history_ops import inject_items, revert_to_turn, steer_input
from codex_lsp.engine.models import model_info
from codex_lsp.engine.sandboxing import sandbox_options
from codex_lsp.engine.session import RunningTask, Session
from codex_lsp.engine.task import run_regular_task
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.model import ModelError
from codex_lsp.protocol.events import (
    ErrorEvent,
    SessionConfiguredEvent,
    ShutdownCompleteEvent,
    TaskCompleteEvent,
    TaskStartedEvent,
    ThreadNameUpdatedEvent,
)
from codex_lsp.protocol.events_history import ThreadSettingsAppliedEvent
from codex_lsp.protocol.inputs import RateLimitSnapshot, TokenUsage
from codex_lsp.protocol.ops import (
    Compact,
    ConfigureSession,
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
from codex_lsp.sandbox import session_sandbox_warning
from codex_lsp.store.fork import fork_thread
from codex_lsp.store.history import reconstruct_history
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.persist import should_persist_event
from codex_lsp.store.rollout import RolloutInUseError, RolloutRecorder, read_rollout

if TYPE_CHECKING:
    from codex_lsp.engine.codex import Codex


async def configure_session(
    codex: Codex, sub_id: str, op: ConfigureSession, task_group: TaskGroup
) -> Session | None:
    services = codex.services
    home = services.codex_home
    resumed_state = None
    forked_from: str | None = None
    rollout: RolloutRecorder | None = None
    # Lines of the rollout that could not be read back; the user hears of each once.
    read_warnings: list[str] = []
    if op.resume_path or op.fork_path:
        source = Path(op.resume_path or op.fork_path or "")
        try:
            contents = read_rollout(source)
        except OSError as err:
            codex.event(sub_id, ErrorEvent(message=f"cannot read thread {source}: {err.strerror}"))
            return None
        read_warnings = contents.warnings
        resumed_state = reconstruct_history(contents.lines)
        if resumed_state.meta is None:
            codex.event(sub_id, ErrorEvent(message=f"{source} is not a thread rollout"))
            return None
    ctx = initial_turn_context(
        services.config, op, resumed_state.turn_context if resumed_state else None
    )

    if op.resume_path and resumed_state is not None:
        thread_id = str(resumed_state.meta["id"])
        forked_from = resumed_state.meta.get("forked_from_id")
        if not op.ephemeral:
            try:
                rollout = RolloutRecorder.open_existing(Path(op.resume_path))
            except RolloutInUseError as err:
                codex.event(sub_id, ErrorEvent(message=str(err)))
                return None
    elif op.fork_path:
        thread_id = new_thread_id()
        rollout = fork_thread(
            home,
            Path(op.fork_path),
            thread_id,
            keep_turns=_turn_count(op.fork_up_to_turn),
            up_to_response_id=op.fork_up_to_response_id,
        )
        resumed_state = reconstruct_history(read_rollout(rollout.path).lines)
        forked_from = resumed_state.meta.get("forked_from_id") if resumed_state.meta else None
    else:
        thread_id = new_thread_id()
        if not op.ephemeral:
            rollout = RolloutRecorder.create(home, thread_id, _session_meta(ctx, op))

    history = (
        ConversationHistory(resumed_state.history, resumed_state.bookmarks)
        if resumed_state
        else ConversationHistory()
    )
    session = Session(
        thread_id=thread_id,
        ctx=ctx,
        emit=codex.emit,
        task_group=task_group,
        workspace=codex.workspace,
        services=services,
        history=history,
        rollout=rollout,
        persist_filter=should_persist_event,
        backlog=codex.event_backlog,
        drained=codex.events_drained,
    )
    for extension in services.extensions:
        try:
            await extension.session_started(session, sub_id)
        except Exception as err:  # A feature that cannot start must not stop the session.
            session.warn_once(sub_id, f"{extension.name} is unavailable: {err}")
    initial_messages = None
    if resumed_state is not None:
        # The model already saw its context in the restored history.
        session.context_seen = ctx if resumed_state.history else None
        _restore_usage(session, resumed_state.token_info, resumed_state.rate_limits)
        initial_messages = resumed_state.events
        session.thread_name = resumed_state.thread_name
    codex.event(
        sub_id,
        SessionConfiguredEvent(
            session_id=thread_id,
            forked_from_id=forked_from,
            thread_name=session.thread_name,
            model=ctx.model,
            model_provider_id=ctx.provider_id,
            approval_policy=ctx.approval_policy,
            sandbox_policy=ctx.sandbox_policy,
            cwd=str(ctx.cwd),
            reasoning_effort=ctx.effort,
            history_entry_count=len(history),
            initial_messages=initial_messages,
            rollout_path=str(rollout.path) if rollout is not None else None,
        ),
    )
    # After session_configured, which front doors wait for as the first answer to configure.
    for warning in read_warnings:
        session.warn_once(sub_id, warning)
    sandbox_warning = session_sandbox_warning(
        ctx.sandbox_policy, sandbox_options(services.config, services.codex_home)
    )
    if sandbox_warning is not None:
        session.warn_once(sub_id, sandbox_warning)
    return session


def _session_meta(ctx: Any, op: ConfigureSession) -> dict[str, Any]:
    return {
        "cwd": str(ctx.cwd),
        "originator": "codex_lsp",
        "cli_version": __version__,
        "source": op.source or "cli",
        "model_provider": ctx.provider_id,
        "base_instructions": {"text": ctx.base_instructions} if ctx.base_instructions else None,
    }


def _turn_count(turn: str | None) -> int | None:
    return int(turn) if turn is not None and turn.isdigit() else None


def _restore_usage(
    session: Session, info: dict[str, Any] | None, limits: dict[str, Any] | None
) -> None:
    if info:
        session.total_usage = TokenUsage.model_validate(info.get("total_token_usage") or {})
        session.last_usage = TokenUsage.model_validate(info.get("last_token_usage") or {})
    if limits:
        session.rate_limits = RateLimitSnapshot.model_validate(limits)


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
        )
        await _start_turn(session, sub_id, ctx, op)
    elif isinstance(op, UserInputOp):
        await _start_turn(session, sub_id, session.ctx, op)
    elif isinstance(op, OverrideTurnContext):
        overrides = op.model_dump(exclude={"type"}, exclude_none=True)
        session.ctx = _with_model_window(session, session.ctx.with_overrides(**overrides))
    elif isinstance(op, Interrupt):
        await session.abort_task("interrupted")
    elif isinstance(op, ExecApproval | PatchApproval):
        if not session.approvals.answer(op.id, op.decision):
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
    turn_ctx = replace(ctx, output_schema=op.final_output_json_schema)

    async def body(sess: Session, task: RunningTask) -> None:
        instructions = None
        if isinstance(op, UserTurn):
            # Rendered when the task starts: the files are read as they are then.
            instructions = turn_instructions(op.task, op.attachments, sess.workspace, turn_ctx.cwd)
        await run_regular_task(
            sess, task, turn_ctx, list(op.items), op.previous_response_id, instructions
        )

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
