"""Verify a patch against the workspace, then write it.

`plan_patch` reads through a `FileReader` and computes every file's new text without writing
anything, so a patch whose third hunk does not match leaves the first two files untouched.
`apply_plan` then writes the plan through a `FileWriter`, inside a transaction when the writer
offers one, so a failing write puts back the files written before it.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from codex_lsp.store.bounded_read import FileTooLarge

from .errors import PatchApplyError, PatchWriteError
from .parser import AddFile, DeleteFile, Hunk, UpdateFile, parse_patch
from .plan import FileOperation, PatchPlan
from .update import ChunkMismatch, apply_chunks_with_edits
from .workspace import DiskFiles, FileReader, FileWriter, RollbackError, TransactionalWriter

NO_FILES_MODIFIED = "No files were modified."


def resolve_patch_path(cwd: Path, raw: str) -> Path:
    """Resolve a path from a patch: relative to `cwd`, absolute accepted, `..` folded lexically.

    Lexical folding (no symlink resolution) is what the safety check uses too, so the path that
    is checked against the writable roots is the path that gets written.
    """
    return Path(os.path.normpath(Path(os.path.abspath(cwd)) / raw))


def _reason(error: BaseException) -> str:
    if isinstance(error, UnicodeDecodeError):
        return "the file is not valid UTF-8 text"
    if isinstance(error, IsADirectoryError):
        return "it is a directory"
    if isinstance(error, FileTooLarge):
        return f"{error.strerror}: apply_patch does not edit files this large"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


class _PatchedView:
    """The workspace as it will look after the hunks planned so far.

    Later hunks read through it, so a patch may update a file it added, or add a file it
    deleted, with the same result as applying hunk by hunk.
    """

    def __init__(self, files: FileReader) -> None:
        self._files = files
        self._pending: dict[Path, str | None] = {}

    def read(self, path: Path) -> str:
        if path in self._pending:
            text = self._pending[path]
            if text is None:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
            return text
        return self._files.read_text(path)

    def exists(self, path: Path) -> bool:
        if path in self._pending:
            return self._pending[path] is not None
        return self._files.exists(path)

    def is_directory(self, path: Path) -> bool:
        # The reader port has no directory query; a directory is what refuses to be read as one.
        if path in self._pending or not self._files.exists(path):
            return False
        try:
            self._files.read_text(path)
        except IsADirectoryError:
            return True
        except (OSError, UnicodeDecodeError):
            return False
        return False

    def write(self, path: Path, text: str) -> None:
        self._pending[path] = text

    def remove(self, path: Path) -> None:
        self._pending[path] = None


def plan_patch(patch_text: str, cwd: Path, files: FileReader | None = None) -> PatchPlan:
    """Parse `patch_text` and compute its effect on the files under `cwd`, writing nothing.

    `files` defaults to the disk. Raises `PatchParseError` for malformed text and
    `PatchApplyError` when a hunk cannot be applied (missing file, context not found, ...).
    """
    hunks = parse_patch(patch_text)
    if not hunks:
        raise PatchApplyError(NO_FILES_MODIFIED)
    view = _PatchedView(files if files is not None else DiskFiles())
    operations = [
        _plan_hunk(hunk, number, Path(cwd), view) for number, hunk in enumerate(hunks, start=1)
    ]
    return PatchPlan(Path(os.path.abspath(cwd)), tuple(operations), tuple(hunks))


def _failure(hunk: Hunk, number: int, reason: str, chunk: int | None = None) -> PatchApplyError:
    return PatchApplyError(reason, hunk=number, path=hunk.path, header=hunk.header, chunk=chunk)


def _plan_hunk(hunk: Hunk, number: int, cwd: Path, view: _PatchedView) -> FileOperation:
    path = resolve_patch_path(cwd, hunk.path)

    if isinstance(hunk, AddFile):
        if view.is_directory(path):
            reason = f"Failed to write file {hunk.path}: a directory exists at that path"
            raise _failure(hunk, number, reason)
        view.write(path, hunk.contents)
        return FileOperation("add", path, hunk.path, None, hunk.contents)

    if isinstance(hunk, DeleteFile):
        try:
            old = view.read(path)
        except UnicodeDecodeError:
            # Binary files can still be deleted; there is just no text to show for them.
            old = ""
        except OSError as error:
            reason = f"Failed to delete file {hunk.path}: {_reason(error)}"
            raise _failure(hunk, number, reason) from error
        view.remove(path)
        return FileOperation("delete", path, hunk.path, old, None)

    return _plan_update(hunk, number, path, cwd, view)


def _plan_update(
    hunk: UpdateFile, number: int, path: Path, cwd: Path, view: _PatchedView
) -> FileOperation:
    try:
        old = view.read(path)
    except (OSError, UnicodeDecodeError) as error:
        reason = f"Failed to read file to update {hunk.path}: {_reason(error)}"
        raise _failure(hunk, number, reason) from error
    try:
        new, edits = apply_chunks_with_edits(old, hunk.chunks, hunk.path)
    except ChunkMismatch as mismatch:
        raise _failure(hunk, number, mismatch.reason, mismatch.chunk) from None

    destination = resolve_patch_path(cwd, hunk.move_path) if hunk.move_path else None
    if destination == path:
        destination = None
    if destination is not None and view.is_directory(destination):
        raise _failure(
            hunk,
            number,
            f"Failed to move {hunk.path} to {hunk.move_path}: a directory exists at that path",
        )

    if destination is None:
        view.write(path, new)
        return FileOperation("update", path, hunk.path, old, new, edits=edits)
    view.write(destination, new)
    view.remove(path)
    return FileOperation(
        "update", path, hunk.path, old, new, destination, hunk.move_path, edits=edits
    )


class _StepFailed(Exception):
    def __init__(self, reason: str, path: str) -> None:
        self.reason = reason
        self.path = path
        super().__init__(reason)


def _perform(plan: PatchPlan, writer: FileWriter) -> None:
    for op in plan.operations:
        verb, shown = "write", op.display_destination
        try:
            if op.kind == "delete":
                verb, shown = "delete", op.display_path
                writer.remove(op.path)
                continue
            assert op.new_content is not None
            writer.write_text(op.destination, op.new_content)
            if op.move_path is not None:
                verb, shown = "delete", op.display_path
                writer.remove(op.path)
        except (OSError, UnicodeError) as error:
            raise _StepFailed(f"Failed to {verb} file {shown}: {_reason(error)}", shown) from error


def apply_plan(plan: PatchPlan, writer: FileWriter | None = None) -> str:
    """Write `plan` through `writer` (default: the disk) and return the success summary.

    Raises `PatchWriteError`. With a transactional writer such as `DiskFiles`, files written
    before the failure are restored first and `rolled_back` is true.
    """
    target = writer if writer is not None else DiskFiles()
    if not isinstance(target, TransactionalWriter):
        try:
            _perform(plan, target)
        except _StepFailed as failed:
            raise PatchWriteError(failed.reason, rolled_back=False, path=failed.path) from failed
        return plan.summary()

    try:
        with target.transaction() as transaction:
            _perform(plan, transaction)
    except RollbackError as error:
        cause = error.cause
        reason = cause.reason if isinstance(cause, _StepFailed) else str(cause)
        detail = "; ".join(error.failures)
        raise PatchWriteError(
            f"{reason}\nRestoring the files written before the failure also failed: {detail}",
            rolled_back=False,
        ) from error
    except _StepFailed as failed:
        raise PatchWriteError(
            f"{failed.reason}\nNo files were changed.", rolled_back=True, path=failed.path
        ) from failed
    return plan.summary()


def apply_patch_to_disk(patch_text: str, cwd: Path) -> str:
    """Verify and apply `patch_text` on disk under `cwd`; return the success summary."""
    disk = DiskFiles()
    return apply_plan(plan_patch(patch_text, cwd, disk), disk)
