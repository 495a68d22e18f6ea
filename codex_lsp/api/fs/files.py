"""`fs/*`: files on the host for the client, by absolute path.

These methods act for the user at the editor, not for the model: like the reference server they
are not confined to a thread's roots or its sandbox (the model has no way to call them, and the
sandbox confines what the model runs). What they do check is the path itself: it must be
absolute, and it is normalised (`..` resolved textually) before use, so the path an error
names is the one that was used. Errors say which path failed and why.

Files are read and written only when they are regular files (a FIFO or a device is refused
at once, never waited on), reads are capped (`FS_READ_MAX_BYTES`), and the work runs in
worker threads of its own, so slow disks here never hold up other requests.
"""

from __future__ import annotations

import base64
import binascii
import errno
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio

from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.fs.watch import FsWatches
from codex_lsp.api.port import INTERNAL_ERROR, INVALID_REQUEST, ApiError
from codex_lsp.protocol.fs.models import (
    FS_COPY,
    FS_CREATE_DIRECTORY,
    FS_GET_METADATA,
    FS_READ_DIRECTORY,
    FS_READ_FILE,
    FS_REMOVE,
    FS_UNWATCH,
    FS_WATCH,
    FS_WRITE_FILE,
    FsCopyParams,
    FsCreateDirectoryParams,
    FsGetMetadataParams,
    FsGetMetadataResponse,
    FsReadDirectoryEntry,
    FsReadDirectoryParams,
    FsReadDirectoryResponse,
    FsReadFileParams,
    FsReadFileResponse,
    FsRemoveParams,
    FsUnwatchParams,
    FsWatchParams,
    FsWatchResponse,
    FsWriteFileParams,
)
from codex_lsp.store.bounded_read import (
    FS_READ_MAX_BYTES,
    read_bytes,
    require_regular,
    require_regular_path,
)


def absolute(value: str, field: str = "path") -> Path:
    """`value` as a normalised absolute path; a relative one is refused."""
    if not value or not os.path.isabs(value):
        raise ApiError(INVALID_REQUEST, f"Invalid request: {field} must be absolute, got {value!r}")
    return Path(os.path.normpath(value))


def os_error(path: Path, err: OSError) -> ApiError:
    reason = err.strerror or str(err)
    return ApiError(INTERNAL_ERROR, f"{path}: {reason} (os error {err.errno})")


# fs/* work shares these threads, not the default pool the rest of the server uses.
T = TypeVar("T")

_FS_THREADS = 8


def read_file(path: Path) -> FsReadFileResponse:
    data = read_bytes(path, FS_READ_MAX_BYTES)
    return FsReadFileResponse(data_base64=base64.b64encode(data).decode("ascii"))


def write_file(path: Path, data: str) -> None:
    try:
        content = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(INVALID_REQUEST, "Invalid request: dataBase64 is not valid base64") from None
    # Looked at first, opened without waiting (a FIFO with no reader would hold the write
    # forever) and checked again before it is truncated.
    require_regular_path(str(path))
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    fd = os.open(path, flags, 0o666)
    try:
        require_regular(fd, str(path))
        os.ftruncate(fd, 0)
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def create_directory(path: Path, recursive: bool) -> None:
    if recursive:
        path.mkdir(parents=True, exist_ok=True)
    else:
        path.mkdir()


def metadata(path: Path) -> FsGetMetadataResponse:
    link = path.lstat()
    try:
        target = path.stat()
    except OSError:
        target = link  # a dangling link is still a link
    created = getattr(target, "st_birthtime", None)
    return FsGetMetadataResponse(
        is_directory=stat.S_ISDIR(target.st_mode),
        is_file=stat.S_ISREG(target.st_mode),
        is_symlink=stat.S_ISLNK(link.st_mode),
        created_at_ms=int(created * 1000) if created else 0,
        modified_at_ms=int(target.st_mtime * 1000),
    )


def read_directory(path: Path) -> FsReadDirectoryResponse:
    entries = []
    with os.scandir(path) as listing:
        for entry in listing:
            entries.append(
                FsReadDirectoryEntry(
                    file_name=entry.name,
                    is_directory=entry.is_dir(),
                    is_file=entry.is_file(),
                )
            )
    entries.sort(key=lambda e: e.file_name)
    return FsReadDirectoryResponse(entries=entries)


def remove(path: Path, recursive: bool, force: bool) -> None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        if force:
            return
        raise
    if stat.S_ISDIR(info.st_mode):
        if recursive:
            shutil.rmtree(path)
        else:
            path.rmdir()
    else:
        path.unlink()


def copy(source: Path, destination: Path, recursive: bool) -> None:
    info = source.lstat()
    if stat.S_ISDIR(info.st_mode):
        if not recursive:
            raise ApiError(
                INVALID_REQUEST, "fs/copy requires recursive: true when sourcePath is a directory"
            )
        if destination == source or source in destination.parents:
            raise ApiError(INVALID_REQUEST, f"cannot copy {source} into itself ({destination})")
        # Links are copied as links; sockets, fifos and devices are left out.
        shutil.copytree(source, destination, symlinks=True, ignore=_special_files)
    elif stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(source), destination)
    else:
        shutil.copy2(source, destination)


def _special_files(directory: str, names: list[str]) -> list[str]:
    skipped = []
    for name in names:
        mode = os.lstat(os.path.join(directory, name)).st_mode
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            skipped.append(name)
    return skipped


async def _on_disk(
    limiter: anyio.CapacityLimiter, path: Path, action: Callable[..., T], *args: Any
) -> T:
    """Run a blocking file operation in a worker thread; an OS error names `path`."""
    try:
        return await anyio.to_thread.run_sync(action, *args, limiter=limiter)
    except OSError as err:
        failed = Path(err.filename) if isinstance(err.filename, str) else path
        if err.errno == errno.ENOENT and failed != path:
            failed = path
        raise os_error(failed, err) from None


def handlers(ctx: ApiContext) -> Routes:
    watches = FsWatches(ctx)
    ctx.closers.append(watches.close)
    limiter = anyio.CapacityLimiter(_FS_THREADS)

    async def read(params: FsReadFileParams, _raw: dict[str, Any]) -> FsReadFileResponse:
        path = absolute(params.path)
        return await _on_disk(limiter, path, read_file, path)

    async def write(params: FsWriteFileParams, _raw: dict[str, Any]) -> None:
        path = absolute(params.path)
        await _on_disk(limiter, path, write_file, path, params.data_base64)

    async def mkdir(params: FsCreateDirectoryParams, _raw: dict[str, Any]) -> None:
        path = absolute(params.path)
        recursive = True if params.recursive is None else params.recursive
        await _on_disk(limiter, path, create_directory, path, recursive)

    async def get_metadata(
        params: FsGetMetadataParams, _raw: dict[str, Any]
    ) -> FsGetMetadataResponse:
        path = absolute(params.path)
        return await _on_disk(limiter, path, metadata, path)

    async def list_directory(
        params: FsReadDirectoryParams, _raw: dict[str, Any]
    ) -> FsReadDirectoryResponse:
        path = absolute(params.path)
        return await _on_disk(limiter, path, read_directory, path)

    async def delete(params: FsRemoveParams, _raw: dict[str, Any]) -> None:
        path = absolute(params.path)
        recursive = True if params.recursive is None else params.recursive
        force = True if params.force is None else params.force
        await _on_disk(limiter, path, remove, path, recursive, force)

    async def duplicate(params: FsCopyParams, _raw: dict[str, Any]) -> None:
        source = absolute(params.source_path, "sourcePath")
        destination = absolute(params.destination_path, "destinationPath")
        await _on_disk(limiter, source, copy, source, destination, bool(params.recursive))

    async def watch(params: FsWatchParams, _raw: dict[str, Any]) -> FsWatchResponse:
        return await watches.watch(params.watch_id, absolute(params.path))

    async def unwatch(params: FsUnwatchParams, _raw: dict[str, Any]) -> None:
        await watches.unwatch(params.watch_id)

    return (
        Routes()
        .on(FS_READ_FILE, read)
        .on(FS_WRITE_FILE, write)
        .on(FS_CREATE_DIRECTORY, mkdir)
        .on(FS_GET_METADATA, get_metadata)
        .on(FS_READ_DIRECTORY, list_directory)
        .on(FS_REMOVE, delete)
        .on(FS_COPY, duplicate)
        .on(FS_WATCH, watch)
        .on(FS_UNWATCH, unwatch)
    )
