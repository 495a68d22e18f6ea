"""Ports through which apply_patch reads and writes files, and their on-disk implementation.

Planning a patch only needs a `FileReader`, so the language server can answer with the unsaved
text of open buffers. Writing goes through a `FileWriter`. A writer that can also open a
`transaction()` gets all-or-nothing semantics: every file it replaces or removes is backed up in
memory first, and if any step fails the originals are put back before the error propagates.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from codex_lsp.store.bounded_read import WORKSPACE_TEXT_MAX_BYTES, read_bytes, read_text


@runtime_checkable
class FileReader(Protocol):
    """Read access to the workspace as the user currently sees it."""

    def read_text(self, path: Path) -> str:
        """Return the file's text, line endings untouched. Raises FileNotFoundError if absent."""
        ...

    def exists(self, path: Path) -> bool:
        """Whether anything (file or directory) exists at `path`."""
        ...


@runtime_checkable
class FileWriter(Protocol):
    """Write access to the workspace. A move is a write of the destination plus a remove."""

    def write_text(self, path: Path, text: str) -> None:
        """Create or replace the file at `path`, creating missing parent directories."""
        ...

    def remove(self, path: Path) -> None:
        """Remove the file at `path`. Refuses directories."""
        ...


@runtime_checkable
class TransactionalWriter(Protocol):
    """A writer that can group several writes so they take effect together or not at all."""

    def transaction(self) -> AbstractContextManager[FileWriter]:
        """Return a context manager yielding a writer whose changes are undone on exception."""
        ...


class RollbackError(OSError):
    """A write failed and restoring the files touched before it failed too."""

    def __init__(self, cause: BaseException, failures: list[str]) -> None:
        self.cause = cause
        self.failures = failures
        super().__init__(f"{cause}; rollback failed: {'; '.join(failures)}")


def _write_new_file(path: Path, data: bytes) -> None:
    # O_EXCL creation lets the process umask pick the mode, exactly as any editor would.
    with open(path, "xb") as handle:
        try:
            handle.write(data)
        except BaseException:
            handle.close()
            path.unlink(missing_ok=True)
            raise


def _replace_file(path: Path, data: bytes, mode: int) -> None:
    """Swap `path`'s content for `data` so readers see the old or the new file, never a mix."""
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        # mkstemp creates 0600; keep the permissions the user gave the original.
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


def _is_real_directory(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _write_target(path: Path) -> Path:
    # Writing through a symlink updates the file it points to instead of replacing the link.
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _store(path: Path, data: bytes) -> None:
    if _is_real_directory(path):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        _write_new_file(path, data)
    else:
        _replace_file(path, data, mode)


def _unlink_file(path: Path) -> None:
    if _is_real_directory(path):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    os.unlink(path)


class DiskFiles:
    """The local filesystem as a `FileReader`, `FileWriter` and `TransactionalWriter`."""

    def read_text(self, path: Path) -> str:
        # Bytes decoded as they are: "\r\n" stays, so CRLF files are written back as CRLF.
        # A FIFO, a device or a file over the cap is refused with an error that says which.
        return read_text(path, WORKSPACE_TEXT_MAX_BYTES)

    def exists(self, path: Path) -> bool:
        return path.exists()

    def write_text(self, path: Path, text: str) -> None:
        target = _write_target(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        _store(target, text.encode("utf-8"))

    def remove(self, path: Path) -> None:
        _unlink_file(path)

    def transaction(self) -> DiskTransaction:
        return DiskTransaction()


@dataclass(frozen=True)
class FileBackup:
    """A file's content and mode before a transaction touched it."""

    data: bytes
    mode: int


@dataclass(frozen=True)
class LinkBackup:
    """A symlink's target before a transaction touched it."""

    target: str


Backup = FileBackup | LinkBackup | None  # None: nothing existed at the path


class DiskTransaction(AbstractContextManager["DiskTransaction"]):
    """A `FileWriter` that restores every touched path if the `with` block raises.

    Backups are taken the first time a path is touched, so a path written twice is restored to
    its state before the transaction. Directories created for new files are removed again.
    """

    def __init__(self) -> None:
        self._backups: dict[Path, Backup] = {}
        # Paths actually changed. A write that failed left its path as it was, and restoring it
        # anyway could fail for the very reason the write did (a read-only directory).
        self._changed: set[Path] = set()
        self._created_dirs: list[Path] = []

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        if exc is None:
            self._forget()
            return
        failures = self._rollback()
        if failures:
            raise RollbackError(exc, failures) from exc

    def write_text(self, path: Path, text: str) -> None:
        target = _write_target(path)
        self._remember(target)
        self._make_parents(target.parent)
        _store(target, text.encode("utf-8"))
        self._changed.add(target)

    def remove(self, path: Path) -> None:
        self._remember(path)
        _unlink_file(path)
        self._changed.add(path)

    def _forget(self) -> None:
        self._backups.clear()
        self._changed.clear()
        self._created_dirs.clear()

    def _remember(self, path: Path) -> None:
        if path in self._backups:
            return
        if _is_real_directory(path):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        backup: Backup
        if path.is_symlink():
            backup = LinkBackup(os.readlink(path))
        elif path.exists():
            backup = FileBackup(
                read_bytes(path, WORKSPACE_TEXT_MAX_BYTES), stat.S_IMODE(path.stat().st_mode)
            )
        else:
            backup = None
        self._backups[path] = backup

    def _make_parents(self, directory: Path) -> None:
        missing: list[Path] = []
        for candidate in (directory, *directory.parents):
            if os.path.lexists(candidate):
                break
            missing.append(candidate)
        for candidate in reversed(missing):
            candidate.mkdir()
            self._created_dirs.append(candidate)

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
            with contextlib.suppress(OSError):
                directory.rmdir()
        self._forget()
        return failures

    @staticmethod
    def _restore(path: Path, backup: Backup) -> None:
        if isinstance(backup, FileBackup):
            if path.is_symlink():
                path.unlink()
            _store(path, backup.data)
            os.chmod(path, backup.mode)
            return
        if os.path.lexists(path) and not _is_real_directory(path):
            path.unlink()
        if isinstance(backup, LinkBackup):
            os.symlink(backup.target, path)
