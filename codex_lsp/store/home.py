"""Where codex-lsp keeps its state: `$CODEX_HOME` and the rollout directories under it.

Layout (the same as Codex's, so a Codex user's home can be pointed at as is):

    $CODEX_HOME/config.toml
    $CODEX_HOME/auth.json                      mode 0600
    $CODEX_HOME/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl
    $CODEX_HOME/archived_sessions/rollout-...jsonl   (flat)
    $CODEX_HOME/session_index.jsonl            thread names, appended on rename
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

from codex_lsp.sandbox.options import default_codex_home

SESSIONS_SUBDIR = "sessions"
ARCHIVED_SUBDIR = "archived_sessions"


def codex_home() -> Path:
    """`$CODEX_HOME` if set (with `~` expanded); else `~/.codex-lsp` once it is in use, else
    a Codex CLI user's `~/.codex` (`sandbox.options.default_codex_home`). Not created here."""
    return Path(default_codex_home())


def sessions_dir(home: Path | None = None) -> Path:
    return (home if home is not None else codex_home()) / SESSIONS_SUBDIR


def archived_dir(home: Path | None = None) -> Path:
    return (home if home is not None else codex_home()) / ARCHIVED_SUBDIR


def new_thread_id(now_ms: int | None = None) -> str:
    """A UUIDv7 string: time-ordered, so ids created later in the same second sort after.

    Listing breaks ties between rollouts created in the same second on the uuid; time-ordered
    ids keep that order equal to creation order.
    """
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    rand = int.from_bytes(os.urandom(10), "big")  # what `secrets.token_bytes` returns
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version
    value |= ((rand >> 62) & 0xFFF) << 64  # rand_a, 12 bits
    value |= 0b10 << 62  # RFC 4122 variant
    value |= rand & ((1 << 62) - 1)  # rand_b, 62 bits
    return str(uuid.UUID(int=value))


def uuid7_millis(thread_id: str) -> int | None:
    """The unix-ms timestamp embedded in a UUIDv7, or None for other uuid versions."""
    try:
        parsed = uuid.UUID(thread_id)
    except ValueError:
        return None
    if parsed.version != 7:
        return None
    return parsed.int >> 80
