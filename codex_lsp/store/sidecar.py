"""Append-only JSON-lines sidecar files under `$CODEX_HOME` (thread metadata, read state).

Each change is one line written with a single `O_APPEND` write, so writers in several
processes never interleave inside a line, and readers take the last line for an id.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def append_line(path: Path, entry: dict[str, Any]) -> None:
    """Append `entry` to `path` (0600, created with its folder when missing) as one line."""
    data = (json.dumps(entry, separators=(",", ":")) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
