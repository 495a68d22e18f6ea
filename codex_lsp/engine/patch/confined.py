"""Writing a patch to disk without ever leaving the writable roots.

The paths of a patch are checked when it is planned, and written later, by the engine
itself and outside the sandbox, while commands may be changing the same folders.
`ConfinedFiles` therefore decides again at the moment of each write, and writes
through a handle on the root it decided on: every directory on the way is opened
beneath that handle with no symlink followed (`open_beneath`), and the file is
created, replaced or removed relative to the last one. A folder swapped for a
symlink in between makes the write fail; it never sends it elsewhere. The roots
themselves are the session's held handles: a root whose path was re-pointed since the
session was configured is refused (`RootMoved`), and the write never follows it.

A symlink that is the file itself is still written through, as editors do, when
its target lies in the roots too: that is decided on the target, and the target's
folders are then opened the same way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from codex_lsp.protocol.core.policy import DangerFullAccess, ReadOnly, WorkspaceWrite
from codex_lsp.sandbox import HeldRoots, writable_root_of
from codex_lsp.sandbox.beneath import EscapeRefused, open_beneath, open_root
from codex_lsp.store.bounded_read import OPEN_FLAGS, WORKSPACE_TEXT_MAX_BYTES, read_opened

from .workspace import Backup, FileBackup, LinkBackup, RollbackError

Policy = DangerFullAccess | ReadOnly | WorkspaceWrite


class OutsideRootsError(PermissionError):
    """A write would land outside the writable roots (and outside what was approved)."""


@dataclass(frozen=True)
class WriteConfinement:
    """Where one patch's writes may land: beneath the policy's writable roots (minus
    their protected entries), or exactly at the resolved paths the user approved."""

    policy: Policy
    cwd: Path
    approved: frozenset[str] = field(default_factory=frozenset)
    # The session's writable roots, held open since it was configured: each write
    # checks that their paths still lead to them, and goes through their handles.
    roots: HeldRoots | None = None

    @classmethod
    def for_patch(
        cls,
        policy: Policy,
        cwd: Path,
        approved_paths: list[Path] | tuple[Path, ...] = (),
        *,
        roots: HeldRoots | None = None,
    ) -> WriteConfinement:
        """`approved_paths` are resolved now, at approval: a symlink appearing on their
        way later changes where they lead, and such a write is refused."""
        approved = frozenset(os.path.realpath(os.path.join(cwd, p)) for p in approved_paths)
        return cls(policy, Path(os.path.abspath(cwd)), approved, roots)

    def anchor(self, real: str) -> str:
        """The directory `real` (a resolved path) must be reached from. Raises
        `RootMoved` when a held root's path leads elsewhere now."""
        if real in self.approved:
            return "/"
        if self.roots is not None:
            self.roots.verify()
        root = writable_root_of(real, self.policy, self.cwd)
        if root is None:
            raise OutsideRootsError(
                errno.EACCES,
                f"it now resolves to {real}, outside the writable roots or in a protected folder",
            )
        return os.fspath(root)


@dataclass
class _Place:
    """An open handle on a file's directory, and the file's name in it."""

    dir_fd: int
    name: str
    anchor: str
    relative_dir: str


@contextlib.contextmanager
def _place(
    confinement: WriteConfinement,
    path: Path,
    *,
    through_link: bool,
    create_dirs: bool = False,
    created: list[str] | None = None,
) -> Iterator[_Place]:
    """The directory handle for `path`, with its name; the handle is closed afterwards.

    `through_link` resolves a symlink at `path` itself (writing updates its target);
    otherwise only the directories are resolved (removing takes the link away).
    """
    absolute = os.path.abspath(path)
    if through_link:
        real = os.path.realpath(absolute)
    else:
        real = os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))
    anchor = confinement.anchor(real)
    relative = os.path.relpath(real, anchor)
    directory, name = os.path.split(relative)
    if name in ("", ".", ".."):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    held = confinement.roots.fd_of(anchor) if confinement.roots is not None else None
    root_fd = os.dup(held) if held is not None else open_root(anchor)
    try:
        made: list[str] = []
        dir_fd = open_beneath(root_fd, directory, create=create_dirs, created=made)
    finally:
        os.close(root_fd)
    if created is not None:
        created += [os.path.join(anchor, entry) for entry in made]
    try:
        yield _Place(dir_fd, name, anchor, directory)
    finally:
        os.close(dir_fd)


def _lstat(place: _Place) -> os.stat_result | None:
    try:
        return os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _refuse_directory(info: os.stat_result | None, path: Path) -> None:
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))


def _store(place: _Place, data: bytes, path: Path, mode: int | None = None) -> None:
    info = _lstat(place)
    _refuse_directory(info, path)
    if info is not None and stat.S_ISLNK(info.st_mode):
        # The symlink appeared after its target was resolved.
        raise EscapeRefused(errno.ELOOP, "refusing to follow a symbolic link", str(path))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    if info is None:
        # O_EXCL creation lets the process umask pick the mode, as any editor would.
        fd = os.open(place.name, flags, 0o666, dir_fd=place.dir_fd)
        try:
            _write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(place.name, dir_fd=place.dir_fd)
            raise
        os.close(fd)
        return
    # Replaced through a temporary file so readers see the old or the new file.
    temp = f".{place.name}.{secrets.token_hex(4)}.tmp"
    fd = os.open(temp, flags, 0o600, dir_fd=place.dir_fd)
    try:
        try:
            _write_all(fd, data)
            os.fchmod(fd, stat.S_IMODE(info.st_mode))
        finally:
            os.close(fd)
        os.replace(temp, place.name, src_dir_fd=place.dir_fd, dst_dir_fd=place.dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=place.dir_fd)
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read(place: _Place, path: Path) -> bytes:
    fd = os.open(place.name, OPEN_FLAGS | os.O_NOFOLLOW, dir_fd=place.dir_fd)
    try:
        return read_opened(fd, str(path), WORKSPACE_TEXT_MAX_BYTES)
    finally:
        os.close(fd)


class ConfinedFiles:
    """A `FileWriter` (and `TransactionalWriter`) that writes only where a
    `WriteConfinement` allows, never through a symlinked folder."""

    def __init__(self, confinement: WriteConfinement) -> None:
        self.confinement = confinement

    def write_text(self, path: Path, text: str) -> None:
        with _place(self.confinement, path, through_link=True, create_dirs=True) as place:
            _store(place, text.encode("utf-8"), path)

    def remove(self, path: Path) -> None:
        with _place(self.confinement, path, through_link=False) as place:
            _refuse_directory(_lstat(place), path)
            os.unlink(place.name, dir_fd=place.dir_fd)

    def transaction(self) -> ConfinedTransaction:
        return ConfinedTransaction(self.confinement)


class ConfinedTransaction(AbstractContextManager["ConfinedTransaction"]):
    """`ConfinedFiles` that restores every touched path if the `with` block raises.

    Restoring goes through the same confinement, so a rollback cannot be steered
    outside the roots either. Directories created for new files are removed again.
    """

    def __init__(self, confinement: WriteConfinement) -> None:
        self._files = ConfinedFiles(confinement)
        self._confinement = confinement
        self._backups: dict[Path, Backup] = {}
        self._changed: set[Path] = set()
        self._created_dirs: list[str] = []

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        if exc is None:
            return
        failures = self._rollback()
        if failures:
            raise RollbackError(exc, failures) from exc

    def write_text(self, path: Path, text: str) -> None:
        target = Path(os.path.realpath(path)) if os.path.islink(path) else path
        self._remember(target)
        with _place(
            self._confinement,
            target,
            through_link=True,
            create_dirs=True,
            created=self._created_dirs,
        ) as place:
            _store(place, text.encode("utf-8"), path)
        self._changed.add(target)

    def remove(self, path: Path) -> None:
        self._remember(path, through_link=False)
        self._files.remove(path)
        self._changed.add(path)

    def _remember(self, path: Path, *, through_link: bool = True) -> None:
        if path in self._backups:
            return
        try:
            self._backups[path] = self._backup(path, through_link=through_link)
        except FileNotFoundError:
            self._backups[path] = None  # its folder does not exist yet: nothing to restore

    def _backup(self, path: Path, *, through_link: bool) -> Backup:
        with _place(self._confinement, path, through_link=through_link) as place:
            info = _lstat(place)
            _refuse_directory(info, path)
            backup: Backup
            if info is None:
                backup = None
            elif stat.S_ISLNK(info.st_mode):
                backup = LinkBackup(os.readlink(place.name, dir_fd=place.dir_fd))
            else:
                backup = FileBackup(_read(place, path), stat.S_IMODE(info.st_mode))
        return backup

    def _rollback(self) -> list[str]:
        failures: list[str] = []
        for path, backup in reversed(list(self._backups.items())):
            if path not in self._changed:
                continue
            try:
                self._restore(path, backup)
            except OSError as error:
                failures.append(f"{path}: {error.strerror or error}")
        for directory in reversed(self._created_dirs):
            # Only directories we made and that are empty again; anything else stays.
            with (
                contextlib.suppress(OSError),
                _place(self._confinement, Path(directory), through_link=False) as place,
            ):
                os.rmdir(place.name, dir_fd=place.dir_fd)
        return failures

    def _restore(self, path: Path, backup: Backup) -> None:
        with _place(self._confinement, path, through_link=False) as place:
            info = _lstat(place)
            if info is not None and not stat.S_ISDIR(info.st_mode):
                os.unlink(place.name, dir_fd=place.dir_fd)
            if isinstance(backup, FileBackup):
                _store(place, backup.data, path, backup.mode)
            elif isinstance(backup, LinkBackup):
                os.symlink(backup.target, place.name, dir_fd=place.dir_fd)
