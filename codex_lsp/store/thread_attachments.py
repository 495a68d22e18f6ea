"""Thread attachments (a client's records tied to a thread: a type, an identity key within that
type, and a JSON payload) in a `$CODEX_HOME` sidecar.

`$CODEX_HOME/thread_attachments.jsonl` is append-only; a line is either
`{"thread", "type", "key", "id", "payload", "created_at"}` (added) or
`{"thread", "type", "key", "removed": true}`. Replaying the lines gives each thread's
attachments in the order they were added; adding an identity a thread already holds keeps the
first one. Bad lines are skipped.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_lsp.store.home import new_thread_id
from codex_lsp.store.sidecar import append_line

ATTACHMENTS_FILENAME = "thread_attachments.jsonl"

_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Attachment:
    thread_id: str
    id: str
    type: str
    key: str
    payload: Any
    created_at: int


def _path(home: Path) -> Path:
    return home / ATTACHMENTS_FILENAME


def load_attachments(home: Path) -> list[Attachment]:
    """Every attachment held now, oldest first."""
    try:
        text = _path(home).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    held: dict[tuple[str, str, str], Attachment] = {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        thread_id, kind, key = entry.get("thread"), entry.get("type"), entry.get("key")
        if not (isinstance(thread_id, str) and isinstance(kind, str) and isinstance(key, str)):
            continue
        identity = (thread_id, kind, key)
        if entry.get("removed") is True:
            held.pop(identity, None)
        elif identity not in held and isinstance(entry.get("id"), str):
            stamp = entry.get("created_at")
            held[identity] = Attachment(
                thread_id=thread_id,
                id=entry["id"],
                type=kind,
                key=key,
                payload=entry.get("payload"),
                created_at=stamp if isinstance(stamp, int) else 0,
            )
    return list(held.values())


def _find(home: Path, thread_id: str, kind: str, key: str) -> Attachment | None:
    for attachment in load_attachments(home):
        if (attachment.thread_id, attachment.type, attachment.key) == (thread_id, kind, key):
            return attachment
    return None


def add_attachment(
    home: Path, thread_id: str, kind: str, key: str, payload: Any
) -> tuple[Attachment, bool]:
    """The attachment with this identity on the thread, and whether it was created now."""
    with _lock:
        existing = _find(home, thread_id, kind, key)
        if existing is not None:
            return existing, False
        attachment = Attachment(thread_id, new_thread_id(), kind, key, payload, int(time.time()))
        append_line(
            _path(home),
            {
                "thread": thread_id,
                "type": kind,
                "key": key,
                "id": attachment.id,
                "payload": payload,
                "created_at": attachment.created_at,
            },
        )
    return attachment, True


def remove_attachment(home: Path, thread_id: str, kind: str, key: str) -> Attachment | None:
    """Remove the attachment with this identity; the one removed, or None when none was held."""
    with _lock:
        existing = _find(home, thread_id, kind, key)
        if existing is not None:
            append_line(
                _path(home), {"thread": thread_id, "type": kind, "key": key, "removed": True}
            )
    return existing
