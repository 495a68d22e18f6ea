"""Whether the user has read a thread: `thread/readState/update`, the `readState` of
`thread/read` and the `readStates` of `thread/list`, and `thread/readState/changed` after a turn.

The state lives in `$CODEX_HOME` (`store.read_state`), so every door and every process sees the
same one. A turn that ends with something to read makes a read thread unread from that turn;
marking names the revision the client saw, and a stale revision is refused with the current
state, as the reference server does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from codex_lsp.api import thread_store
from codex_lsp.api.family import ApiContext, Handler
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.protocol.v2_read_state import (
    ThreadReadState,
    ThreadReadStateChangedNotification,
    ThreadReadStateUpdateParams,
    ThreadReadStateUpdateResponse,
    ThreadStartUnreadPosition,
    TurnUnreadPosition,
)
from codex_lsp.store import read_state as store
from codex_lsp.store.rollout_files import find_rollout


def wire(state: store.ReadState) -> ThreadReadState:
    first = state.first_unread
    if first is None:
        return ThreadReadState(first_unread=None, revision=state.revision)
    if first == store.THREAD_START:
        return ThreadReadState(first_unread=ThreadStartUnreadPosition(), revision=state.revision)
    return ThreadReadState(first_unread=TurnUnreadPosition(turn_id=first), revision=state.revision)


def turn_finished(home: Path, thread_id: str, turn_id: str) -> ThreadReadStateChangedNotification:
    """Record that `turn_id` left something to read; the notification that says so."""
    state = store.turn_finished(home, thread_id, turn_id)
    return ThreadReadStateChangedNotification(thread_id=thread_id, read_state=wire(state))


async def of_thread(home: Path, thread_id: str) -> ThreadReadState:
    return wire(await anyio.to_thread.run_sync(store.read_state, home, thread_id))


async def of_threads(home: Path, thread_ids: list[str]) -> dict[str, ThreadReadState]:
    states = await anyio.to_thread.run_sync(store.load_read_states, home)
    return {
        thread_id: wire(states.get(thread_id) or store.ReadState(None, f"initial:{thread_id}"))
        for thread_id in thread_ids
    }


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


def handlers(ctx: ApiContext) -> dict[str, Handler]:
    return {"thread/readState/update": ReadStates(ctx).update}
