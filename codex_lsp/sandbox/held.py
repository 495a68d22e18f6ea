"""A session's writable roots, resolved once and held by directory handles.

A path is a question asked again at every use, and a command may change the answer:
rename the cwd's parent, put `proj -> /` in its place, and the next command (or the
engine's own patch) that resolves the path writes `/`. So the roots are resolved when
the session is configured and each one is held open (`O_PATH | O_DIRECTORY`) from then
on. Before every command and every patch write, each path is opened again with no
symlink followed and compared with its handle (device and inode: the held handle keeps
the inode from being reused); a root that no longer leads to the same folder is refused
with `RootMoved`, never followed. The launcher checks the same identities again when it
opens the roots for its mounts and Landlock rules, and the engine's writes go through
the handles themselves.
"""

from __future__ import annotations

import errno
import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from codex_lsp.protocol.core.policy import DangerFullAccess, ReadOnly, WorkspaceWrite

from . import _nested, _roots
from .beneath import open_root

Policy = DangerFullAccess | ReadOnly | WorkspaceWrite


class RootMoved(PermissionError):
    """A writable root's path leads somewhere else than when the session was configured."""

    def __init__(self, path: str) -> None:
        super().__init__(
            errno.ESTALE,
            f"the writable root {path} no longer leads to the folder this session was "
            "started with (it was moved, or replaced by a link): nothing was run or written "
            "there. Put the folder back, or start a new session in the folder you mean.",
        )
        self.path = path

    def __str__(self) -> str:
        return str(self.strerror)


@dataclass(frozen=True)
class HeldRoot:
    """One root: its resolved path, an open handle on it, and that handle's identity."""

    path: str
    fd: int
    dev: int
    ino: int


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            continue


class HeldRoots:
    """The writable roots of one configuration (policy, cwd, `$TMPDIR`), held open."""

    def __init__(self, roots: list[HeldRoot]) -> None:
        self.roots = roots
        self._finalizer = weakref.finalize(self, _close_all, [root.fd for root in roots])

    def verify(self) -> None:
        """Raise `RootMoved` unless every root's path still leads to its handle's folder."""
        for root in self.roots:
            try:
                fd = open_root(root.path)
            except OSError:
                raise RootMoved(root.path) from None
            try:
                info = os.fstat(fd)
            finally:
                os.close(fd)
            if (info.st_dev, info.st_ino) != (root.dev, root.ino):
                raise RootMoved(root.path)

    def fd_of(self, path: str) -> int | None:
        """The handle of the root whose resolved path is `path`, if it is one."""
        return next((root.fd for root in self.roots if root.path == path), None)

    def launcher_args(self) -> list[str]:
        """The roots for the launcher, which opens and checks them again."""
        args: list[str] = []
        for root in self.roots:
            args += ["--root", f"{root.path}={root.dev}:{root.ino}"]
        return args

    def close(self) -> None:
        self._finalizer()


def hold_roots(
    policy: Policy, cwd: Path | str, environ: Mapping[str, str] | None = None
) -> HeldRoots:
    """Resolve `policy`'s writable roots for a session in `cwd` and hold each one open.

    `environ` gives `$TMPDIR` (default: this process's). Roots that do not exist are
    left out: nothing can be written there. Empty for `read-only` and
    `danger-full-access`.
    """
    held: list[HeldRoot] = []
    if isinstance(policy, WorkspaceWrite):
        specs = _roots.compute(
            policy.type,
            cwd=os.fspath(cwd),
            explicit=policy.writable_roots,
            exclude_slash_tmp=policy.exclude_slash_tmp,
            exclude_tmpdir_env_var=policy.exclude_tmpdir_env_var,
            environ=environ,
        )
        seen: set[str] = set()
        for root, _ in specs:
            real = os.path.realpath(root)
            if real in seen:
                continue
            seen.add(real)
            try:
                fd = open_root(real)
            except OSError:
                continue
            info = os.fstat(fd)
            held.append(HeldRoot(real, fd, info.st_dev, info.st_ino))
    # The first command must not wait for a walk of a large /tmp.
    _nested.warm(root.path for root in held)
    return HeldRoots(held)
