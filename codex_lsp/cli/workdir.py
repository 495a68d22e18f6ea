"""The working directory a terminal command acts in: checked before anything touches it."""

from __future__ import annotations

from pathlib import Path


class WorkdirError(Exception):
    """The folder given with `-C` cannot be worked in; the message says why."""


def resolve_workdir(given: Path | None) -> Path:
    """`given` (or the current directory) as an absolute path to an existing directory.

    Nothing is created: a typo in `-C` must not become a new folder the agent writes into.
    """
    if given is None:
        return Path.cwd().resolve()
    path = given.expanduser()
    if not path.exists():
        raise WorkdirError(f"-C {given}: the directory does not exist")
    if not path.is_dir():
        raise WorkdirError(f"-C {given}: not a directory")
    return path.resolve()


def git_repository_root(path: Path) -> Path | None:
    """The nearest folder at or above `path` holding `.git` (a directory, or a worktree's
    file), or None. Read from the file system alone, so no `git` binary is needed."""
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return folder
    return None
