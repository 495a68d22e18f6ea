"""`notify` of config.toml: a program run after each turn, as Codex runs it.

The program is `notify`'s argv with one JSON argument appended: `{"type":
"agent-turn-complete", "thread-id", "turn-id", "cwd", "input-messages", "last-assistant-message"}`.
It runs detached (its own session, no terminal, output discarded) and the turn does not wait
for it: a desktop notifier that hangs must not hold the agent.
"""

from __future__ import annotations

import json
import logging
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger(__name__)


def turn_complete_payload(
    thread_id: str, turn_id: str, cwd: Path, inputs: Sequence[str], last_message: str | None
) -> str:
    return json.dumps(
        {
            "type": "agent-turn-complete",
            "thread-id": thread_id,
            "turn-id": turn_id,
            "cwd": str(cwd),
            "input-messages": list(inputs),
            "last-assistant-message": last_message,
        }
    )


def run_notify(argv: Sequence[str] | None, payload: str, cwd: Path) -> None:
    """Start `argv + [payload]` and return at once; a program that cannot start is logged."""
    if not argv:
        return
    try:
        process = subprocess.Popen(
            [*argv, payload],
            cwd=cwd if cwd.is_dir() else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as err:
        log.warning("notify program %s cannot run: %s", argv[0], err.strerror)
        return
    # Reaped in the background so a finished notifier leaves no zombie behind.
    threading.Thread(target=process.wait, name="notify", daemon=True).start()
