"""Opening a directory beneath another without following a symlink on the way.

The engine writes patches itself, outside the sandbox, into folders that sandboxed
commands can change at any moment. A check of the path followed by a write to the
path lets a command swap a checked folder for a symlink in between; resolving the
path from a handle on the root, refusing every symlink and every step out of the
root, and then creating, renaming and removing relative to the handle found, makes
the check and the write one operation.

`openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` does the resolution in one
call where the kernel has it (Linux 5.6+); elsewhere each component is opened in
turn with `O_NOFOLLOW`, which gives the same guarantee one step at a time.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import struct

SYS_OPENAT2 = 437  # the same number on x86_64 and aarch64
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
_DIR_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
_NO_OPENAT2 = {errno.ENOSYS, errno.EPERM, errno.EINVAL, errno.E2BIG}

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_openat2_works = True


class EscapeRefused(PermissionError):
    """The path leads through a symlink or out of the directory it must stay in."""


def _parts(relative: str) -> list[str]:
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise EscapeRefused(errno.EXDEV, "the path leaves the directory it must stay in")
    return parts


def _openat2(dir_fd: int, path: str) -> int:
    how = ctypes.create_string_buffer(
        struct.pack(
            "=QQQ", _DIR_FLAGS, 0, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
        ),
        24,
    )
    fd = _syscall(ctypes.c_long(SYS_OPENAT2), ctypes.c_long(dir_fd), path.encode(), how, 24)
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), path)
    return int(fd)


def _step(dir_fd: int, name: str) -> int:
    """Open the directory `name` in `dir_fd`, refusing a symlink in its place."""
    fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    # With O_PATH, O_NOFOLLOW opens a symlink itself rather than failing.
    if not stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise EscapeRefused(errno.ELOOP, "refusing to follow a symbolic link", name)
    return fd


def _walk(dir_fd: int, parts: list[str], *, create: bool, created: list[str] | None) -> int:
    fd = os.dup(dir_fd)
    done: list[str] = []
    try:
        for name in parts:
            try:
                nxt = _step(fd, name)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(name, 0o777, dir_fd=fd)
                if created is not None:
                    created.append("/".join([*done, name]))
                nxt = _step(fd, name)
            except NotADirectoryError as exc:
                raise EscapeRefused(
                    errno.ELOOP, "refusing to follow a symbolic link", name
                ) from exc
            os.close(fd)
            fd = nxt
            done.append(name)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_beneath(
    dir_fd: int, relative: str, *, create: bool = False, created: list[str] | None = None
) -> int:
    """An O_PATH descriptor of the directory `relative` inside `dir_fd`.

    No symlink is followed and no step leaves `dir_fd`: a path that would needs one,
    and raises `EscapeRefused`. With `create`, missing directories are made (their
    paths relative to `dir_fd` are appended to `created`). The caller closes the
    descriptor.
    """
    global _openat2_works
    parts = _parts(relative)
    if not parts:
        return os.dup(dir_fd)
    if _openat2_works:
        try:
            return _openat2(dir_fd, "/".join(parts))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise EscapeRefused(
                    errno.ELOOP, "refusing to follow a symbolic link", relative
                ) from None
            if exc.errno == errno.EXDEV:
                raise EscapeRefused(
                    errno.EXDEV, "the path leaves its directory", relative
                ) from None
            if exc.errno in _NO_OPENAT2:
                _openat2_works = False
            elif exc.errno != errno.ENOENT or not create:
                raise
    return _walk(dir_fd, parts, create=create, created=created)


def open_root(path: str) -> int:
    """An O_PATH descriptor of the absolute, symlink-free directory `path`.

    `path` must already be resolved: a symlink found on the way now means the path
    changed since, and is refused.
    """
    root = os.open("/", _DIR_FLAGS)
    try:
        return open_beneath(root, path.lstrip("/"))
    finally:
        os.close(root)
