"""What a thread has left to read, as the wire says it: the store's read marks as v2
`ThreadReadState`s, and the mark a finished turn leaves."""

from __future__ import annotations

from pathlib import Path

import anyio

from codex_lsp.protocol.threads.read_state import (
    ThreadReadState,
    ThreadReadStateChangedNotification,
    ThreadStartUnreadPosition,
    TurnUnreadPosition,
)
from codex_lsp.store import read_state as store


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
