"""A small append-only sidecar, `$CODEX_HOME/session_index.jsonl`, mapping thread ids to names.

A thread's name is set by an `event_msg` `thread_name_updated` that can sit anywhere in its
rollout, so finding it would mean reading whole files while listing. The recorder also appends
`{"id", "thread_name", "updated_at"}` here (the shape Codex uses for the same file), and listing
reads this one file instead. The last entry for an id wins.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

INDEX_FILENAME = "session_index.jsonl"

_lock = threading.Lock()
# path -> (bytes consumed, names). The file only grows, so a reload reads just the new tail.
_cache: dict[Path, tuple[int, dict[str, str]]] = {}


def index_path(home: Path) -> Path:
    return home / INDEX_FILENAME


def append_thread_name(home: Path, thread_id: str, name: str) -> None:
    """Record `name` as the latest name of `thread_id`."""
    now = datetime.now(UTC)
    entry = {
        "id": thread_id,
        "thread_name": name,
        "updated_at": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
    }
    data = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(index_path(home), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        # One write with O_APPEND: concurrent writers never interleave inside a line.
        os.write(fd, data)
    finally:
        os.close(fd)


def load_thread_names(home: Path) -> dict[str, str]:
    """Every named thread's latest name. Corrupt lines are ignored."""
    path = index_path(home)
    try:
        size = path.stat().st_size
    except OSError:
        return {}
    with _lock:
        consumed, names = _cache.get(path, (0, {}))
        if size < consumed:  # rewritten or truncated: start over
            consumed, names = 0, {}
        if size == consumed:
            return dict(names)
        names = dict(names)
        try:
            with open(path, "rb") as handle:
                handle.seek(consumed)
                chunk = handle.read(size - consumed)
        except OSError:
            return names
        # Leave a partial last line (a writer mid-append) for the next call.
        end = chunk.rfind(b"\n") + 1
        for raw in chunk[:end].splitlines():
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if isinstance(entry, dict):
                tid, name = entry.get("id"), entry.get("thread_name")
                if isinstance(tid, str) and isinstance(name, str):
                    names[tid] = name
        _cache[path] = (consumed + end, names)
        return dict(names)
