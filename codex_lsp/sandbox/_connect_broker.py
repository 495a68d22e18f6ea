"""Connections to the unix sockets the user allowed, made by the launcher for the command.

A sandboxed command cannot create a unix socket that could name an address (see
`_seccomp`). When the user lists sockets (`[sandbox_linux] allow_unix_sockets`), it
may create stream and seqpacket ones, and every `connect` it makes stops in the
kernel (a seccomp user notification) until the launcher's outer process, which is
not sandboxed, has decided:

* a unix socket named by one of the listed paths is connected by the launcher itself,
  through a copy of the command's descriptor, to the listed socket's inode, which it
  opened when it started: what the command's memory says after the check, or where
  a path leads by then, changes nothing;
* any other unix address (outside or inside the roots, abstract) is refused with EPERM;
* any other family (TCP and UDP) is refused with the network off, and with it on
  connected the same way, to the address the launcher read: checking it and letting
  the kernel go on would leave a window in which the command swaps the descriptor
  for a unix socket.

The launcher cannot start threads (it has asked for a PID namespace for its
children), so a connection that takes time is started non-blocking and answered from
the launcher's poll loop once it is made or has failed: a slow host holds up neither
the other connections, nor the relayed signals, nor the end of the command. (A unix
listener whose backlog is full makes a blocking `connect` fail with EAGAIN here,
where it would otherwise wait.)
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

SECCOMP_SET_MODE_FILTER = 1
FLAG_NEW_LISTENER = 1 << 3
FLAG_WAIT_KILLABLE_RECV = 1 << 5
RET_USER_NOTIF = 0x7FC00000
# _IOWR('!', 0, struct seccomp_notif), _IOWR('!', 1, struct seccomp_notif_resp),
# _IOW('!', 2, __u64).
_NOTIF_RECV = 0xC0502100
_NOTIF_SEND = 0xC0182101
_NOTIF_ID_VALID = 0x40082102
_NOTIF = struct.Struct("=QIIiIQ6Q")  # id, pid, flags, nr, arch, ip, args
_RESP = struct.Struct("=QqiI")  # id, val, error, flags
_SYS_PIDFD_GETFD = 438
_SOL_SOCKET = 1
_SO_DOMAIN = 39
_SO_ERROR = 4
_AF_UNIX = 1
_SUN_PATH = 108


def install_with_listener(program: bytes, seccomp_nr: int) -> int:
    """Attach the filter (which answers `connect` with RET_USER_NOTIF) to this process;
    the descriptor its notifications arrive on."""
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = ctypes.create_string_buffer(
        struct.pack("=H6xQ", len(program) // 8, ctypes.addressof(buf)), 16
    )
    for flags in (FLAG_NEW_LISTENER | FLAG_WAIT_KILLABLE_RECV, FLAG_NEW_LISTENER):
        fd = _libc.syscall(
            ctypes.c_long(seccomp_nr),
            ctypes.c_long(SECCOMP_SET_MODE_FILTER),
            ctypes.c_long(flags),
            fprog,
        )
        if fd >= 0:
            return int(fd)
        err = ctypes.get_errno()
        if err != errno.EINVAL:  # EINVAL: a kernel without killable waits (before 5.19)
            break
    raise OSError(err, f"seccomp listener: {os.strerror(err)}")


class AllowedSockets:
    """The listed sockets, each held by an O_PATH descriptor from now on, and this
    process's own descriptor directory to reach them through.

    Opened before the namespaces: the `/proc` mounted later is the command's PID
    namespace's, in which this process has no entry, and the mounts may hide a path.
    """

    def __init__(self, paths: list[str]) -> None:
        self.fd_dir = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self.held: dict[bytes, int] = {}
        for path in paths:
            try:
                self.held[os.fsencode(path)] = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # not there (yet): connecting to it is refused like any other

    def close(self) -> None:
        os.close(self.fd_dir)
        for fd in self.held.values():
            os.close(fd)


class Broker:
    """Answers the command's `connect` calls from the launcher's outer process."""

    def __init__(self, listener: int, allowed: AllowedSockets, *, network: bool) -> None:
        self.fd = listener
        self.allowed = allowed
        self.network = network
        # Connections under way, by the launcher's copy of the socket: the call to answer.
        self.pending: dict[int, int] = {}
        self._poller: select.poll | None = None

    def attach(self, poller: select.poll) -> None:
        self._poller = poller
        poller.register(self.fd, select.POLLIN)

    def owns(self, fd: int) -> bool:
        return fd == self.fd or fd in self.pending

    def ready(self, fd: int, events: int) -> None:
        """Act on what `poll` reported for one of the broker's descriptors."""
        assert self._poller is not None
        if fd == self.fd:
            if events & select.POLLIN:
                self._take()
            else:  # no process is left under the filter
                self._poller.unregister(fd)
            return
        notif_id = self.pending.pop(fd)
        self._poller.unregister(fd)
        error = ctypes.c_int(0)
        size = ctypes.c_uint32(4)
        _libc.getsockopt(fd, _SOL_SOCKET, _SO_ERROR, ctypes.byref(error), ctypes.byref(size))
        os.close(fd)
        self._answer(notif_id, -error.value)

    def _take(self) -> None:
        buf = ctypes.create_string_buffer(_NOTIF.size)
        if _libc.ioctl(self.fd, ctypes.c_ulong(_NOTIF_RECV), buf) != 0:
            return  # the caller is gone already
        fields = _NOTIF.unpack(buf.raw)
        notif_id, pid, args = fields[0], fields[1], fields[6:]
        try:
            target = self._prepare(notif_id, pid, args)
        except OSError as exc:
            self._answer(notif_id, -(exc.errno or errno.EPERM))
            return
        if target is None:
            self._answer(notif_id, -errno.EPERM)
            return
        self._connect(notif_id, *target)

    def _prepare(self, notif_id: int, pid: int, args: tuple[int, ...]) -> tuple[int, bytes] | None:
        """The command's socket (a copy) and the address to connect it to, or None to refuse."""
        sockfd, address, length = args[0] & 0xFFFFFFFF, args[1], args[2] & 0xFFFFFFFF
        length = min(length, 2 + _SUN_PATH) if length >= 2 else 0
        raw = _read_memory(pid, address, length)
        # The pid still names the caller: what was read is its memory.
        check = ctypes.c_uint64(notif_id)
        if _libc.ioctl(self.fd, ctypes.c_ulong(_NOTIF_ID_VALID), ctypes.byref(check)) != 0:
            raise OSError(errno.ENOENT, "gone")
        pidfd = os.pidfd_open(pid)
        try:
            copy = int(_libc.syscall(_SYS_PIDFD_GETFD, pidfd, sockfd, 0))
        finally:
            os.close(pidfd)
        if copy < 0:
            raise OSError(ctypes.get_errno(), "pidfd_getfd")
        domain = ctypes.c_int(0)
        size = ctypes.c_uint32(4)
        got = _libc.getsockopt(
            copy, _SOL_SOCKET, _SO_DOMAIN, ctypes.byref(domain), ctypes.byref(size)
        )
        if got != 0:
            os.close(copy)
            raise OSError(errno.ENOTSOCK, "not a socket")
        if domain.value != _AF_UNIX:
            if self.network:
                return copy, raw
            # With the network off only an inherited socket can be of another family.
            os.close(copy)
            return None
        held = self.allowed.held.get(_sun_path(raw))
        if held is None:
            os.close(copy)
            return None
        # Relative to the descriptor directory: the inode held, wherever the path leads now.
        os.fchdir(self.allowed.fd_dir)
        return copy, _sockaddr_un(str(held).encode())

    def _connect(self, notif_id: int, copy: int, address: bytes) -> None:
        # The copy shares the caller's file status flags: a blocking caller's socket is
        # made non-blocking just for the call, and waited for in the poll loop.
        blocking = os.get_blocking(copy)
        if blocking:
            os.set_blocking(copy, False)
        buf = ctypes.create_string_buffer(address, len(address))
        result = _libc.connect(copy, buf, len(address))
        error = ctypes.get_errno() if result != 0 else 0
        if blocking:
            os.set_blocking(copy, True)
        if blocking and error == errno.EINPROGRESS and self._poller is not None:
            self.pending[copy] = notif_id
            self._poller.register(copy, select.POLLOUT)
            return
        os.close(copy)
        self._answer(notif_id, -error)

    def _answer(self, notif_id: int, error: int) -> None:
        resp = ctypes.create_string_buffer(_RESP.pack(notif_id, 0, error, 0), _RESP.size)
        _libc.ioctl(self.fd, ctypes.c_ulong(_NOTIF_SEND), resp)  # fails if the caller is gone


class _IoVec(ctypes.Structure):
    _fields_ = (("base", ctypes.c_void_p), ("len", ctypes.c_size_t))


def _read_memory(pid: int, address: int, length: int) -> bytes:
    # Not /proc/PID/mem: the /proc mounted here is the command's PID namespace's, in
    # which the caller has another number.
    if not length:
        return b""
    buf = ctypes.create_string_buffer(length)
    local = _IoVec(ctypes.cast(buf, ctypes.c_void_p), length)
    remote = _IoVec(ctypes.c_void_p(address), length)
    got = _libc.process_vm_readv(
        pid, ctypes.byref(local), ctypes.c_ulong(1), ctypes.byref(remote), ctypes.c_ulong(1), 0
    )
    if got < 0:
        raise OSError(ctypes.get_errno(), "process_vm_readv")
    return buf.raw[:got]


def _sun_path(raw: bytes) -> bytes:
    """The path of a `sockaddr_un`; empty for an abstract or malformed address."""
    if len(raw) < 3 or struct.unpack_from("=H", raw)[0] != _AF_UNIX or raw[2] == 0:
        return b""
    return raw[2:].split(b"\0", 1)[0]


def _sockaddr_un(path: bytes) -> bytes:
    return struct.pack("=H", _AF_UNIX) + path + b"\0"
