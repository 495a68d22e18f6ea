"""Finding the repositories below a writable root, so their `.git`, `.codex` and `.agents`
stay read-only.

A writable root's own entries, and those of the folders above it, are known without
looking (`_roots`); a repository further down needs a walk: a vendored checkout in the
workspace, or anyone's clone in `/tmp` or `$TMPDIR`, which every session can write and
which hold thousands of folders once a test suite has run. A walk is too slow to make
before every command, so:

* each folder's answer (its subfolders, and the entries to protect in it) is kept with
  the folder's identity and modification time, which changes whenever an entry is added,
  removed or renamed in it; a walk again lists only the folders that changed and merely
  looks at the others;
* the roots are walked in the background as soon as a session holds them, and again,
  in the background, when a command starts more than `TTL_S` after the last walk; a
  command waits only for a root's first walk.

So a command is protected from the repositories that existed when the last walk ran.
One that appears later (cloned in `/tmp` by someone else mid-session) is covered from
the walk after that; one the command creates itself holds only what the command wrote.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable

from . import _roots

TTL_S = 2.0
# A walk looks at no more than this many folders and entries; what it found so far is kept.
MAX_ENTRIES = 200_000
MAX_DEPTH = 12
# How long a command waits for a root's first walk when another thread runs it.
FIRST_WALK_WAIT_S = 30.0
GIT = ".git"
AGENT_DIRS = (_roots.CODEX, _roots.AGENTS)

# path -> (device, inode, mtime_ns, subfolders, protected entries, has a `.git` file)
Folder = tuple[int, int, int, tuple[str, ...], tuple[str, ...], bool]

_lock = threading.Lock()
_cache: dict[str, tuple[float, tuple[str, ...]]] = {}
_folders: dict[str, Folder] = {}
_walking: dict[str, threading.Event] = {}


def _list(path: str) -> tuple[tuple[str, ...], tuple[str, ...], bool, int]:
    """A folder's subfolders and protected entries, read from disk, and the entries seen."""
    subdirs: list[str] = []
    names: set[str] = set()
    git_is_file = False
    seen = 0
    try:
        entries = os.scandir(path)
    except OSError:
        return (), (), False, 0
    with entries:
        for entry in entries:
            seen += 1
            name = entry.name
            if name == GIT or name in AGENT_DIRS:
                names.add(name)
                if name == GIT:
                    try:
                        git_is_file = entry.is_file(follow_symlinks=False)
                    except OSError:
                        git_is_file = False
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.path)
            except OSError:
                continue
    # Only what exists: a placeholder for a missing one would be a folder made in
    # someone else's repository (and a mount more) before every command.
    protected = tuple(os.path.join(path, n) for n in (GIT, *AGENT_DIRS) if n in names)
    return tuple(subdirs), protected, git_is_file, seen


def walk(root: str) -> tuple[str, ...]:
    """Every `.git`, `.codex` and `.agents` below `root`, not counting `root`'s own (for
    a `.git` pointer file, also the git directory it names and that one's common
    directory)."""
    found: list[str] = []
    budget = MAX_ENTRIES
    stack = [(root, 0)]
    while stack and budget > 0:
        path, depth = stack.pop()
        budget -= 1
        try:
            info = os.lstat(path)
        except OSError:
            continue
        key = (info.st_dev, info.st_ino, info.st_mtime_ns)
        cached = _folders.get(path)
        if cached is not None and cached[:3] == key:
            subdirs, protected, git_is_file = cached[3], cached[4], cached[5]
        else:
            subdirs, protected, git_is_file, seen = _list(path)
            budget -= seen
            _folders[path] = (*key, subdirs, protected, git_is_file)
        if path != root:
            found += protected
            if git_is_file:
                found += _pointer_targets(os.path.join(path, GIT))
        if depth < MAX_DEPTH:
            stack.extend((sub, depth + 1) for sub in subdirs)
    return tuple(dict.fromkeys(found))


def _pointer_targets(dot_git: str) -> list[str]:
    target = _roots.gitdir_target(dot_git)
    if target is None:
        return []
    common = _roots.commondir_target(target)
    return [target] if common is None else [target, common]


def _run_walk(root: str, done: threading.Event) -> None:
    try:
        value = walk(root)
        with _lock:
            _cache[root] = (time.monotonic(), value)
    finally:
        with _lock:
            _walking.pop(root, None)
        done.set()


def _start(root: str) -> threading.Event:
    """Start a background walk of `root` unless one runs; call with `_lock` held."""
    if root in _walking:
        return _walking[root]
    done = threading.Event()
    _walking[root] = done
    threading.Thread(target=_run_walk, args=(root, done), name="sandbox-walk", daemon=True).start()
    return done


def warm(roots: Iterable[str]) -> None:
    """Walk `roots` in the background, so that the first command finds them walked."""
    with _lock:
        for root in roots:
            if root not in _cache:
                _start(root)


def nested_git_dirs(root: str) -> tuple[str, ...]:
    """The protected entries below `root` (see `walk`), as of the last walk; a walk older
    than `TTL_S` is redone in the background. Only a root's first walk is waited for."""
    with _lock:
        cached = _cache.get(root)
        if cached is not None:
            stamp, value = cached
            if time.monotonic() - stamp > TTL_S:
                _start(root)
            return value
        pending = _walking.get(root)
    if pending is not None and pending.wait(FIRST_WALK_WAIT_S):
        with _lock:
            cached = _cache.get(root)
        if cached is not None:
            return cached[1]
    value = walk(root)
    with _lock:
        _cache[root] = (time.monotonic(), value)
    return value


def forget() -> None:
    """Drop every cached walk (a new session starts from what is on disk now)."""
    with _lock:
        _cache.clear()
        _folders.clear()
