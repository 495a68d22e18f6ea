"""Which paths a sandbox policy lets a command or a patch write.

The engine asks these questions before it runs anything: patch safety checks every
path a patch touches with `paths_outside_writable_roots`, and the launcher enforces
the same roots in the kernel. Paths are compared after folding `..` lexically and
resolving the symlinks of the existing prefix, which is what the kernel will do.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from codex_lsp.protocol.core.policy import DangerFullAccess, ReadOnly, WorkspaceWrite

from . import _roots


class WritableRoot(NamedTuple):
    """A directory tree a command may write, minus the subpaths that stay read-only."""

    root: Path
    read_only_subpaths: tuple[Path, ...]

    def is_path_writable(self, path: Path) -> bool:
        """Whether `path` (absolute) is writable through this root alone."""
        spec = [(str(self.root), tuple(str(p) for p in self.read_only_subpaths))]
        return _roots.is_writable(_roots.absolute(str(path), "/"), spec)


Policy = DangerFullAccess | ReadOnly | WorkspaceWrite


def _specs(policy: Policy, cwd: Path | str) -> list[_roots.RootSpec]:
    if not isinstance(policy, WorkspaceWrite):
        return []
    return _roots.compute(
        policy.type,
        cwd=os.fspath(cwd),
        explicit=policy.writable_roots,
        exclude_slash_tmp=policy.exclude_slash_tmp,
        exclude_tmpdir_env_var=policy.exclude_tmpdir_env_var,
    )


def writable_roots(policy: Policy, cwd: Path | str) -> list[WritableRoot]:
    """The effective writable roots of `policy` for a session running in `cwd`.

    For `workspace-write`: the explicit roots, `cwd`, `/tmp` and `$TMPDIR` (unless
    excluded), each with its protected `.git` (and `gitdir:` target), `.agents` and
    `.codex`. Empty for `read-only` (nothing is writable) and for
    `danger-full-access` (everything is, so roots do not apply).
    """
    return [
        WritableRoot(Path(root), tuple(Path(p) for p in subs)) for root, subs in _specs(policy, cwd)
    ]


def is_path_writable(path: Path | str, policy: Policy, cwd: Path | str) -> bool:
    """Whether a command under `policy` may write `path` (relative paths join `cwd`)."""
    if isinstance(policy, DangerFullAccess):
        return True
    if isinstance(policy, ReadOnly):
        return False
    absolute = _roots.absolute(os.fspath(path), _roots.absolute(os.fspath(cwd), "/"))
    return _roots.is_writable(absolute, _specs(policy, cwd))


def paths_outside_writable_roots(
    paths: Iterable[Path | str], policy: Policy, cwd: Path | str
) -> list[Path]:
    """The paths among `paths` that `policy` does not let a patch write, in order.

    Relative paths are taken against `cwd` and returned as given, so a caller can
    name them back to the user.
    """
    if isinstance(policy, DangerFullAccess):
        return []
    cwd_abs = _roots.absolute(os.fspath(cwd), "/")
    specs = _specs(policy, cwd)
    outside: list[Path] = []
    for path in paths:
        absolute = _roots.absolute(os.fspath(path), cwd_abs)
        if isinstance(policy, ReadOnly) or not _roots.is_writable(absolute, specs):
            outside.append(Path(path))
    return outside


def writable_root_of(path: Path | str, policy: Policy, cwd: Path | str) -> Path | None:
    """The resolved writable root a write to `path` lands under, or None if `policy`
    does not let it be written (for `danger-full-access`: `/`).

    `path` is resolved first, as `is_path_writable` does; the deepest root that holds
    it is returned, so a writer can open that root and reach the file beneath it.
    """
    if isinstance(policy, DangerFullAccess):
        return Path("/")
    if isinstance(policy, ReadOnly):
        return None
    absolute = _roots.absolute(os.fspath(path), _roots.absolute(os.fspath(cwd), "/"))
    specs = _specs(policy, cwd)
    if not _roots.is_writable(absolute, specs):
        return None
    real = _roots.resolve(absolute)
    holders = [
        root for root in (_roots.resolve(r) for r, _ in specs) if _roots.is_beneath(real, root)
    ]
    return Path(max(holders, key=len)) if holders else None


def is_repository_entry(entry: Path) -> bool:
    """Whether `entry` (a `.git`) makes its folder a repository: a git directory with a
    `HEAD`, or the `gitdir:` file of a worktree or submodule.

    The sandbox holds an empty `.git` folder in place where none exists, so that no
    command can create one; git passes over such a folder to the repository above, and
    whatever looks for a project's root must too.
    """
    try:
        if entry.is_dir():
            return (entry / "HEAD").exists()
        return entry.is_file()
    except OSError:
        return False
