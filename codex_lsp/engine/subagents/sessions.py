"""Child Sessions: new, forked from the parent's history, or woken from a rollout after resume.

A child is a full `Session` in the root's process and task group, with its own history and
rollout (its `session_meta.source` names the parent thread). Its events go to the subagent
tree, not to the UI; the user still answers its approvals and questions through the root
thread, whose waiters it shares.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from codex_lsp import __version__
from codex_lsp.engine.history import CALL_TYPES, OUTPUT_TYPES, ConversationHistory
from codex_lsp.engine.session import Session
from codex_lsp.engine.subagents.activity import lines_from_persisted
from codex_lsp.engine.subagents.agent import Subagent
from codex_lsp.engine.tools.base import ToolError
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.protocol.events import Event
from codex_lsp.store.fork import fork_thread
from codex_lsp.store.history import reconstruct_history
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.persist import should_persist_event
from codex_lsp.store.rollout import RolloutRecorder, read_rollout

log = logging.getLogger(__name__)

Observer = Callable[[Event], None]


def spawn_source(parent_session_id: str, child: Subagent) -> dict[str, Any]:
    """The `session_meta.source` of a child thread, as Codex records thread spawns."""
    spawn: dict[str, Any] = {"parent_thread_id": parent_session_id, "depth": child.depth}
    if child.label:
        spawn["agent_nickname"] = child.label
    return {"subagent": {"thread_spawn": spawn}}


def _meta(ctx: TurnContext, parent: Session, child: Subagent, forked: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "cwd": str(ctx.cwd),
        "originator": "codex_lsp",
        "cli_version": __version__,
        "source": spawn_source(parent.thread_id, child),
        "model_provider": ctx.provider_id,
        "agent_nickname": child.label,
        "base_instructions": {"text": ctx.base_instructions} if ctx.base_instructions else None,
    }
    if forked:
        meta["forked_from_id"] = parent.thread_id
    return meta


def forked_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The parent's history without calls still waiting for output (the spawn call itself)."""
    answered = {item.get("call_id") for item in items if item.get("type") in OUTPUT_TYPES}
    return [
        dict(item)
        for item in items
        if not (item.get("type") in CALL_TYPES and item.get("call_id") not in answered)
    ]


def developer_note(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": text}],
    }


def _session(
    root: Session,
    observe: Observer,
    thread_id: str,
    ctx: TurnContext,
    history: list[dict[str, Any]] | None,
    rollout: RolloutRecorder | None,
) -> Session:
    session = Session(
        thread_id=thread_id,
        ctx=replace(ctx, output_schema=None),
        emit=observe,
        task_group=root.task_group,
        workspace=root.workspace,
        editor=root.editor,
        services=root.services,
        history=ConversationHistory(history),
        rollout=rollout,
        persist_filter=should_persist_event,
    )
    # Approvals and questions reach the user through the root thread's UI; sharing its waiters
    # lets the user's answer to the root find the child that asked.
    session.approvals = root.approvals
    session.answers = root.answers
    return session


def create_child_session(
    root: Session,
    parent: Session,
    child: Subagent,
    ctx: TurnContext,
    observe: Observer,
    *,
    fork: bool,
    role_note: str,
) -> Session:
    """A new child session; an ephemeral root (no rollout) gets ephemeral children."""
    rollout = None
    if root.rollout_path is not None:
        meta = _meta(ctx, parent, child, fork)
        rollout = RolloutRecorder.create(root.services.codex_home, child.session_id, meta)
        child.rollout_path = str(rollout.path)
    session = _session(root, observe, child.session_id, ctx, None, rollout)
    if fork:
        # The copied history already holds the parent's context: only the role is new.
        session.record_items([*forked_items(parent.history.items), developer_note(role_note)])
        session.context_seen = session.ctx
    return session


async def wake_child_session(
    root: Session, parent_session_id: str, child: Subagent, ctx: TurnContext, observe: Observer
) -> Session:
    """Load a dormant child from its rollout: resumed in place, or forked for a forked root."""
    path = Path(child.rollout_path) if child.rollout_path else None
    if path is None or not path.is_file():
        raise ToolError(
            f"agent {child.agent_id} cannot be resumed: its thread file "
            f"{child.rollout_path or '(none: the thread was ephemeral)'} is gone"
        )
    if child.fork_on_wake:
        new_id = new_thread_id()
        updates = {"source": spawn_source(parent_session_id, child)}
        fork = partial(fork_thread, root.services.codex_home, path, new_id, meta_updates=updates)
        rollout = await anyio.to_thread.run_sync(fork)
        child.session_id, child.rollout_path = new_id, str(rollout.path)
        child.parent_session_id, child.fork_on_wake = parent_session_id, False
    else:
        rollout = RolloutRecorder.open_existing(path)
    try:
        contents = await anyio.to_thread.run_sync(read_rollout, rollout.path)
    except OSError as err:
        rollout.close()
        raise ToolError(f"agent {child.agent_id} cannot be resumed: {err.strerror}") from err
    state = reconstruct_history(contents.lines)
    session = _session(root, observe, child.session_id, ctx, state.history, rollout)
    # The model already saw the child's context in the restored history.
    session.context_seen = session.ctx if state.history else None
    lines, last_message = lines_from_persisted(state.events)
    child.activity.extend(lines)
    child.last_message = child.last_message or last_message
    return session


async def dormant_activity(child: Subagent) -> list[str]:
    """A dormant child's log, read from its rollout without waking it."""
    if not child.rollout_path:
        return []
    try:
        contents = await anyio.to_thread.run_sync(read_rollout, Path(child.rollout_path))
    except OSError:
        return []
    return lines_from_persisted(reconstruct_history(contents.lines).events)[0]


async def start_extensions(session: Session, sub_id: str) -> None:
    """Give a child what every session gets from the extensions (skills, MCP tools...)."""
    for extension in session.services.extensions:
        try:
            await extension.session_started(session, sub_id)
        except Exception as err:  # A feature that cannot start must not stop the child.
            session.warn_once(sub_id, f"{extension.name} is unavailable: {err}")


async def close_child_session(session: Session) -> None:
    """Stop the child's task, then close it as the engine closes any session."""
    from codex_lsp.engine.codex import close_session

    await session.abort_task("interrupted")
    await close_session(session.services, session)
