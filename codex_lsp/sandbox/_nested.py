"""Finding the nested repositories inside a writable root, so their `.git` stays read-only.

The root's own `.git` is found by looking; a repository further down (a vendored
checkout, a folder of projects opened as one workspace) needs a walk, which is too
slow to repeat before every command in a large tree. The result is cached per root
for `TTL_S` and refreshed in the background after that, so a command never waits for
a walk except the very first one in a root. A repository a command creates is found
at the next refresh: until then its `.git` is as writable as the files the command
just wrote.
"""

from __future__ import annotations

import os
import threading
import time

from . import _roots

TTL_S = 30.0
# A walk stops after this many directory entries; what it found so far is kept.
MAX_ENTRIES = 200_000
MAX_DEPTH = 12
GIT = ".git"

_lock = threading.Lock()
_cache: dict[str, tuple[float, tuple[str, ...]]] = {}
_refreshing: set[str] = set()


def walk_for_git(root: str) -> tuple[str, ...]:
    """Every `.git` (directory or pointer file) below `root`, not counting its own; for a
    pointer file, also the git directory it names and that one's common directory."""
    found: list[str] = []
    budget = MAX_ENTRIES
    stack = [(root, 0)]
    while stack and budget > 0:
        directory, depth = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue
        with entries:
            for entry in entries:
                budget -= 1
                if entry.name == GIT:
                    if directory != root:
                        found.append(entry.path)
                        found += _pointer_targets(entry.path)
                    continue
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir and depth < MAX_DEPTH:
                    stack.append((entry.path, depth + 1))
    return tuple(sorted(set(found)))


def _pointer_targets(dot_git: str) -> list[str]:
    if not os.path.isfile(dot_git):
        return []
    target = _roots.gitdir_target(dot_git)
    if target is None:
        return []
    common = _roots.commondir_target(target)
    return [target] if common is None else [target, common]


def nested_git_dirs(root: str) -> tuple[str, ...]:
    """The nested `.git` entries below `root`, from the cache when it is fresh enough."""
    now = time.monotonic()
    with _lock:
        cached = _cache.get(root)
        if cached is not None:
            stamp, value = cached
            if now - stamp > TTL_S and root not in _refreshing:
                _refreshing.add(root)
                threading.Thread(target=_refresh, args=(root,), daemon=True).start()
            return value
    value = walk_for_git(root)
    with _lock:
        _cache[root] = (time.monotonic(), value)
    return value


def _refresh(root: str) -> None:
    try:
        value = walk_for_git(root)
        with _lock:
            _cache[root] = (time.monotonic(), value)
    finally:
        with _lock:
            _refreshing.discard(root)
