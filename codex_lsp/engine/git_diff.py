"""One file's change written as `git diff` writes it, for the turn diff clients apply or show.

`diff --git a/<path> b/<path>` with the path relative to the repository the file is in (the
absolute path outside any repository), `new file mode` / `deleted file mode` lines, an `index`
line with git's blob ids of both sides, then the hunks. The hunks come from the patch engine's
`unified_diff`; only the git framing is added here.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from codex_lsp.engine.patch.diff import unified_diff
from codex_lsp.sandbox import is_repository_entry

ZERO_OID = "0" * 40
DEV_NULL = "/dev/null"
REGULAR, EXECUTABLE = "100644", "100755"


def blob_oid(text: str) -> str:
    """The id git gives a blob of `text` (SHA-1 over `blob <size>\\0<bytes>`)."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def git_root(path: Path) -> Path | None:
    """The nearest directory at or above `path`'s own that holds a `.git` (a directory, or
    the file of a worktree or submodule)."""
    for directory in (path.parent, *path.parent.parents):
        if is_repository_entry(directory / ".git"):
            return directory
    return None


def display_path(path: Path) -> str:
    """`path` as the diff names it: relative to its repository, else absolute."""
    root = git_root(path)
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def file_mode(path: Path) -> str:
    try:
        executable = os.access(path, os.X_OK) and path.is_file()
    except OSError:
        executable = False
    return EXECUTABLE if executable else REGULAR


def git_file_diff(path: Path, before: str | None, after: str | None) -> str:
    """The git-format diff of `path` from `before` to `after` (None: the file is absent)."""
    if before == after:
        return ""
    name = display_path(path)
    lines = [f"diff --git a/{name} b/{name}\n"]
    old_label, new_label = f"a/{name}", f"b/{name}"
    if before is None:
        oid = blob_oid(after or "")
        lines += [f"new file mode {file_mode(path)}\n", f"index {ZERO_OID}..{oid}\n"]
        old_label = DEV_NULL
    elif after is None:
        oid = blob_oid(before)
        lines += [f"deleted file mode {file_mode(path)}\n", f"index {oid}..{ZERO_OID}\n"]
        new_label = DEV_NULL
    else:
        lines.append(f"index {blob_oid(before)}..{blob_oid(after)}\n")
    hunks = unified_diff(before or "", after or "", old_label, new_label)
    if not hunks:  # an empty file created or deleted: git writes no hunk, nor the labels
        return "".join(lines)
    return "".join(lines) + hunks
