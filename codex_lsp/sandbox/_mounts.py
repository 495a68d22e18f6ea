"""A private mount namespace that keeps protected paths read-only inside writable roots.

Landlock grants rights on whole hierarchies and has no "deny" rule, so a right to
create files in the workspace would also be a right to create `.git/hooks/pre-commit`.
A read-only bind mount of `.git` over itself closes that while the rest of the root
stays writable, including files created directly in it. The same namespace makes
every other mount read-only, which Landlock alone cannot express: it does not cover
chmod, chown, utime or xattr changes, and these now fail with EROFS outside the roots.

Inside the namespace the command also gets a `/dev` of its own (the few character
devices every program uses, and a fresh devpts instance, so no other session's
terminal is there to open), a `/proc` of its own PID namespace, and empty read-only
file systems over the directories it must not read (`$CODEX_HOME`, the per-user
server's socket directory).

Unprivileged users get the namespace through a user namespace that maps only their
own uid and gid; root uses a plain mount namespace so file ownership and
capabilities look as they do outside. Once Landlock is enforced the sandboxed
process can no longer mount or unmount anything, so these mounts cannot be undone.
"""

from __future__ import annotations

import ctypes
import os
import struct

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOSYMFOLLOW = 256
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MS_STRICTATIME = 1 << 24

# statvfs f_flag bits that must be repeated on a bind remount: inside a user
# namespace they are locked, and leaving one out is refused with EPERM.
_ST_NOSUID = 2
_ST_NODEV = 4
_ST_NOEXEC = 8
_ST_NOATIME = 1024
_ST_NODIRATIME = 2048
_ST_RELATIME = 4096
_ST_NOSYMFOLLOW = 0x2000

# Mounting over these would trigger automounts or is meaningless.
_SKIP_FSTYPES = frozenset({"autofs"})

_libc = ctypes.CDLL(None, use_errno=True)


def _fail(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, flags: int) -> None:
    src = source.encode() if source is not None else None
    if _libc.mount(src, target.encode(), None, ctypes.c_ulong(flags), None) != 0:
        raise _fail(f"mount {target}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter_private_namespace(*, pid: bool = True, net: bool = False) -> int:
    """Move this process into its own mount and IPC namespaces (and, for the children it
    forks next, a PID and a network namespace); the flags obtained, or 0 if refused.

    Nothing is changed when it returns 0, so the caller can fall back to
    Landlock-only protection. A kernel that refuses the PID or network namespace
    but allows the mount namespace gets the mount namespace alone.
    """
    uid, gid = os.geteuid(), os.getegid()
    extra = (CLONE_NEWPID if pid else 0) | (CLONE_NEWNET if net else 0)
    user = 0 if uid == 0 else CLONE_NEWUSER
    base = CLONE_NEWNS | user
    for flags in (base | CLONE_NEWIPC | extra, base | CLONE_NEWIPC, base):
        if _libc.unshare(flags) == 0:
            break
    else:
        return 0
    if user:
        # An unmapped uid would show every file as owned by "nobody" and make
        # exec fail; map exactly ourselves and nothing else.
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    # Without this, mounts made here would propagate back to the host's peers.
    _mount(None, "/", MS_REC | MS_PRIVATE)
    return flags


def enter_pid_namespace() -> int:
    """A PID namespace alone (for the children forked next), for root without a mount
    namespace; CLONE_NEWPID, or 0 if refused. No /proc is mounted for it: there is no
    private mount namespace to mount it in."""
    return CLONE_NEWPID if os.geteuid() == 0 and _libc.unshare(CLONE_NEWPID) == 0 else 0


def _locked_flags(path: str) -> int:
    flag = os.statvfs(path).f_flag
    flags = 0
    for st, ms in (
        (_ST_NOSUID, MS_NOSUID),
        (_ST_NODEV, MS_NODEV),
        (_ST_NOEXEC, MS_NOEXEC),
        (_ST_NOATIME, MS_NOATIME),
        (_ST_NODIRATIME, MS_NODIRATIME),
        (_ST_RELATIME, MS_RELATIME),
        (_ST_NOSYMFOLLOW, MS_NOSYMFOLLOW),
    ):
        if flag & st:
            flags |= ms
    if not flag & (_ST_NOATIME | _ST_RELATIME):
        flags |= MS_STRICTATIME
    return flags


def remount(path: str, *, read_only: bool) -> None:
    """Flip the read-only flag of the mount at `path`, keeping its other flags."""
    flags = MS_BIND | MS_REMOUNT | _locked_flags(path)
    if read_only:
        flags |= MS_RDONLY
    _mount(None, path, flags)


def bind_in_place(path: str, *, read_only: bool) -> None:
    """Mount `path` over itself so it can carry its own read-only flag."""
    _mount(path, path, MS_BIND | MS_REC)
    if read_only:
        remount(path, read_only=True)


# The mount API of Linux 5.2+ (5.12 for mount_setattr): a mount made from a handle and
# attached onto a handle, with no path resolved in between. Same numbers on x86_64 and aarch64.
_SYS_OPEN_TREE = 428
_SYS_MOVE_MOUNT = 429
_SYS_MOUNT_SETATTR = 442
_OPEN_TREE_CLONE = 1
_OPEN_TREE_CLOEXEC = os.O_CLOEXEC
_AT_EMPTY_PATH = 0x1000
_AT_RECURSIVE = 0x8000
_MOVE_MOUNT_F_EMPTY_PATH = 0x04
_MOVE_MOUNT_T_EMPTY_PATH = 0x40
_MOUNT_ATTR_RDONLY = 1
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


def bind_read_only_at(fd: int) -> None:
    """Cover what `fd` (an O_PATH handle) refers to with a read-only bind of itself.

    The copy is made read-only before it is attached, and attached onto the handle, so
    a path changed meanwhile cannot send the mount elsewhere.
    """
    tree = _syscall(
        ctypes.c_long(_SYS_OPEN_TREE),
        ctypes.c_int(fd),
        b"",
        ctypes.c_uint(_OPEN_TREE_CLONE | _OPEN_TREE_CLOEXEC | _AT_EMPTY_PATH | _AT_RECURSIVE),
    )
    if tree < 0:
        raise _fail("open_tree")
    try:
        attr = ctypes.create_string_buffer(struct.pack("=QQQQ", _MOUNT_ATTR_RDONLY, 0, 0, 0), 32)
        flags = ctypes.c_uint(_AT_EMPTY_PATH | _AT_RECURSIVE)
        if _syscall(ctypes.c_long(_SYS_MOUNT_SETATTR), ctypes.c_int(tree), b"", flags, attr, 32):
            raise _fail("mount_setattr")
        move = ctypes.c_uint(_MOVE_MOUNT_F_EMPTY_PATH | _MOVE_MOUNT_T_EMPTY_PATH)
        if _syscall(
            ctypes.c_long(_SYS_MOVE_MOUNT), ctypes.c_int(tree), b"", ctypes.c_int(fd), b"", move
        ):
            raise _fail("move_mount")
    finally:
        os.close(int(tree))


def mount_tmpfs(path: str) -> None:
    """A fresh, empty, world-writable (sticky) tmpfs at `path`."""
    flags = MS_NOSUID | MS_NODEV
    if _libc.mount(b"tmpfs", path.encode(), b"tmpfs", ctypes.c_ulong(flags), b"mode=1777") != 0:
        raise _fail(f"mount tmpfs on {path}")


def hide(path: str) -> None:
    """Cover the directory `path` with an empty, read-only file system."""
    flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    if _libc.mount(b"tmpfs", path.encode(), b"tmpfs", ctypes.c_ulong(flags), b"size=4k,mode=0500"):
        raise _fail(f"hide {path}")


def mount_proc() -> None:
    """A `/proc` of this process's PID namespace over the host's."""
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    if _libc.mount(b"proc", b"/proc", b"proc", ctypes.c_ulong(flags), None) != 0:
        raise _fail("mount /proc")


# Character devices a program may expect in /dev; they are bound in from the host's.
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
DEV_LINKS = (
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
    ("ptmx", "pts/ptmx"),
)


def minimal_dev() -> None:
    """Replace `/dev` with a small tmpfs: the usual character devices, a private
    devpts instance (pseudo-terminals made inside only), and a private `/dev/shm`.

    Nothing else of the host's `/dev` is reachable: not its disks, not its input
    devices, not the terminals of other sessions in its `/dev/pts`.
    """
    # Held open across the tmpfs mount, which hides the host's nodes by their paths.
    held = {}
    for name in DEV_NODES:
        try:
            held[name] = os.open(f"/dev/{name}", os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
    try:
        if _libc.mount(b"tmpfs", b"/dev", b"tmpfs", ctypes.c_ulong(MS_NOSUID), b"mode=0755") != 0:
            raise _fail("mount tmpfs on /dev")
        for name, fd in held.items():
            target = f"/dev/{name}"
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o666))
            _mount(f"/proc/self/fd/{fd}", target, MS_BIND)
    finally:
        for fd in held.values():
            os.close(fd)
    for name, target in DEV_LINKS:
        os.symlink(target, f"/dev/{name}")
    os.mkdir("/dev/pts", 0o755)
    os.mkdir("/dev/shm", 0o1777)
    options = b"newinstance,ptmxmode=0666,mode=0620"
    flags = ctypes.c_ulong(MS_NOSUID | MS_NOEXEC)
    if _libc.mount(b"devpts", b"/dev/pts", b"devpts", flags, options) != 0:
        raise _fail("mount devpts on /dev/pts")
    mount_tmpfs("/dev/shm")
    # The tmpfs itself takes no new entries; the mounts on it stay as they are.
    _mount(None, "/dev", MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)


def mountpoints() -> list[str]:
    """Mount points of this namespace, parents before children."""
    found: list[str] = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            fields = line.split()
            if len(fields) < 10:
                continue
            try:
                fstype = fields[fields.index("-", 6) + 1]
            except (ValueError, IndexError):
                continue
            if fstype in _SKIP_FSTYPES:
                continue
            found.append(_unescape(fields[4]))
    return found


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash as \ooo octal escapes.
    if "\\" not in field:
        return field
    out: list[str] = []
    i = 0
    while i < len(field):
        if field[i] == "\\" and i + 4 <= len(field) and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)
