"""Fork a thread: a new rollout holding a thread's lines up to a chosen turn or response.

The fork gets a new id and `forked_from_id` in its `session_meta`; both threads then go on
independently. If the cut falls inside a turn, a `turn_aborted` marker closes that turn so a
reader does not see it as still running.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codex_lsp.store.rollout import (
    EVENT_MSG,
    RESPONSE_ITEM,
    SESSION_META,
    TURN_CONTEXT,
    RolloutLine,
    RolloutRecorder,
    read_rollout,
    utc_timestamp,
)

_TURN_START_EVENTS = frozenset({"task_started", "turn_started"})
_TURN_END_EVENTS = frozenset({"task_complete", "turn_complete", "turn_aborted"})


def _event_type(line: RolloutLine) -> str | None:
    if line.type == EVENT_MSG and isinstance(line.payload, dict):
        kind = line.payload.get("type")
        return kind if isinstance(kind, str) else None
    return None


def _opens_turn(line: RolloutLine) -> bool:
    """Lines recorded around a user turn's start, before or after its `user_message` event."""
    if line.type == TURN_CONTEXT:
        return True
    if _event_type(line) in _TURN_START_EVENTS:
        return True
    payload = line.payload
    return (
        line.type == RESPONSE_ITEM
        and isinstance(payload, dict)
        and payload.get("type") == "message"
        and payload.get("role") in ("user", "developer")
    )


def _turn_start_index(lines: list[RolloutLine], user_event_index: int) -> int:
    start = user_event_index
    while start > 0 and _opens_turn(lines[start - 1]):
        start -= 1
    return start


def fork_lines(
    lines: list[RolloutLine],
    *,
    keep_turns: int | None = None,
    up_to_response_id: str | None = None,
) -> list[RolloutLine]:
    """The lines a fork starts from, without the source's `session_meta` and name events.

    `keep_turns` keeps the first N user turns (the fork starts before turn N+1);
    `up_to_response_id` keeps everything through the response item with that `id`. With
    neither, the whole thread is kept. Raises `ValueError` if the response id is not found.
    """
    cut = len(lines)
    if keep_turns is not None:
        seen = 0
        for index, line in enumerate(lines):
            if _event_type(line) == "user_message":
                if seen == keep_turns:
                    cut = _turn_start_index(lines, index)
                    break
                seen += 1
    if up_to_response_id is not None:
        for index, line in enumerate(lines[:cut]):
            if _marks_response(line, up_to_response_id):
                cut = index + 1
                break
        else:
            raise ValueError(f"no response item with id {up_to_response_id!r} in the thread")
    kept = [
        line
        for line in lines[:cut]
        if line.type != SESSION_META and _event_type(line) != "thread_name_updated"
    ]
    open_turn = _open_turn_id(kept)
    if open_turn is not False:
        marker: dict[str, Any] = {"type": "turn_aborted", "reason": "interrupted"}
        if open_turn is not None:
            marker["turn_id"] = open_turn
        kept.append(RolloutLine(utc_timestamp(), EVENT_MSG, marker))
    return kept


def _marks_response(line: RolloutLine, response_id: str) -> bool:
    """A response item with that id, or the end of a turn whose last response it was."""
    payload = line.payload
    if not isinstance(payload, dict):
        return False
    if line.type == RESPONSE_ITEM:
        return payload.get("id") == response_id
    return _event_type(line) in _TURN_END_EVENTS and payload.get("response_id") == response_id


def _open_turn_id(lines: list[RolloutLine]) -> str | bool | None:
    """The id (or None if unknown) of a turn started but not ended; False if none is open."""
    for line in reversed(lines):
        kind = _event_type(line)
        if kind in _TURN_END_EVENTS:
            return False
        if kind in _TURN_START_EVENTS:
            turn_id = line.payload.get("turn_id")
            return turn_id if isinstance(turn_id, str) else None
    return False


def fork_thread(
    codex_home: Path,
    source: Path,
    new_thread_id: str,
    *,
    keep_turns: int | None = None,
    up_to_response_id: str | None = None,
    meta_updates: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> RolloutRecorder:
    """Write a new rollout forked from `source`; returns its recorder, open for the next turn.

    The new `session_meta` is the source's with the new id, `forked_from_id`, a fresh
    timestamp and `meta_updates` applied. Copied lines keep their original timestamps.
    """
    contents = read_rollout(source)
    if contents.meta is None:
        raise ValueError(f"{source} has no session_meta; cannot fork it")
    kept = fork_lines(contents.lines, keep_turns=keep_turns, up_to_response_id=up_to_response_id)
    created = now or datetime.now(UTC)
    meta = dict(contents.meta)
    meta.update(meta_updates or {})
    meta["id"] = new_thread_id
    meta["forked_from_id"] = contents.meta.get("id")
    meta["timestamp"] = utc_timestamp(created)
    recorder = RolloutRecorder.create(codex_home, new_thread_id, meta, now=created)
    try:
        for line in kept:
            recorder.record_line(line)
        recorder.sync()
    except BaseException:
        recorder.close()
        raise
    return recorder
