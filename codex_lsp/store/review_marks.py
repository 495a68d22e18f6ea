"""Which review findings the user has settled, kept across restarts of the server.

A review's findings live in its thread's rollout (`exited_review_mode`); whether the user since
fixed one (a Fix that was applied) or dismissed it is told here, in the append-only sidecar
`$CODEX_HOME/review_findings.jsonl`: one `{"thread_id", "finding_id", "resolution", "at"}` line
per settled finding. A finding id names its review's turn, so a later review starts clean.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Literal

MARKS_FILENAME = "review_findings.jsonl"

Resolution = Literal["fixed", "dismissed"]


def marks_path(home: Path) -> Path:
    return home / MARKS_FILENAME


def mark_finding(home: Path, thread_id: str, finding_id: str, resolution: Resolution) -> None:
    """Record that `finding_id` of `thread_id`'s review is settled."""
    entry = {
        "thread_id": thread_id,
        "finding_id": finding_id,
        "resolution": resolution,
        "at": int(time.time()),
    }
    data = (json.dumps(entry, separators=(",", ":")) + "\n").encode()
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(marks_path(home), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        # One write with O_APPEND: two servers marking at once never interleave inside a line.
        os.write(fd, data)
    finally:
        os.close(fd)


def settled_findings(home: Path, thread_id: str) -> dict[str, Resolution]:
    """The settled findings of `thread_id`, by finding id (a damaged line is skipped)."""
    try:
        text = marks_path(home).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    settled: dict[str, Resolution] = {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("thread_id") != thread_id:
            continue
        finding, resolution = entry.get("finding_id"), entry.get("resolution")
        if isinstance(finding, str) and resolution in ("fixed", "dismissed"):
            settled[finding] = resolution
    return settled
