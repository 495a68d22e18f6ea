"""Whether the user has read a thread: its first unread position and a revision, in a sidecar.

`$CODEX_HOME/thread_read_state.jsonl` is append-only: each line is `{"id", "first_unread",
"revision"}`, where `first_unread` is null (read), `"threadStart"`, or the id of the first turn
the user has not seen; the last line for an id wins. A thread never recorded is read, with the
revision `initial:<id>`. Each change draws a new revision, so a client that marks a thread read
or unread names the revision it saw and is refused when something happened since.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codex_lsp.store.sidecar import append_line

READ_STATE_FILENAME = "thread_read_state.jsonl"
THREAD_START = "threadStart"

_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class ReadState:
    """`first_unread`: None when read, `THREAD_START`, or a turn id."""

    first_unread: str | None
    revision: str


class ReadStateConflict(Exception):
    """The revision a client named is not the thread's current one."""

    def __init__(self, current: ReadState) -> None:
        super().__init__("read state changed")
        self.current = current


def _path(home: Path) -> Path:
    return home / READ_STATE_FILENAME


def _initial(thread_id: str) -> ReadState:
    return ReadState(None, f"initial:{thread_id}")


def load_read_states(home: Path) -> dict[str, ReadState]:
    """Every thread recorded here and its state now. Bad lines are skipped."""
    try:
        text = _path(home).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    found: dict[str, ReadState] = {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        thread_id, revision = entry.get("id"), entry.get("revision")
        first = entry.get("first_unread")
        valid_first = first is None or isinstance(first, str)
        if isinstance(thread_id, str) and isinstance(revision, str) and valid_first:
            found[thread_id] = ReadState(first, revision)
    return found


def read_state(home: Path, thread_id: str) -> ReadState:
    return load_read_states(home).get(thread_id) or _initial(thread_id)


def _record(home: Path, thread_id: str, first_unread: str | None) -> ReadState:
    state = ReadState(first_unread, str(uuid.uuid4()))
    entry = {"id": thread_id, "first_unread": first_unread, "revision": state.revision}
    append_line(_path(home), entry)
    return state


def turn_finished(home: Path, thread_id: str, turn_id: str) -> ReadState:
    """A turn ended with something to read: a read thread becomes unread from that turn; an
    unread one keeps its first unread position. Either way the revision changes."""
    with _lock:
        current = read_state(home, thread_id)
        first = current.first_unread if current.first_unread is not None else turn_id
        return _record(home, thread_id, first)


def mark(
    home: Path, thread_id: str, operation: Literal["read", "unread"], expected_revision: str
) -> ReadState:
    """Mark the thread read, or unread from its start; raises `ReadStateConflict` when
    `expected_revision` is not the current one."""
    with _lock:
        current = read_state(home, thread_id)
        if current.revision != expected_revision:
            raise ReadStateConflict(current)
        return _record(home, thread_id, None if operation == "read" else THREAD_START)
