"""Thread metadata set after the fact (`thread/metadata/update`), in a sidecar file.

`$CODEX_HOME/thread_metadata.jsonl` is append-only: each line is `{"id", "git", "updated_at"}`
with the thread's whole Git metadata after a change (`null` once cleared), and the last line
for an id wins. A rollout's own `session_meta` is never rewritten: it is the record of how the
thread began.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codex_lsp.store.sidecar import append_line

METADATA_FILENAME = "thread_metadata.jsonl"
_MISSING = object()


def metadata_path(home: Path) -> Path:
    return home / METADATA_FILENAME


def record_git(home: Path, thread_id: str, git: dict[str, Any] | None) -> None:
    """Record `git` (`sha`, `branch`, `origin_url`; None for none) as the thread's Git metadata."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    entry = {"id": thread_id, "git": git, "updated_at": now}
    append_line(metadata_path(home), entry)


def load_git(home: Path) -> dict[str, dict[str, Any] | None]:
    """Every thread whose Git metadata was set here, and what it is now. Bad lines are skipped."""
    try:
        text = metadata_path(home).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    found: dict[str, dict[str, Any] | None] = {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        git = entry.get("git", _MISSING)
        if git is None or isinstance(git, dict):
            found[entry["id"]] = git
    return found
