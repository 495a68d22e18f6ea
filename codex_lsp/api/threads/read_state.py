"""Whether the user has read a thread: `thread/readState/update`, the `readState` of
`thread/read` and the `readStates` of `thread/list`, and `thread/readState/changed` after a turn.

The state lives in `$CODEX_HOME` (`store.read_state`), so every door and every process sees the
same one. A turn that ends with something to read makes a read thread unread from that turn;
marking names the revision the client saw, and a stale revision is refused with the current
state, as the reference server does.
"""

from __future__ import annotations

from typing import Any

import anyio

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.api.threads import store as thread_store
from codex_lsp.api.threads.unread import wire
from codex_lsp.protocol.threads.read_state import (
    THREAD_READ_STATE_UPDATE,
    ThreadReadStateChangedNotification,
    ThreadReadStateUpdateParams,
    ThreadReadStateUpdateResponse,
)
from codex_lsp.store import read_state as store
from codex_lsp.store.rollout_files import find_rollout


class ReadStates:
    def __init__(self, ctx: ApiContext) -> None:
        self._ctx = ctx

    async def update(
        self, params: ThreadReadStateUpdateParams, _raw: dict[str, Any]
    ) -> ThreadReadStateUpdateResponse:
        home = self._ctx.services().codex_home
        if params.thread_id not in self._ctx.threads.loaded:
            found = await anyio.to_thread.run_sync(find_rollout, home, params.thread_id)
            if found is None:
                raise thread_store.not_found(params.thread_id)
        try:
            state = await anyio.to_thread.run_sync(
                store.mark, home, params.thread_id, params.operation.type, params.expected_revision
            )
        except store.ReadStateConflict as conflict:
            current = wire(conflict.current).model_dump(mode="json")
            raise ApiError(
                INVALID_REQUEST,
                "read state changed",
                {"reason": "readStateConflict", "readState": current},
            ) from None
        changed = ThreadReadStateChangedNotification(
            thread_id=params.thread_id, read_state=wire(state)
        )
        self._ctx.after_response("thread/readState/changed", changed)
        return ThreadReadStateUpdateResponse(read_state=wire(state))


def handlers(ctx: ApiContext) -> Routes:
    return Routes().on(THREAD_READ_STATE_UPDATE, ReadStates(ctx).update)
