"""Capabilities a sandboxed command must not keep, for when the engine runs as root.

Landlock and the read-only mounts do not stop root's administrative powers: with
CAP_SYS_ADMIN a command can clone a mount tree without the read-only `.git` bind
(`open_tree`) or clear the read-only flag (`mount_setattr`), and with others load a
kernel module, reboot, or poke I/O ports. Dropping them from the bounding set means
the command (root's exec gets exactly the bounding set) never has them.

What stays is what a build run as root on files it does not own needs: file
ownership and modes (`CAP_CHOWN`, `CAP_DAC_OVERRIDE`, `CAP_FOWNER`, `CAP_FSETID`, for
a workspace owned by another user, `tar` and `cp -p`), signals to its own processes
(`CAP_KILL`; Landlock confines signals to the command's own domain) and low ports.
Gone with the rest: becoming another user or group (`CAP_SETUID`, `CAP_SETGID`),
which would open whatever that user owns outside the filesystem rules (their SysV
segments, their keyring); passing capabilities on (`CAP_SETPCAP`, `CAP_SETFCAP`);
raw sockets (`CAP_NET_RAW`, which forge packets when the network is on); `chroot`,
device nodes and audit records. Tools that switch users as root (apt's `_apt`
sandbox user, `su`, `runuser`) fail with "Operation not permitted"; they could not
install anything outside the writable roots anyway.
"""

from __future__ import annotations

import ctypes
import os

PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4

KEEP = frozenset(
    {
        0,  # CAP_CHOWN
        1,  # CAP_DAC_OVERRIDE
        3,  # CAP_FOWNER
        4,  # CAP_FSETID
        5,  # CAP_KILL
        10,  # CAP_NET_BIND_SERVICE
    }
)

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg2: int, arg3: int = 0) -> int:
    zero = ctypes.c_ulong(0)
    return int(_libc.prctl(option, ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), zero, zero))


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 40


def drop_dangerous() -> None:
    """Clear ambient capabilities, and for root shrink the bounding set to KEEP."""
    # Ambient capabilities would survive exec for non-root users too.
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    if os.geteuid() != 0:
        return
    for cap in range(_last_cap() + 1):
        # Already absent (as in many containers): nothing to drop, and dropping
        # would need CAP_SETPCAP, which such a root may not have either.
        if cap in KEEP or _prctl(PR_CAPBSET_READ, cap) != 1:
            continue
        if _prctl(PR_CAPBSET_DROP, cap) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"cannot drop capability {cap}: {os.strerror(err)}")
