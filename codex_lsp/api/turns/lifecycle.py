"""`turn/start` and `turn/interrupt` on a loaded thread.

A turn's id is chosen here and used as the engine's submission id, so every event the turn
causes carries it. `turn/start` sends a `user_turn` op with the thread's current settings and
the request's overrides; the engine keeps them for later turns, which is what v2 promises.

When the overrides change what the thread runs with, `thread/settings/updated` says so before
the answer. `turn/interrupt` answers once the turn has stopped (its last usage report is out)
and before `turn/completed`, as the reference server does; a turn not running is an error.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from codex_lsp.api.convert import (
    approval_to_core,
    effort_to_core,
    invalid,
    sandbox_to_core,
    user_input_to_core,
)
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.api.threads.settings import settings_from, settings_of
from codex_lsp.protocol.core.editor_tasks import Attachment, EditorTask
from codex_lsp.protocol.core.inputs import CollaborationModeKind, Personality, ReasoningSummary
from codex_lsp.protocol.core.ops import Interrupt, UserTurn
from codex_lsp.protocol.threads.ops import (
    CollaborationMode,
    ThreadSettingsUpdatedNotification,
)
from codex_lsp.protocol.turns.items import UserInput
from codex_lsp.protocol.turns.models import (
    Turn,
    TurnInterruptParams,
    TurnStartParams,
    TurnStartResponse,
)
from codex_lsp.store.home import new_thread_id

log = logging.getLogger(__name__)


async def start_turn(thread: LoadedThread, params: TurnStartParams) -> TurnStartResponse:
    if not params.input:
        raise invalid("input", "a turn needs at least one input item")
    overrides = TurnOverrides(
        cwd=params.cwd,
        approval_policy=params.approval_policy,
        sandbox_policy=params.sandbox_policy,
        model=params.model,
        effort=params.effort,
        summary=params.summary,
        personality=params.personality,
        output_schema=params.output_schema if isinstance(params.output_schema, dict) else None,
        collaboration_mode=collaboration_mode(params.collaboration_mode),
    )
    return await submit_turn(thread, list(params.input), overrides)


def collaboration_mode(raw: Any) -> CollaborationModeKind | None:
    """The mode a request's `collaborationMode` asks for; None when it names none."""
    if raw is None:
        return None
    try:
        return CollaborationMode.model_validate(raw).mode
    except ValidationError as err:
        problem = err.errors()[0]["msg"]
        raise invalid("collaborationMode", f"expected {{mode, settings}}: {problem}") from None


@dataclass(frozen=True)
class TurnOverrides:
    """What a request changes of the thread's settings, from this turn on (None: unchanged)."""

    cwd: str | None = None
    approval_policy: Any = None
    sandbox_policy: Any = None
    model: str | None = None
    effort: str | None = None
    summary: ReasoningSummary | None = None
    personality: Personality | None = None
    output_schema: dict[str, Any] | None = None
    collaboration_mode: CollaborationModeKind | None = None


async def submit_turn(
    thread: LoadedThread,
    shown: list[UserInput],
    overrides: TurnOverrides,
    *,
    attachments: list[Attachment] | None = None,
    task: EditorTask | None = None,
) -> TurnStartResponse:
    """Start a turn whose visible input is `shown`, with the editor's attachments and task."""
    session = thread.codex.session
    if session is None or thread.map is None:
        raise invalid("threadId", f"thread {thread.thread_id} has no running session")
    items = user_input_to_core(shown)
    ctx = session.ctx
    cwd = ctx.cwd
    if overrides.cwd is not None:
        cwd = Path(overrides.cwd)
        if not cwd.is_absolute() or not cwd.is_dir():
            raise invalid("cwd", f"must be an existing absolute directory, got {overrides.cwd!r}")
    op = UserTurn(
        items=items,
        cwd=str(cwd),
        approval_policy=approval_to_core(overrides.approval_policy) or ctx.approval_policy,
        sandbox_policy=sandbox_to_core(overrides.sandbox_policy) or ctx.sandbox_policy,
        model=overrides.model or ctx.model,
        effort=effort_to_core(overrides.effort) or ctx.effort,
        summary=overrides.summary or ctx.summary,
        personality=overrides.personality or ctx.personality,
        final_output_json_schema=overrides.output_schema,
        attachments=attachments or [],
        task=task,
        collaboration_mode=overrides.collaboration_mode,
    )
    settings = settings_from(op, ctx)
    if settings != settings_of(ctx):
        update = ThreadSettingsUpdatedNotification(
            thread_id=thread.thread_id, thread_settings=settings
        )
        thread.client.notify("thread/settings/updated", update)
    # A UUIDv7, like thread ids: unique, and ordered by when the turn began.
    turn_id = new_thread_id()
    thread.map.expect_turn(turn_id, shown)
    await thread.submit(op, sub_id=turn_id)
    # Returning without another await keeps this response ahead of `turn/started` on the wire.
    return TurnStartResponse(turn=Turn(id=turn_id, status="inProgress", items_view="notLoaded"))


NO_ACTIVE_TURN = "no active turn to interrupt"
# How long an interrupt waits for the turn to wind down before answering anyway.
STOP_WAIT_S = 30.0


async def interrupt_turn(thread: LoadedThread, params: TurnInterruptParams) -> None:
    """Stop the running turn `params.turn_id`; the caller releases the map's held ending
    (`ThreadEventMap.release_finish`) once the answer is out."""
    event_map = thread.map
    assert event_map is not None
    if event_map.is_expected(params.turn_id):
        # Started but not yet begun: the engine takes ops in order, so this stops it.
        await thread.submit(Interrupt())
        return
    if event_map.active_turn_id != params.turn_id:
        raise ApiError(INVALID_REQUEST, NO_ACTIVE_TURN)
    stopped = anyio.Event()
    event_map.hold_finish(params.turn_id, stopped)
    await thread.submit(Interrupt())
    with anyio.move_on_after(STOP_WAIT_S):
        await stopped.wait()
    if not stopped.is_set():
        log.warning("turn %s did not stop within %ss", params.turn_id, STOP_WAIT_S)
