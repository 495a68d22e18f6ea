"""`thread/settings/update`: change what a loaded thread's next turns run with, between turns.

The same overrides as `turn/start` (cwd, approval and sandbox policy, model, effort, summary,
personality), applied without starting a turn; `thread/settings/updated` follows the answer when
anything changed. The thread's settings as the wire tells them (`settings_of`) are built here
for `turn/start` too. Settings this engine has no counterpart for are refused by name rather than
dropped: named permission profiles and execution environments. A `collaborationMode` of
"plan" puts the thread in Plan mode (read-only exploration ending with a plan) until one of
"default" takes it out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_lsp.api.convert import approval_to_core, effort_to_core, invalid, sandbox_to_core
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.protocol.common import approval_policy_to_v2, sandbox_policy_to_v2
from codex_lsp.protocol.core.ops import OverrideTurnContext, UserTurn
from codex_lsp.protocol.threads.ops import (
    THREAD_SETTINGS_UPDATE,
    CollaborationMode,
    CollaborationModeSettings,
    ThreadSettings,
    ThreadSettingsUpdatedNotification,
    ThreadSettingsUpdateParams,
    ThreadSettingsUpdateResponse,
)


def _refuse_unsupported(params: ThreadSettingsUpdateParams) -> None:
    if params.permissions is not None:
        raise invalid(
            "permissions", "named permission profiles are not supported: set sandboxPolicy"
        )
    if params.environments:
        raise invalid("environments", "execution environments are not supported here")
    if params.approvals_reviewer not in (None, "user"):
        raise invalid("approvalsReviewer", "approvals are reviewed by the user here")


class ThreadSettingsUpdater:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx

    async def update(
        self, params: ThreadSettingsUpdateParams, _raw: dict[str, Any]
    ) -> ThreadSettingsUpdateResponse:
        _refuse_unsupported(params)
        thread = self._ctx.threads.get(params.thread_id)
        session = thread.codex.session
        if session is None:
            raise invalid("threadId", f"thread {params.thread_id} has no running session")
        if params.cwd is not None:
            cwd = Path(params.cwd)
            if not cwd.is_absolute() or not cwd.is_dir():
                raise invalid("cwd", f"must be an existing absolute directory, got {params.cwd!r}")
        mode = params.collaboration_mode
        op = OverrideTurnContext(
            cwd=params.cwd,
            approval_policy=approval_to_core(params.approval_policy),
            sandbox_policy=sandbox_to_core(params.sandbox_policy),
            model=params.model or (mode.settings.model if mode is not None else None),
            effort=effort_to_core(params.effort)
            or (effort_to_core(mode.settings.reasoning_effort) if mode is not None else None),
            summary=params.summary,
            personality=params.personality,
            collaboration_mode=mode.mode if mode is not None else None,
        )
        before = settings_of(session.ctx)
        after = settings_after(session.ctx, op)
        await thread.submit(op)
        if after != before:
            changed = ThreadSettingsUpdatedNotification(
                thread_id=params.thread_id, thread_settings=after
            )
            self._ctx.after_response("thread/settings/updated", changed)
        return ThreadSettingsUpdateResponse()


def handlers(ctx: ApiContext) -> Routes:
    return Routes().on(THREAD_SETTINGS_UPDATE, ThreadSettingsUpdater(ctx).update)


def settings_from(op: UserTurn, ctx: TurnContext) -> ThreadSettings:
    """The thread's settings once `op` applies its overrides to `ctx`."""
    return ThreadSettings(
        cwd=op.cwd,
        approval_policy=approval_policy_to_v2(op.approval_policy),
        sandbox_policy=sandbox_policy_to_v2(op.sandbox_policy),
        model=op.model,
        model_provider=ctx.provider_id,
        effort=op.effort,
        summary=op.summary,
        approvals_reviewer="user",
        collaboration_mode=CollaborationMode(
            mode=op.collaboration_mode or ctx.collaboration_mode,
            settings=CollaborationModeSettings(
                model=op.model,
                reasoning_effort=op.effort,
                developer_instructions=ctx.developer_instructions,
            ),
        ),
        personality=op.personality,
    )


def settings_after(ctx: TurnContext, op: OverrideTurnContext) -> ThreadSettings:
    """The thread's settings once `op` applies to `ctx` (its None fields leave them as they are)."""
    merged = UserTurn(
        items=[],
        cwd=op.cwd or str(ctx.cwd),
        approval_policy=op.approval_policy or ctx.approval_policy,
        sandbox_policy=op.sandbox_policy or ctx.sandbox_policy,
        model=op.model or ctx.model,
        effort=op.effort or ctx.effort,
        summary=op.summary or ctx.summary,
        personality=op.personality or ctx.personality,
        collaboration_mode=op.collaboration_mode or ctx.collaboration_mode,
    )
    return settings_from(merged, ctx)


def settings_of(ctx: TurnContext) -> ThreadSettings:
    current = UserTurn(
        items=[],
        cwd=str(ctx.cwd),
        approval_policy=ctx.approval_policy,
        sandbox_policy=ctx.sandbox_policy,
        model=ctx.model,
        effort=ctx.effort,
        summary=ctx.summary,
        personality=ctx.personality,
        collaboration_mode=ctx.collaboration_mode,
    )
    return settings_from(current, ctx)
