"""The files (and directories) under a root that a file picker offers.

Inside a git work tree the list is git's own: tracked files, then untracked ones that no
`.gitignore`, `.git/info/exclude` or global excludes file hides; `git ls-files` answers from
the index in a few milliseconds even for large trees, and git applies its ignore rules exactly
(run through `codex_lsp.git`, so nothing the repository configures runs).
Outside a repository there are no ignore rules (as for git itself) and the tree is walked,
`.git` directories left out either way.

`list_files` yields batches as they are read, so a caller can rank the first ones while the
rest are still coming.
"""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from codex_lsp import git

BATCH = 20_000


def _git_lines(root: Path, *args: str) -> Iterator[list[str]]:
    """Paths git prints for `ls-files ARGS`, relative to `root`, in batches."""
    try:
        process = git.popen(
            root, ["ls-files", "-z", *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return
    # A buffered pipe (Popen's default), whose read1 returns what is there without waiting to
    # fill the whole size.
    stdout = process.stdout
    assert isinstance(stdout, io.BufferedReader)
    tail = b""
    try:
        size = 1 << 15  # a small first read: the first paths can be ranked sooner
        while chunk := stdout.read1(size):
            size = 1 << 20
            parts = (tail + chunk).split(b"\0")
            tail = parts.pop()
            yield [part.decode("utf-8", "surrogateescape") for part in parts if part]
        if tail:
            yield [tail.decode("utf-8", "surrogateescape")]
    finally:
        stdout.close()
        process.wait()


def in_git_work_tree(root: Path) -> bool:
    # An empty `.git` folder (the sandbox holds one where a project has none) is no
    # repository: git passes over it, and `git ls-files` would list nothing.
    return any(
        (directory / ".git").is_file() or (directory / ".git" / "HEAD").exists()
        for directory in (root, *root.parents)
    )


def _walk(root: Path) -> Iterator[list[str]]:
    batch: list[str] = []
    stack = [(root, "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name != ".git":
                    stack.append((Path(entry.path), prefix + entry.name + "/"))
            else:
                batch.append(prefix + entry.name)
                if len(batch) >= BATCH:
                    yield batch
                    batch = []
    if batch:
        yield batch


def list_files(root: Path) -> Iterator[list[str]]:
    """Batches of file paths relative to `root` (with `/`), each path once."""
    if not root.is_dir():
        return
    if in_git_work_tree(root):
        # Tracked files first: the index answers at once, the untracked walk takes longer.
        yield from _git_lines(root, "--cached")
        yield from _git_lines(root, "--others", "--exclude-standard")
        return
    yield from _walk(root)
