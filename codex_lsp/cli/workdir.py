"""The working directory a terminal command acts in: checked before anything touches it."""

from __future__ import annotations

from pathlib import Path

from codex_lsp.store.bounded_read import read_bytes


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
    """The nearest folder at or above `path` whose `.git` is a repository (a directory with
    a HEAD, or a worktree's `gitdir:` file), or None. Read from the file system alone, so no
    `git` binary is needed; a stray empty `.git` folder does not count."""
    for folder in (path, *path.parents):
        if _is_git_dir_entry(folder / ".git"):
            return folder
    return None


def _is_git_dir_entry(entry: Path) -> bool:
    try:
        if entry.is_dir():
            return (entry / "HEAD").is_file()
        if entry.is_file():
            return read_bytes(entry, 8, prefix=True) == b"gitdir: "
    except OSError:
        return False
    return False
