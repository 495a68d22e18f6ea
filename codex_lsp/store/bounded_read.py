"""Reading files a workspace or a model controls: regular files only, bounded, never blocking.

Anything in a workspace may have been planted by a command: a FIFO named like a source file,
a device, a sparse file of gigabytes that costs its author no disk. Every read of such a path
goes through `read_bytes` / `read_text`, which

- refuse what is not a regular file (`NotRegularFile`, "not a regular file: a FIFO") before
  reading, checking both the path and the opened descriptor, and open it with `O_NONBLOCK` so
  that neither the open of a FIFO nor a device can wait for a partner;
- refuse a file over the caller's limit (`FileTooLarge`, "too large (X bytes, limit Y)") from
  its size alone, without reading it, or give its first `limit` bytes when the caller wants a
  prefix (`prefix=True`), and never read more than that even if the file grows meanwhile.

Both errors are `OSError`s whose `strerror` is the sentence to show, so callers that already
report `OSError`s say the right thing.

The caps callers use are named here so the README and the tests can point to one place.
"""

from __future__ import annotations

import errno
import os
import stat

MiB = 1024 * 1024

# A file apply_patch reads to update, an attachment or file the engine reads as text for the
# model: planning a patch holds the old and new text and their lines several times over.
WORKSPACE_TEXT_MAX_BYTES = 16 * MiB
# `fs/readFile`: the answer is base64 (4/3 the size) and must fit in one 64 MiB message.
FS_READ_MAX_BYTES = 32 * MiB
# A SKILL.md is instructions, read whole when a skill is mentioned.
SKILL_FILE_MAX_BYTES = 1 * MiB
# A project's `.codex/config.toml` or `hooks.json`, read to say what it defines.
PROJECT_CONFIG_MAX_BYTES = 1 * MiB
# An image attached by path; the Responses API takes at most 20 MB per image.
IMAGE_MAX_BYTES = 20 * MiB

_CHUNK = 1 * MiB
# How to open a file to read it: never wait for a FIFO's writer, never take a terminal.
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symbolic link"),
)


class NotRegularFile(OSError):
    """The path is a FIFO, socket, device or (not followed) link: nothing the engine reads."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"not a regular file: {kind}", path)


class FileTooLarge(OSError):
    """The file is larger than the caller reads."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"too large ({size} bytes, limit {limit})", path)
        self.size = size
        self.limit = limit


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a file")


def _check(info: os.stat_result, path: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(path, _kind(info.st_mode))


def read_bytes(
    path: str | os.PathLike[str],
    limit: int,
    *,
    prefix: bool = False,
    follow_symlinks: bool = True,
) -> bytes:
    """The bytes of the regular file at `path`: all of them, at most `limit` (`FileTooLarge`
    beyond), or with `prefix` its first `limit` bytes. Raises `NotRegularFile`,
    `IsADirectoryError` and the usual `OSError`s (`FileNotFoundError`, ...)."""
    name = os.fspath(path)
    # The path is looked at first so that a device is never even opened (an open may act).
    _check(os.stat(name, follow_symlinks=follow_symlinks), name)
    flags = OPEN_FLAGS if follow_symlinks else OPEN_FLAGS | os.O_NOFOLLOW
    fd = os.open(name, flags)
    try:
        return read_opened(fd, name, limit, prefix=prefix)
    finally:
        os.close(fd)


def read_opened(fd: int, name: str, limit: int, *, prefix: bool = False) -> bytes:
    """`read_bytes` for a descriptor the caller opened (with `OPEN_FLAGS`, e.g. beneath a
    directory handle); `name` is what errors call it. The caller closes `fd`."""
    info = require_regular(fd, name)
    if info.st_size > limit and not prefix:
        raise FileTooLarge(name, info.st_size, limit)
    return _read_at_most(fd, name, limit, prefix)


def require_regular_path(name: str) -> None:
    """Raise `NotRegularFile` (or `IsADirectoryError`) when something other than a regular
    file is at `name`; nothing there is fine (a file may be created)."""
    try:
        info = os.stat(name)
    except FileNotFoundError:
        return
    _check(info, name)


def require_regular(fd: int, name: str) -> os.stat_result:
    """The status of the open `fd`, which must be a regular file (else `NotRegularFile`)."""
    # What was opened is what counts: the path may have been swapped after a look at it.
    info = os.fstat(fd)
    _check(info, name)
    return info


def _read_at_most(fd: int, name: str, limit: int, prefix: bool) -> bytes:
    chunks: list[bytes] = []
    total = 0
    # One byte past the limit tells a file that grew since fstat from one that did not.
    wanted = limit if prefix else limit + 1
    while total < wanted:
        chunk = os.read(fd, min(_CHUNK, wanted - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise FileTooLarge(name, total, limit)
    return b"".join(chunks)


def read_text(path: str | os.PathLike[str], limit: int, *, prefix: bool = False) -> str:
    """`read_bytes` decoded as UTF-8, line endings untouched. A prefix cut inside a character
    drops that character rather than failing."""
    data = read_bytes(path, limit, prefix=prefix)
    if prefix and len(data) == limit:
        return _decode_prefix(data)
    return data.decode("utf-8")


def _decode_prefix(data: bytes) -> str:
    # A UTF-8 character is at most 4 bytes: only the last 3 can belong to a cut one.
    for cut in range(4):
        try:
            return data[: len(data) - cut].decode("utf-8")
        except UnicodeDecodeError as err:
            if err.start < len(data) - 4:
                raise
    return data.decode("utf-8")
