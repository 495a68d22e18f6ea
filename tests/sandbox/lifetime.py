"""A process that leaves the command's session and holds a lock until it dies.

Whether it is still alive is read from the lock, not from a pid: the sandbox runs
commands in a PID namespace whose numbers mean nothing outside it, and a lock is
released by the kernel exactly when its holder dies.
"""

from __future__ import annotations

import fcntl
import os
import signal
import threading
from pathlib import Path

HOLDER = r"""
import fcntl, sys, time
lock = open(sys.argv[1], "w")
fcntl.flock(lock, fcntl.LOCK_EX)
with open(sys.argv[2], "w") as ready:
    ready.write("locked")
time.sleep(600)
"""
# How long a test waits for a lock that should be free; only a survivor runs it out.
LOCK_WAIT_S = 30.0


def escaping_script(python: str, lock: Path, ready: Path, then: str) -> str:
    """A shell script that starts the holder in a session of its own with `setsid nohup`,
    waits until it holds the lock, says `ready`, then runs `then`."""
    return (
        f"setsid nohup {python} -c '{HOLDER}' {lock} {ready} >/dev/null 2>&1 & "
        f"for _ in $(seq 1200); do [ -s {ready} ] && break; sleep 0.05; done; "
        f"[ -s {ready} ] && echo ready; {then}"
    )


def lock_is_released(lock: Path, timeout: float = LOCK_WAIT_S) -> bool:
    """Whether the holder is gone: the lock can be taken within `timeout`."""
    taken = threading.Event()

    def take() -> None:
        with open(lock, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            taken.set()

    threading.Thread(target=take, daemon=True).start()
    return taken.wait(timeout)


def kill_survivors(token: str) -> None:
    """Kill processes whose command line mentions `token` (what a failed test leaves)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    os.kill(int(entry), signal.SIGKILL)
        except OSError:
            continue
