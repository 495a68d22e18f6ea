"""One session of the per-user server: who may ask for one, the launcher's request, and the
forked child that becomes the launcher's `codex-lsp COMMAND ARGS`.

The request comes over the unix socket with the launcher's stdin, stdout and stderr (see
`attach._request`); the child takes them on with the launcher's environment, cwd and umask,
answers `ready`, and runs the command once the launcher says `go`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from codex_lsp.appserver.attach import PROTOCOL

# The largest request a launcher may send (its arguments and environment).
MAX_REQUEST = 4 << 20


@dataclass
class Request:
    identity: str
    cwd: bytes
    umask: int
    args: list[str]
    env: list[tuple[bytes, bytes]]


def sandboxed_peer(pid: int) -> str | None:
    """Why the process `pid` looks sandboxed, or None.

    The sandbox keeps this socket out of its commands' reach (its directory is hidden, and
    without a mount namespace no unix socket can be opened); this is the second lock. A
    session started for a sandboxed peer would run outside its sandbox, so a peer in
    another PID or user namespace, or one that may not gain privileges (every sandboxed
    command has no_new_privs set), is refused. Its launcher then serves its client itself,
    inside whatever confines it.
    """
    for ns in ("pid", "user"):
        try:
            if os.readlink(f"/proc/{pid}/ns/{ns}") != os.readlink(f"/proc/self/ns/{ns}"):
                return f"in another {ns} namespace"
        except OSError:
            return "its namespaces cannot be read"
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("NoNewPrivs:") and line.split()[1] != "0":
                    return "it runs with no_new_privs"
    except OSError:
        return "its status cannot be read"
    return None


class Gone(Exception):
    """The peer closed the connection without sending anything (a liveness probe)."""


def receive_request(conn: socket.socket) -> tuple[Request, list[int]]:
    """The launcher's request and its three descriptors (see `attach._request`)."""
    data, fds, _, _ = socket.recv_fds(conn, 65536, 3)
    if not data and not fds:
        raise Gone()
    try:
        if len(fds) != 3:
            raise ValueError(f"expected 3 descriptors, got {len(fds)}")
        while b"\n" not in data:
            more = conn.recv(65536)
            if not more or len(data) > 32:
                raise ValueError("no request length")
            data += more
        length, _, body = data.partition(b"\n")
        size = int(length)
        if size > MAX_REQUEST:
            raise ValueError("request too large")
        while len(body) < size:
            more = conn.recv(size - len(body))
            if not more:
                raise ValueError("request cut short")
            body += more
        fields = body.split(b"\0")
        if fields[0] != PROTOCOL or fields[-1] != b"":
            raise ValueError("not an attach request")
        argc = int(fields[4])
        args = [os.fsdecode(arg) for arg in fields[5 : 5 + argc]]
        env = [field.partition(b"=")[::2] for field in fields[5 + argc : -1]]
        request = Request(
            identity=os.fsdecode(fields[1]),
            cwd=fields[2],
            umask=int(fields[3]),
            args=args,
            env=env,
        )
    except (ValueError, IndexError) as err:
        for fd in fds:
            os.close(fd)
        raise ValueError(str(err)) from None
    return request, fds


def serve_child(
    conn: socket.socket,
    fds: list[int],
    request: Request,
    listener: socket.socket,
    run: Callable[[list[str]], int],
) -> NoReturn:
    """In the forked child: become the launcher's `codex-lsp COMMAND ARGS`."""
    code = 1
    try:
        listener.close()
        os.setpgid(0, 0)  # signals meant for the server's group are not this session's
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        fds.clear()
        os.environb.clear()
        os.environb.update(request.env)
        os.chdir(request.cwd)
        os.umask(request.umask)
        _forget_parent_state()
        sys.argv = ["codex-lsp", *request.args]
        conn.sendall(b"ready\n")
        if _read_line(conn) != b"go":
            os._exit(0)  # the launcher chose to serve its client itself
        conn.settimeout(None)
        code = _run_command(run, conn.fileno(), request.args)
        with contextlib.suppress(OSError):
            conn.sendall(b"exit %d\n" % code)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _forget_parent_state() -> None:
    """Undo what the parent set up for itself, so the session starts as a fresh process."""
    import tempfile

    tempfile.tempdir = None  # chosen from the parent's TMPDIR, if anything asked
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.setLevel(logging.WARNING)


def _run_command(run: Callable[[list[str]], int], hangup_fd: int, args: list[str]) -> int:
    command, *options = args
    try:
        code = run([command, "--hangup-fd", str(hangup_fd), *options])
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            code = exit_.code or 0
        else:
            print(exit_.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return code


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        try:
            more = conn.recv(64)
        except OSError:
            return b""
        if not more:
            return b""
        data += more
    return data[:-1]
