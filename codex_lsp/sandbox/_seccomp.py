"""A seccomp-BPF filter for the sandbox, assembled by hand and installed with prctl.

`pyseccomp` (libseccomp through ctypes) costs ~25 ms to import; the filter is a
few dozen instructions, so it is cheaper to write it out. Denied calls fail with
EPERM, which programs report as "Operation not permitted".

Unix sockets: no AF_UNIX socket can be created by `socket`, in every mode and
whatever the network policy. Network access means TCP and UDP to hosts; a unix
socket reaches a daemon on this machine (a container engine, the session bus, an
ssh agent, a terminal multiplexer), and a daemon that runs what it is sent is a way
out. The filter cannot read the address `connect` is given, and neither Landlock
nor a read-only mount stops a `connect` to a socket file, so the one rule that holds
by construction is that the command never has a socket that could name an address.
Stream and seqpacket `socketpair`s keep working: they are already connected, refuse
`connect`, and ignore or refuse an address on `sendmsg`. Datagram pairs are refused,
because `sendmsg` on one delivers to any named datagram socket. The price: a program
that serves or reaches a unix socket inside the writable roots (a test suite's own
server) fails under the sandbox; over TCP on the loopback it works when the network
is on. Sockets the user lists are the exception: then unix stream and seqpacket
sockets can be created, and every `connect` is decided and made by the launcher
(`_connect_broker`), which connects only to the listed ones.

Network off: only those socket pairs exist, and the connection calls (`connect`,
`bind`, `listen`, `accept`) are denied for every family, as in Codex. A `sendto`
that names an address is denied too. `recvfrom`, `sendmsg`/`recvmsg`, `shutdown`,
socket names and options stay allowed because they can only act on sockets the
process already has.

Always denied: the kernel keyring (`add_key`, `request_key`, `keyctl`), which is
shared by every process of the user and outlives the command. SysV IPC and POSIX
message queues are denied when the command has no IPC namespace of its own (see
`IPC_CALLS`); with one, they only reach the command's own processes.

Without a private mount namespace (Landlock alone), unless the user opted out, the
calls that change metadata (mode, owner, times, extended attributes) are denied
outright, because Landlock does not mediate them and the filter cannot tell a path
inside the roots from one outside.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

from ._syscalls import AARCH64 as _AARCH64, X86_64 as _X86_64

# BPF opcodes (classic BPF as used by seccomp).
_LD_ABS_W = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_ALU_AND_K = 0x54
_RET_K = 0x06

RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
RET_KILL_PROCESS = 0x80000000
RET_USER_NOTIF = 0x7FC00000

_OFF_NR = 0
_OFF_ARCH = 4
AF_UNIX = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

# x32 system calls on x86_64 carry this bit; they would bypass every number in the table.
_X32_BIT = 0x40000000

# Denied whenever the filter is installed: ptrace reaches into unsandboxed
# processes, the keyring holds the user's secrets for all their processes and
# outlives the command, io_uring performs socket and file operations without the
# syscalls this filter sees, and the new mount API could clone a tree without the
# read-only `.git` mount or clear its read-only flag (Landlock mediates mount(2),
# not these; dropping CAP_SYS_ADMIN already stops them, this is a second lock).
ALWAYS_DENIED = (
    "ptrace",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "add_key",
    "request_key",
    "keyctl",
)
# Objects these reach are named by keys and ids in the IPC namespace, not by paths.
IPC_CALLS = (
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
)
NETWORK_DENIED = ("connect", "bind", "listen", "accept", "accept4", "sendmmsg", "recvmmsg")
# Every call that changes a file's mode, owner, times or extended attributes; names
# an architecture lacks (aarch64 has no `chmod`) are skipped.
METADATA = (
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "utime",
    "utimes",
    "futimesat",
    "utimensat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "setxattrat",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    "removexattrat",
)
SOCK_DGRAM = 2
# The low bits of `type` in socket(2) and socketpair(2); the rest are SOCK_* flags.
SOCK_TYPE_MASK = 0xF


def syscall_table() -> dict[str, int] | None:
    """Numbers for this machine, or None on an architecture the filter does not cover."""
    machine = os.uname().machine
    if machine == "x86_64":
        return _X86_64
    if machine in ("aarch64", "arm64"):
        return _AARCH64
    return None


def _arg_low(index: int) -> int:
    # seccomp_data: nr (4), arch (4), instruction_pointer (8), args[6] (8 each);
    # both supported architectures are little-endian, so the low word comes first.
    return 16 + 8 * index


def build_filter(
    table: dict[str, int],
    *,
    deny_network: bool,
    deny_ipc: bool = True,
    deny_metadata: bool = False,
    broker: bool = False,
) -> bytes:
    """The filter program as packed `struct sock_filter` entries.

    `deny_network` is the network-off policy; `deny_ipc` is for a command without an
    IPC namespace of its own; `deny_metadata` stands in for the missing read-only
    mounts (see the module's docstring). With `broker`, unix stream and seqpacket
    sockets can be created and every `connect` waits for the launcher's answer
    (`_connect_broker`).
    """
    # Each entry: (opcode, k, jump-if-true label, jump-if-false label); None = next.
    prog: list[tuple[int, int, str | None, str | None] | str] = [
        (_LD_ABS_W, _OFF_ARCH, None, None),
        (_JEQ_K, table["arch"], None, "kill"),
        (_LD_ABS_W, _OFF_NR, None, None),
    ]
    if table is _X86_64:
        prog.append((_JGE_K, _X32_BIT, "kill", None))
    if broker:
        prog.append((_JEQ_K, table["connect"], "broker", None))
    denied = list(ALWAYS_DENIED)
    if deny_network:
        denied += NETWORK_DENIED
    if deny_ipc:
        denied += IPC_CALLS
    if deny_metadata:
        denied += [name for name in METADATA if name in table]
    for name in denied:
        prog.append((_JEQ_K, table[name], "eperm", None))
    prog.append((_JEQ_K, table["socket"], "socket", None))
    prog.append((_JEQ_K, table["socketpair"], "socketpair", None))
    if deny_network:
        prog.append((_JEQ_K, table["sendto"], "sendto", None))
    prog.append((_RET_K, RET_ALLOW, None, None))
    domain = (_LD_ABS_W, _arg_low(0), None, None)
    prog += [
        "socket",
        domain,
        # Another family is allowed only when the network is.
        (_JEQ_K, AF_UNIX, "unix_type" if broker else "eperm", "eperm" if deny_network else "allow"),
        "socketpair",
        domain,
        (_JEQ_K, AF_UNIX, None, "eperm"),
        "unix_type",
        (_LD_ABS_W, _arg_low(1), None, None),
        (_ALU_AND_K, SOCK_TYPE_MASK, None, None),
        (_JEQ_K, SOCK_DGRAM, "eperm", "allow"),
    ]
    if deny_network:
        prog += [
            "sendto",
            # dest_addr (arg 4) must be NULL in both halves of the pointer.
            (_LD_ABS_W, _arg_low(4), None, None),
            (_JEQ_K, 0, None, "eperm"),
            (_LD_ABS_W, _arg_low(4) + 4, None, None),
            (_JEQ_K, 0, "allow", "eperm"),
        ]
    prog += [
        "broker",
        (_RET_K, RET_USER_NOTIF, None, None),
        "allow",
        (_RET_K, RET_ALLOW, None, None),
        "eperm",
        (_RET_K, RET_ERRNO | errno.EPERM, None, None),
        "kill",
        (_RET_K, RET_KILL_PROCESS, None, None),
    ]
    return _assemble(prog)


def _assemble(prog: list[tuple[int, int, str | None, str | None] | str]) -> bytes:
    labels: dict[str, int] = {}
    count = 0
    for item in prog:
        if isinstance(item, str):
            labels[item] = count
        else:
            count += 1
    out = bytearray()
    index = 0
    for item in prog:
        if isinstance(item, str):
            continue
        code, k, on_true, on_false = item
        jt = labels[on_true] - index - 1 if on_true else 0
        jf = labels[on_false] - index - 1 if on_false else 0
        if not (0 <= jt < 256 and 0 <= jf < 256):
            raise ValueError("seccomp filter jump out of range")
        out += struct.pack("=HBBI", code, jt, jf, k)
        index += 1
    return bytes(out)


_libc = ctypes.CDLL(None, use_errno=True)
SECCOMP_GET_ACTION_AVAIL = 2


def _check(result: int) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def set_no_new_privs() -> None:
    """Forbid gaining privileges through exec (setuid bits, file capabilities)."""
    zero = ctypes.c_ulong(0)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), zero, zero, zero))


def install(program: bytes) -> None:
    """Attach the filter to this process; it is inherited across fork and exec."""
    buf = ctypes.create_string_buffer(program, len(program))
    # struct sock_fprog { unsigned short len; struct sock_filter *filter; }
    fprog = ctypes.create_string_buffer(
        struct.pack("=H6xQ", len(program) // 8, ctypes.addressof(buf)), 16
    )
    zero = ctypes.c_ulong(0)
    _check(_libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), fprog, zero, zero))


def supported() -> bool:
    """Whether this kernel accepts seccomp filters and we know its syscall table."""
    table = syscall_table()
    if table is None:
        return False
    # Asking whether the ERRNO action exists succeeds only with filter support.
    action = ctypes.create_string_buffer(struct.pack("=I", RET_ERRNO), 4)
    result = _libc.syscall(
        ctypes.c_long(table["seccomp"]),
        ctypes.c_long(SECCOMP_GET_ACTION_AVAIL),
        ctypes.c_long(0),
        action,
    )
    return bool(result == 0)
