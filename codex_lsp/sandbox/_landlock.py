"""Landlock through raw system calls (ctypes), for the sandbox launcher.

The `landlock` package costs ~17 ms to import (dataclasses, inspect); three syscalls
and two structs do not need it. Syscall numbers 444-446 are shared by x86_64 and
aarch64. Rights we do not list as handled stay unrestricted, which is how device
ioctls (terminals) keep working.

From ABI 6 a ruleset also scopes IPC: a sandboxed process can neither signal a
process outside its domain nor connect or send to an abstract unix socket that a
process outside it created.
"""

from __future__ import annotations

import ctypes
import os
import stat
import struct

SYS_CREATE_RULESET = 444
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

READ = EXECUTE | READ_FILE | READ_DIR
# Rights that a rule on a non-directory may carry; anything else is EINVAL there.
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE
# Everything a build needs beneath a writable root. Device nodes are left out on
# purpose: a root-owned command that could mknod a disk inside the workspace would
# write the whole disk through it.
WRITE = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_SYM
    | REFER
    | TRUNCATE
)
DEVICE = READ_FILE | WRITE_FILE | TRUNCATE

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


def _call(nr: int, *args: int | ctypes.Array[ctypes.c_char] | None) -> int:
    cargs = [a if isinstance(a, ctypes.Array) else ctypes.c_long(a or 0) for a in args]
    result = _syscall(ctypes.c_long(nr), *cargs)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return int(result)


def abi_version() -> int:
    """The kernel's Landlock ABI version, or 0 when Landlock is missing or disabled."""
    try:
        return _call(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except OSError:
        return 0


def handled_fs(abi: int) -> int:
    """The filesystem rights this ABI can restrict (ioctl on devices is left alone)."""
    rights = READ | WRITE | MAKE_CHAR | MAKE_BLOCK
    if abi < 2:
        rights &= ~REFER
    if abi < 3:
        rights &= ~TRUNCATE
    return rights


def scopes(abi: int) -> int:
    """The IPC scopes this ABI enforces: signals and abstract unix sockets from ABI 6."""
    return SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0


class Ruleset:
    """A Landlock ruleset being filled in, then enforced on this process."""

    def __init__(self, abi: int, *, deny_tcp: bool) -> None:
        self.abi = abi
        self.handled = handled_fs(abi)
        self.scoped = scopes(abi)
        net = NET_BIND_TCP | NET_CONNECT_TCP if deny_tcp and abi >= 4 else 0
        if self.scoped:
            fields = struct.pack("=QQQ", self.handled, net, self.scoped)
        elif net:
            fields = struct.pack("=QQ", self.handled, net)
        else:
            fields = struct.pack("=Q", self.handled)
        attr = ctypes.create_string_buffer(fields, len(fields))
        self.fd = _call(SYS_CREATE_RULESET, attr, len(attr), 0)

    def allow(self, path: str, rights: int) -> bool:
        """Grant `rights` on `path` and everything beneath it; False if it is gone.

        The path is opened without following a final symlink: a link inside a root
        must not carry the root's rights to wherever it points.
        """
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            return False
        try:
            return self.allow_fd(fd, rights)
        finally:
            os.close(fd)

    def allow_fd(self, fd: int, rights: int) -> bool:
        """Grant `rights` on what the descriptor `fd` (O_PATH will do) refers to."""
        st = os.fstat(fd)
        if stat.S_ISLNK(st.st_mode):
            return False
        if not stat.S_ISDIR(st.st_mode):
            rights &= FILE_ONLY
        rights &= self.handled
        if not rights:
            return True
        attr = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        _call(SYS_ADD_RULE, self.fd, RULE_PATH_BENEATH, attr, 0)
        return True

    def enforce(self) -> None:
        """Restrict this process and every child it will have. Needs no_new_privs."""
        try:
            _call(SYS_RESTRICT_SELF, self.fd, 0)
        finally:
            os.close(self.fd)
