"""Child Sessions: new, forked from the parent's history, or woken from a rollout after resume.

A child is a full `Session` in the root's process and task group, opened like any session
(`open_session`), with its own history and rollout (its `session_meta.source` names the parent
thread). Its events go to the subagent tree, not to the UI; the user still answers its
approvals and questions through the root thread, whose waiters it shares, and the root's
client's lag throttles its live output as it does the root's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.engine.history import CALL_TYPES, OUTPUT_TYPES
from codex_lsp.engine.session import Session
from codex_lsp.engine.session_open import (
    ForkedThread,
    NewThread,
    Prepare,
    ResumedThread,
    SessionHost,
    SessionOpenError,
    Settings,
    ThreadOrigin,
    open_session,
)
from codex_lsp.engine.subagents.activity import lines_from_persisted
from codex_lsp.engine.subagents.agent import Subagent
from codex_lsp.engine.tools.base import ToolError
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.protocol.core.events import Event
from codex_lsp.protocol.core.response_items import MessageItem, ResponseItem, response_item
from codex_lsp.store.history import ResumedState, reconstruct_history
from codex_lsp.store.home import new_thread_id
from codex_lsp.store.rollout import read_rollout

log = logging.getLogger(__name__)

Observer = Callable[[Event], None]


def spawn_source(parent_session_id: str, child: Subagent) -> dict[str, Any]:
    """The `session_meta.source` of a child thread, as Codex records thread spawns."""
    spawn: dict[str, Any] = {"parent_thread_id": parent_session_id, "depth": child.depth}
    if child.agent_path:
        spawn["agent_path"] = child.agent_path
    if child.label:
        spawn["agent_nickname"] = child.label
    return {"subagent": {"thread_spawn": spawn}}


def forked_items(items: list[ResponseItem]) -> list[ResponseItem]:
    """The parent's history without calls still waiting for output (the spawn call itself)."""
    answered = {item.get("call_id") for item in items if item.get("type") in OUTPUT_TYPES}
    return [
        response_item(dict(item))
        for item in items
        if not (item.get("type") in CALL_TYPES and item.get("call_id") not in answered)
    ]


def developer_note(text: str) -> MessageItem:
    return {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": text}],
    }


def _settings(ctx: TurnContext) -> Settings:
    # A child's settings are the spawner's, whatever its rollout last recorded; an output
    # schema belongs to the turn that asked for it, never to a child.
    child_ctx = replace(ctx, output_schema=None)
    return lambda _recorded: child_ctx


async def open_child_session(
    root: Session,
    parent: Session,
    child: Subagent,
    ctx: TurnContext,
    observe: Observer,
    *,
    fork: bool,
    role_note: str,
    prepare: Prepare,
) -> Session:
    """A new child session; an ephemeral root (no rollout) gets ephemeral children."""
    meta: dict[str, Any] = {"agent_nickname": child.label}
    if fork:
        meta["forked_from_id"] = parent.thread_id
    origin = NewThread(
        child.session_id,
        source=spawn_source(parent.thread_id, child),
        meta=meta,
        # The copied history already holds the parent's context: only the role is new.
        history=[*forked_items(parent.history.items), developer_note(role_note)] if fork else [],
        ephemeral=root.rollout_path is None,
    )

    def opened(session: Session, restored: ResumedState | None) -> None:
        if session.rollout_path is not None:
            child.rollout_path = str(session.rollout_path)
        prepare(session, restored)

    return await open_session(
        SessionHost.child_of(root, observe),
        child.origin_sub_id,
        origin,
        _settings(ctx),
        root=root,
        prepare=opened,
    )


async def wake_child_session(
    root: Session,
    parent_session_id: str,
    child: Subagent,
    ctx: TurnContext,
    observe: Observer,
    *,
    prepare: Prepare,
) -> Session:
    """Load a dormant child from its rollout: resumed in place, or forked for a forked root.

    Its log gets the lines of what it did before, ahead of anything it does now."""
    path = Path(child.rollout_path) if child.rollout_path else None
    if path is None or not path.is_file():
        raise ToolError(
            f"agent {child.agent_id} cannot be resumed: its thread file "
            f"{child.rollout_path or '(none: the thread was ephemeral)'} is gone"
        )
    origin: ThreadOrigin = ResumedThread(path)
    if child.fork_on_wake:
        updates = {"source": spawn_source(parent_session_id, child)}
        origin = ForkedThread(path, new_thread_id(), meta_updates=updates)

    def restored(session: Session, state: ResumedState | None) -> None:
        if isinstance(origin, ForkedThread):
            child.session_id, child.rollout_path = origin.thread_id, str(session.rollout_path)
            child.parent_session_id, child.fork_on_wake = parent_session_id, False
        lines, last_message = lines_from_persisted(state.events if state is not None else [])
        child.activity.extend(lines)
        child.last_message = child.last_message or last_message
        prepare(session, state)

    host = SessionHost.child_of(root, observe)
    try:
        return await open_session(
            host, child.origin_sub_id, origin, _settings(ctx), root=root, prepare=restored
        )
    except SessionOpenError as err:
        raise ToolError(f"agent {child.agent_id} cannot be resumed: {err}") from err


async def dormant_activity(child: Subagent) -> list[str]:
    """A dormant child's log, read from its rollout without waking it."""
    if not child.rollout_path:
        return []
    try:
        contents = await anyio.to_thread.run_sync(read_rollout, Path(child.rollout_path))
    except OSError:
        return []
    return lines_from_persisted(reconstruct_history(contents.lines).events)[0]


async def close_child_session(session: Session) -> None:
    """Stop the child's task, then close it as the engine closes any session."""
    from codex_lsp.engine.codex import close_session

    await session.abort_task("interrupted")
    await close_session(session.services, session)
