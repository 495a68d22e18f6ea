"""Opening a Session: a new thread, one resumed from its rollout, or one forked from another;
a root thread that a UI drives, or a subagent's child.

Every session is opened here, so each gets the same things in the same order: its history
and settings (from the rollout it continues, if any), its rollout, the host it runs in (where
its events go, and how far behind their reader is, which throttles live command output and
pauses the model's stream), its extensions, and, for a root, the `session_configured` answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from codex_lsp import __version__
from codex_lsp.engine.editor_context import EditorContext
from codex_lsp.engine.history import ConversationHistory
from codex_lsp.engine.sandboxing import sandbox_options
from codex_lsp.engine.services import EngineServices
from codex_lsp.engine.session import Session
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.engine.workspace import Workspace
from codex_lsp.protocol.core.events import Event, SessionConfiguredEvent
from codex_lsp.protocol.core.inputs import RateLimitSnapshot, TokenUsage
from codex_lsp.protocol.core.ops import ConfigureSession
from codex_lsp.protocol.core.response_items import ResponseItem
from codex_lsp.sandbox import session_sandbox_warning
from codex_lsp.store.fork import fork_thread
from codex_lsp.store.history import ResumedState, reconstruct_history
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.persist import should_persist_event
from codex_lsp.store.rollout import RolloutInUseError, RolloutRecorder, read_rollout


class SessionOpenError(Exception):
    """The thread cannot be opened; the message says why, for the user."""


@dataclass(frozen=True)
class SessionHost:
    """What a session runs in: services and workspace, the task group its tasks run in,
    where its events go, and the reader's lag behind them."""

    services: EngineServices
    workspace: Workspace
    task_group: TaskGroup
    emit: Callable[[Event], None]
    # Events sent but not yet read by the client.
    backlog: Callable[[], int]
    # Returns once the client has caught up enough to take more events.
    drained: Callable[[], Awaitable[None]]
    # The editor the thread is shown in, when its front door can ask it things.
    editor: EditorContext | None = None

    @classmethod
    def child_of(cls, root: Session, emit: Callable[[Event], None]) -> SessionHost:
        """A child's host: the root's, but its events go to `emit`. The root's client is the
        one whose lag counts: what a child asks of the user reaches it through the root."""
        return cls(
            services=root.services,
            workspace=root.workspace,
            task_group=root.task_group,
            emit=emit,
            backlog=root.event_backlog,
            drained=root.events_drained,
            editor=root.editor,
        )


@dataclass(frozen=True)
class NewThread:
    thread_id: str
    # `session_meta.source`: "cli", "vscode", ... or a subagent spawn's table.
    source: str | dict[str, Any]
    # More `session_meta` keys (a child's nickname, the thread it was forked from).
    meta: dict[str, Any] = field(default_factory=dict)
    # Conversation the thread starts from: a copy of another thread's, which already holds
    # the context the model needs.
    history: list[ResponseItem] = field(default_factory=list)
    # Record nothing: no rollout.
    ephemeral: bool = False


@dataclass(frozen=True)
class ResumedThread:
    path: Path
    # Continue the history but record nothing more.
    ephemeral: bool = False


@dataclass(frozen=True)
class ForkedThread:
    path: Path
    thread_id: str
    keep_turns: int | None = None
    up_to_response_id: str | None = None
    meta_updates: dict[str, Any] | None = None


ThreadOrigin = NewThread | ResumedThread | ForkedThread


def thread_origin(op: ConfigureSession) -> ThreadOrigin:
    """The thread a `configure_session` op asks for."""
    if op.resume_path:
        return ResumedThread(Path(op.resume_path), ephemeral=op.ephemeral)
    if op.fork_path:
        return ForkedThread(
            Path(op.fork_path),
            new_thread_id(),
            keep_turns=_turn_count(op.fork_up_to_turn),
            up_to_response_id=op.fork_up_to_response_id,
        )
    return NewThread(new_thread_id(), source=op.source or "cli", ephemeral=op.ephemeral)


def _turn_count(turn: str | None) -> int | None:
    return int(turn) if turn is not None and turn.isdigit() else None


# A session's settings, given the turn context a resumed or forked thread last recorded.
Settings = Callable[[dict[str, Any] | None], TurnContext]
# Sees a new session, and the state it was restored from, before the extensions do.
Prepare = Callable[[Session, ResumedState | None], None]


async def open_session(
    host: SessionHost,
    sub_id: str,
    origin: ThreadOrigin,
    settings: Settings,
    *,
    root: Session | None = None,
    prepare: Prepare | None = None,
) -> Session:
    """Open the session `origin` describes, in `host`.

    With `root`, the session is a child of that root thread: it shares the root's approval
    and question waiters (the user answers through the root's UI) and announces nothing.
    Raises `SessionOpenError`.
    """
    source = None if isinstance(origin, NewThread) else await _read(origin.path)
    ctx = settings(source.state.turn_context if source is not None else None)
    thread_id, rollout = await _open_rollout(host.services, origin, ctx, source)
    try:
        state = source.state if source is not None else None
        if isinstance(origin, ForkedThread) and rollout is not None:
            # A fork continues from its own file.
            state = (await _read(rollout.path)).state
        session = _session(host, thread_id, ctx, origin, state, rollout, root)
    except BaseException:
        if rollout is not None:
            rollout.close()
        raise
    if prepare is not None:
        prepare(session, state)
    for extension in host.services.extensions:
        try:
            await extension.session_started(session, sub_id)
        except Exception as err:  # A feature that cannot start must not stop the session.
            session.warn_once(sub_id, f"{extension.name} is unavailable: {err}")
    if root is None:
        # The answer to the op that opened the thread, not a line of the thread.
        session.reply(sub_id, _configured(session, state, rollout))
    # After session_configured, which front doors wait for as the first answer to configure.
    for warning in source.warnings if source is not None else []:
        session.warn_once(sub_id, warning)
    if root is None:
        options = sandbox_options(host.services.config, host.services.codex_home)
        sandbox_warning = session_sandbox_warning(ctx.sandbox_policy, options)
        if sandbox_warning is not None:
            session.warn_once(sub_id, sandbox_warning)
    return session


@dataclass(frozen=True)
class _Read:
    state: ResumedState
    # Lines that could not be read back; the user hears of each once.
    warnings: list[str]


async def _read(path: Path) -> _Read:
    try:
        contents = await anyio.to_thread.run_sync(read_rollout, path)
    except OSError as err:
        raise SessionOpenError(f"cannot read thread {path}: {err.strerror}") from err
    state = reconstruct_history(contents.lines)
    if state.meta is None:
        raise SessionOpenError(f"{path} is not a thread rollout")
    return _Read(state, contents.warnings)


async def _open_rollout(
    services: EngineServices, origin: ThreadOrigin, ctx: TurnContext, source: _Read | None
) -> tuple[str, RolloutRecorder | None]:
    """The thread's id and the recorder its lines go to (None: nothing is recorded)."""
    if isinstance(origin, NewThread):
        if origin.ephemeral:
            return origin.thread_id, None
        meta = _session_meta(ctx, origin)
        return origin.thread_id, RolloutRecorder.create(services.codex_home, origin.thread_id, meta)
    if isinstance(origin, ResumedThread):
        assert source is not None and source.state.meta is not None
        thread_id = str(source.state.meta["id"])
        if origin.ephemeral:
            return thread_id, None
        try:
            return thread_id, RolloutRecorder.open_existing(origin.path)
        except RolloutInUseError as err:
            raise SessionOpenError(str(err)) from err
    fork = partial(
        fork_thread,
        services.codex_home,
        origin.path,
        origin.thread_id,
        keep_turns=origin.keep_turns,
        up_to_response_id=origin.up_to_response_id,
        meta_updates=origin.meta_updates,
    )
    return origin.thread_id, await anyio.to_thread.run_sync(fork)


def _session_meta(ctx: TurnContext, origin: NewThread) -> dict[str, Any]:
    return {
        "cwd": str(ctx.cwd),
        "originator": "codex_lsp",
        "cli_version": __version__,
        "source": origin.source,
        "model_provider": ctx.provider_id,
        **origin.meta,
        "base_instructions": {"text": ctx.base_instructions} if ctx.base_instructions else None,
    }


def _session(
    host: SessionHost,
    thread_id: str,
    ctx: TurnContext,
    origin: ThreadOrigin,
    state: ResumedState | None,
    rollout: RolloutRecorder | None,
    root: Session | None,
) -> Session:
    session = Session(
        thread_id=thread_id,
        ctx=ctx,
        emit=host.emit,
        task_group=host.task_group,
        workspace=host.workspace,
        editor=host.editor,
        services=host.services,
        history=(
            ConversationHistory(state.history, state.bookmarks)
            if state is not None
            else ConversationHistory()
        ),
        rollout=rollout,
        persist_filter=should_persist_event,
        backlog=host.backlog,
        drained=host.drained,
    )
    if root is not None:
        # Approvals and questions reach the user through the root thread's UI; sharing its
        # waiters lets the user's answer to the root find the child that asked.
        session.approvals = root.approvals
        session.answers = root.answers
    if state is not None:
        # The model already saw its context in the restored history.
        session.context_seen = ctx if state.history else None
        _restore_usage(session, state.token_info, state.rate_limits)
        session.thread_name = state.thread_name
        session.goal = state.goal
    elif isinstance(origin, NewThread) and origin.history:
        session.record_items(origin.history)
        session.context_seen = ctx
    return session


def _restore_usage(
    session: Session, info: dict[str, Any] | None, limits: dict[str, Any] | None
) -> None:
    if info:
        session.total_usage = TokenUsage.model_validate(info.get("total_token_usage") or {})
        session.last_usage = TokenUsage.model_validate(info.get("last_token_usage") or {})
    if limits:
        session.rate_limits = RateLimitSnapshot.model_validate(limits)


def _configured(
    session: Session, state: ResumedState | None, rollout: RolloutRecorder | None
) -> SessionConfiguredEvent:
    ctx = session.ctx
    return SessionConfiguredEvent(
        session_id=session.thread_id,
        forked_from_id=state.meta.get("forked_from_id") if state and state.meta else None,
        thread_name=session.thread_name,
        model=ctx.model,
        model_provider_id=ctx.provider_id,
        approval_policy=ctx.approval_policy,
        sandbox_policy=ctx.sandbox_policy,
        cwd=str(ctx.cwd),
        reasoning_effort=ctx.effort,
        history_entry_count=len(session.history),
        initial_messages=state.events if state is not None else None,
        rollout_path=str(rollout.path) if rollout is not None else None,
    )
