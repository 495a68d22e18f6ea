"""`thread/sessionApprovals/list` and `thread/sessionApprovals/revoke` (ours, not the reference's).

A loaded thread's engine session keeps the answers given "for this session"
(`ApprovalCache`); these methods show them to the user and take one back. An id names one
remembered answer for as long as it is remembered; a thread that is not loaded remembers none.
"""

from __future__ import annotations

import hashlib
from typing import Any

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.threads import store as thread_store
from codex_lsp.engine.approvals import ApprovalCache, RememberedApproval
from codex_lsp.protocol.threads.session_approvals import (
    THREAD_SESSION_APPROVALS_LIST,
    THREAD_SESSION_APPROVALS_REVOKE,
    SessionApproval,
    ThreadSessionApprovalsListParams,
    ThreadSessionApprovalsListResponse,
    ThreadSessionApprovalsRevokeParams,
    ThreadSessionApprovalsRevokeResponse,
)


def _wire(entry: RememberedApproval) -> SessionApproval:
    digest = hashlib.sha256(f"{entry.kind}\0{entry.key}".encode()).hexdigest()
    return SessionApproval(id=digest[:12], kind=entry.kind, description=entry.description)


class SessionApprovals:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx

    def _cache(self, thread_id: str) -> ApprovalCache | None:
        thread = self._ctx.threads.loaded.get(thread_id)
        if thread is None:
            raise thread_store.not_found(thread_id)
        session = thread.codex.session
        return session.approval_cache if session is not None else None

    async def list(
        self, params: ThreadSessionApprovalsListParams, _raw: dict[str, Any]
    ) -> ThreadSessionApprovalsListResponse:
        cache = self._cache(params.thread_id)
        remembered = cache.remembered() if cache is not None else []
        return ThreadSessionApprovalsListResponse(approvals=[_wire(e) for e in remembered])

    async def revoke(
        self, params: ThreadSessionApprovalsRevokeParams, _raw: dict[str, Any]
    ) -> ThreadSessionApprovalsRevokeResponse:
        cache = self._cache(params.thread_id)
        for entry in cache.remembered() if cache is not None else []:
            shown = _wire(entry)
            if shown.id == params.id and cache is not None and cache.forget(entry.kind, entry.key):
                return ThreadSessionApprovalsRevokeResponse(revoked=shown)
        return ThreadSessionApprovalsRevokeResponse(revoked=None)


def handlers(ctx: ApiContext) -> Routes:
    approvals = SessionApprovals(ctx)
    return (
        Routes()
        .on(THREAD_SESSION_APPROVALS_LIST, approvals.list)
        .on(THREAD_SESSION_APPROVALS_REVOKE, approvals.revoke)
    )
