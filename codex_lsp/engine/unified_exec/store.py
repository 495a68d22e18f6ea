"""The processes one session keeps open for `exec_command` / `write_stdin`, by session id.

Ids are random numbers the model quotes back (`write_stdin {session_id}`), never reused while
a process holds them. At most `MAX_PROCESSES` stay open: opening one more ends the least
recently used, sparing the eight most recent and preferring one that already exited. From
`WARNING_PROCESSES` open on, the model is told to reuse or close what it has.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from codex_lsp.engine.unified_exec.process import ExecProcess

__all__ = [
    "MAX_PROCESSES",
    "WARNING_PROCESSES",
    "ProcessEntry",
    "ProcessStore",
    "too_many_processes_warning",
]

MAX_PROCESSES = 64
WARNING_PROCESSES = 60
# Pruning never picks one of this many most recently used processes.
PROTECTED_RECENT = 8
_ID_RANGE = (1_000, 100_000)


@dataclass(eq=False)
class ProcessEntry:
    """A process the model started, with what its events need to name it."""

    process: ExecProcess
    process_id: int
    call_id: str
    sub_id: str
    command: list[str]
    cwd: str
    tty: bool
    last_used: float = field(default_factory=time.monotonic)
    # Set once the process has ended and whoever watches it has said so.
    done: asyncio.Event = field(default_factory=asyncio.Event)
    # Clear while a caller is still reporting input it sent: the end is told after that.
    quiet: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.quiet.set()

    def touch(self) -> None:
        self.last_used = time.monotonic()


def too_many_processes_warning(count: int) -> str:
    return (
        "The maximum number of unified exec processes you can keep open is "
        f"{WARNING_PROCESSES} and you currently have {count} processes open. Reuse older "
        "processes or close them to prevent automatic pruning of old processes"
    )


class ProcessStore:
    def __init__(self) -> None:
        self._entries: dict[int, ProcessEntry] = {}
        self._reserved: set[int] = set()
        self._random = random.SystemRandom()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[ProcessEntry]:
        return iter(list(self._entries.values()))

    def reserve_id(self) -> int:
        """A fresh id, held until `release`d (so two starts at once never share one)."""
        while True:
            candidate = self._random.randrange(*_ID_RANGE)
            if candidate not in self._reserved:
                self._reserved.add(candidate)
                return candidate

    def release(self, process_id: int) -> ProcessEntry | None:
        """Forget a process (it exited or was ended); its id may be handed out again."""
        self._reserved.discard(process_id)
        return self._entries.pop(process_id, None)

    def get(self, process_id: int) -> ProcessEntry | None:
        return self._entries.get(process_id)

    def add(self, entry: ProcessEntry) -> tuple[ProcessEntry | None, int]:
        """Keep `entry`; returns the entry pruned to make room (already ended) and the count."""
        pruned = self._prune() if len(self._entries) >= MAX_PROCESSES else None
        if pruned is not None:
            pruned.process.terminate()
        self._entries[entry.process_id] = entry
        return pruned, len(self._entries)

    def _prune(self) -> ProcessEntry | None:
        recent_first = sorted(self._entries.values(), key=lambda e: e.last_used, reverse=True)
        protected = {e.process_id for e in recent_first[:PROTECTED_RECENT]}
        candidates = [e for e in reversed(recent_first) if e.process_id not in protected]
        victim = next((e for e in candidates if e.process.has_exited), None)
        if victim is None and candidates:
            victim = candidates[0]
        return self.release(victim.process_id) if victim is not None else None

    def terminate(self, process_id: int) -> bool:
        """End one process; False when no process has that id (its watcher reports the end)."""
        entry = self.release(process_id)
        if entry is None:
            return False
        entry.process.terminate()
        return True

    def terminate_all(self) -> list[ProcessEntry]:
        """End every process; returns the entries ended (their watchers report the ends)."""
        entries = list(self._entries.values())
        self._entries.clear()
        self._reserved.clear()
        for entry in entries:
            entry.process.terminate()
        return entries
