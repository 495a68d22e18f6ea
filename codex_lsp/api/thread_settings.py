"""`thread/settings/update`: change what a loaded thread's next turns run with, between turns.

The same overrides as `turn/start` (cwd, approval and sandbox policy, model, effort, summary,
personality), applied without starting a turn; `thread/settings/updated` follows the answer when
anything changed. Settings this engine has no counterpart for are refused by name rather than
dropped: named permission profiles and execution environments. A `collaborationMode` of
"plan" puts the thread in Plan mode (read-only exploration ending with a plan) until one of
"default" takes it out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_lsp.api.convert import approval_to_core, effort_to_core, invalid, sandbox_to_core
from codex_lsp.api.family import ApiContext, Handler
from codex_lsp.api.turns import settings_after, settings_of
from codex_lsp.protocol.ops import OverrideTurnContext
from codex_lsp.protocol.v2_thread_ops import (
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


def handlers(ctx: ApiContext) -> dict[str, Handler]:
    return {"thread/settings/update": ThreadSettingsUpdater(ctx).update}
