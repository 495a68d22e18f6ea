"""The order a thread listing walks rollouts in, and the cursors that hold a place in it.

Threads are ordered by a sort key (`created_at`: the rollout name's stamp; `updated_at`: the
file's mtime) and the thread id, which breaks ties within a second. A cursor names a place
between two threads: just below a thread's key, or just above it. Listing newest first from a
place yields the threads older than it, oldest first the threads newer than it; so one cursor
can be followed in either direction.

A page's `next_cursor` is the place past its last thread. Its `backwards_cursor` is a place by
its first thread: followed in the opposite direction it lists the threads of the earlier pages,
which is how a client pages back (with the first thread again or not, as the reference does for
each order).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codex_lsp.store.rollout_files import RolloutFile, iter_rollouts_desc

SortKey = Literal["created_at", "updated_at"]
Direction = Literal["asc", "desc"]
Key = tuple[str, str]
_ABOVE = "+"


class InvalidCursorError(ValueError):
    def __init__(self, cursor: str) -> None:
        super().__init__(f"invalid thread list cursor: {cursor[:80]!r}")


@dataclass(frozen=True, slots=True)
class Place:
    """The gap just below `key` (in ascending order), or just above it."""

    key: Key
    above: bool = False

    def admits(self, key: Key, direction: Direction) -> bool:
        """Whether a listing in `direction` that starts here reaches `key`."""
        if direction == "desc":
            return key <= self.key if self.above else key < self.key
        return key > self.key if self.above else key >= self.key


def encode_cursor(sort_key: SortKey, place: Place) -> str:
    fields = [sort_key, *place.key, *([_ABOVE] if place.above else [])]
    return base64.urlsafe_b64encode("|".join(fields).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, sort_key: SortKey) -> Place:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidCursorError(cursor) from None
    parts = raw.split("|")
    above = len(parts) == 4 and parts[3] == _ABOVE
    if len(parts) != 3 + above or parts[0] != sort_key or not parts[1] or not parts[2]:
        raise InvalidCursorError(cursor)
    return Place((parts[1], parts[2]), above)


def next_place(last: Key, direction: Direction) -> Place:
    """The place past `last`, where the next page in `direction` starts."""
    return Place(last, above=direction == "asc")


def backwards_place(first: Key, direction: Direction, *, repeat_first: bool = True) -> Place:
    """The place from which the opposite direction lists what precedes `first` (and `first`
    itself first, with `repeat_first`)."""
    return Place(first, above=(direction == "desc") != repeat_first)


def mtime_stamp(mtime: float) -> str:
    # Fixed-width integer microseconds so string comparison orders like the numbers.
    return f"{round(mtime * 1_000_000):020d}"


def ordered_rollouts(
    home: Path,
    sort_key: SortKey,
    direction: Direction,
    archived: bool,
    start: Place | None,
    warnings: list[str],
) -> Iterator[tuple[RolloutFile, Key, float | None]]:
    """Rollouts in listing order from `start`, each with its sort key and mtime (when read).

    Newest first by creation, from the start or below a key, walks only the directories it
    needs, so a first page costs the same over any number of rollouts; every other order lists
    them all.
    """
    if sort_key == "created_at" and direction == "desc" and (start is None or not start.above):
        after = None if start is None else start.key
        for file in iter_rollouts_desc(home, archived=archived, after=after, warnings=warnings):
            yield file, file.key, None
        return
    entries: list[tuple[RolloutFile, Key, float | None]] = []
    for file in iter_rollouts_desc(home, archived=archived, warnings=warnings):
        mtime: float | None = None
        key = file.key
        if sort_key == "updated_at":
            try:
                mtime = file.path.stat().st_mtime
            except OSError:
                continue  # moved (archived) since the directory was listed
            key = (mtime_stamp(mtime), file.thread_id.lower())
        if start is None or start.admits(key, direction):
            entries.append((file, key, mtime))
    entries.sort(key=lambda entry: entry[1], reverse=direction == "desc")
    yield from entries
