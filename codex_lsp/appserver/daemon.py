"""The per-user server behind the warm starts of `codex-lsp serve` and `app-server`.

A warm parent: it imports everything a session of either command needs once, then waits on
its unix socket. For each launcher that connects it checks the peer's uid, receives the
launcher's stdio descriptors and context, and forks. The child takes on the launcher's stdin,
stdout, stderr, environment, cwd and umask, and runs `codex-lsp serve ARGS` (or `app-server
ARGS`) as if the client had spawned it (see `attach.py`); the launcher's connection stays open
as the session's hang-up line and carries its exit status back. Forking, rather than serving
every client on one event loop, keeps each client's environment and threads to itself and lets
a crash end one session only; the fork costs milliseconds because the imports are already done
(and frozen out of the garbage collector's way, so children do not copy the parent's pages just
by collecting), and so is the work libraries do on first use (`REHEARSALS`).

The parent stays single-threaded and never runs an event loop, so forking it is safe. It
leaves when it has had no session for the idle timeout, when another server has taken its
socket path, or when the code it runs has changed on disk (it tells the launcher, which
starts a fresh server).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import logging
import os
import select
import signal
import socket
import struct
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from codex_lsp.appserver.attach import (
    COMMANDS,
    HANDSHAKE_TIMEOUT_S,
    PROTOCOL,
    identity,
    private_dir,
)

log = logging.getLogger("codex_lsp.appserver.daemon")

IDLE_ENV = "CODEX_LSP_ATTACH_IDLE_S"
DEFAULT_IDLE_S = 600.0
# How often the parent reaps exited children and checks that its socket is still its own.
_TICK_S = 2.0
_MAX_REQUEST = 4 << 20

# Imported before the first fork: what `codex-lsp app-server` and `codex-lsp serve` load by the
# end of a turn, beyond what building the command line parser imports.
PRELOAD = (
    "codex_lsp.appserver.server",
    "codex_lsp.cli.serve_cmd",
    "codex_lsp.lsp.server",
    "codex_lsp.lsp.transport",
    "codex_lsp.lsp.approvals",
    "codex_lsp.lsp.client_port",
    "codex_lsp.lsp.editor_workspace",
    "codex_lsp.lsp.edits",
    "codex_lsp.api.server",
    "codex_lsp.engine.bootstrap",
    "codex_lsp.engine.handlers",
    "codex_lsp.engine.context_factory",
    "anyio._backends._asyncio",
    "anyio.to_thread",
    "queue",
)

# Run before the first fork, after PRELOAD: work libraries do on first use, done once here.
REHEARSALS = (
    ("codex_lsp.lsp.rehearsal", "rehearse"),
    ("codex_lsp.sandbox", "sandbox_support"),  # the kernel's support, probed once
)


@dataclass
class Request:
    identity: str
    cwd: bytes
    umask: int
    args: list[str]
    env: list[tuple[bytes, bytes]]


@dataclass(frozen=True)
class SessionEntry:
    """The program the server forks sessions of, given by the command line that starts it
    (this layer knows nothing above it).

    `warm` runs once in the parent and imports what every session needs; `run` is the command
    line's main, called in each child with `COMMAND ARGS` (`app-server` or `serve`), returning
    the exit status.
    """

    warm: Callable[[], object]
    run: Callable[[list[str]], int]


def main(entry: SessionEntry, argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="codex-lsp app-server daemon")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--idle-timeout", type=float, default=None)
    args = parser.parse_args(argv)
    # Leave the launcher's process tree (an editor that kills its server's whole tree must
    # not take the server of every other client with it) and its working directory.
    if os.fork() > 0:
        os._exit(0)
    os.chdir("/")
    # `python -c` put the current directory on sys.path; a session's cwd is a user's project,
    # whose files must not shadow the modules a session imports later.
    sys.path[:] = [entry for entry in sys.path if entry not in ("", ".")]
    _close_inherited_fds()
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("CODEX_LSP_LOG", "info").upper(),
        format="%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s",
    )
    idle = args.idle_timeout
    if idle is None:
        try:
            idle = float(os.environ.get(IDLE_ENV, "") or DEFAULT_IDLE_S)
        except ValueError:
            idle = DEFAULT_IDLE_S
    return AttachServer(args.socket, idle, entry).run()


def _close_inherited_fds() -> None:
    """Drop descriptors the first launcher's parent (an editor) let it inherit: held here, a
    pipe of the editor's would never see its end of file."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                os.close(fd)
        except OSError:
            pass  # the descriptor listdir itself used


class AttachServer:
    def __init__(self, path: str, idle_s: float, entry: SessionEntry) -> None:
        self.path = path
        self.idle_s = idle_s
        self.entry = entry
        self.identity = identity(os.environ)
        self._sock: socket.socket | None = None
        self._inode: tuple[int, int] | None = None
        self._children: set[int] = set()
        self._last_active = time.monotonic()
        self._sources: dict[str, int] = {}
        self._stale = False

    def run(self) -> int:
        if not private_dir(os.path.dirname(self.path)):
            log.error("%s is not a private directory of this user", os.path.dirname(self.path))
            return 1
        sock = self._listen()
        log.info("serving %s", self.path)
        try:
            self._preload()
            while not self._stale:
                self._reap()
                if not self._own_path():
                    log.info("another server took %s; leaving", self.path)
                    break
                quiet = time.monotonic() - self._last_active
                if not self._children and quiet >= self.idle_s:
                    log.info("idle for %.0f s; leaving", quiet)
                    break
                wait = _TICK_S if self._children else min(_TICK_S, self.idle_s - quiet)
                ready, _, _ = select.select([sock], [], [], max(wait, 0.0))
                if ready:
                    self._accept()
        finally:
            self._close()
        return 0

    # -- the socket --------------------------------------------------------------------------

    def _listen(self) -> socket.socket:
        # Bound under a private name and renamed into place: a launcher never sees a socket
        # that is not listening yet, and of two servers started at once the last one wins
        # (the other notices at its next tick and leaves).
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        staging = f"{self.path}.{os.getpid()}"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(staging)
        sock.bind(staging)
        os.chmod(staging, 0o600)
        sock.listen(64)
        os.replace(staging, self.path)
        info = os.stat(self.path)
        self._sock, self._inode = sock, (info.st_dev, info.st_ino)
        return sock

    def _own_path(self) -> bool:
        try:
            info = os.stat(self.path)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == self._inode

    def _close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        if self._own_path():
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    # -- warming up --------------------------------------------------------------------------

    def _preload(self) -> None:
        started = time.monotonic()
        self.entry.warm()
        for name in PRELOAD:
            try:
                importlib.import_module(name)
            except Exception:  # a child imports what it needs anyway
                log.exception("preloading %s failed", name)
        for module, function in REHEARSALS:
            try:
                getattr(importlib.import_module(module), function)()
            except Exception:  # a child does the same work itself
                log.exception("rehearsing %s.%s failed", module, function)
        self._sources = _source_stamps()
        gc.collect()
        gc.freeze()
        log.info("preloaded %d modules in %.0f ms", len(sys.modules), _ms_since(started))

    def _changed(self) -> bool:
        """Whether a module of the package changed on disk since it was loaded here."""
        for path, stamp in self._sources.items():
            try:
                if os.stat(path).st_mtime_ns != stamp:
                    return True
            except OSError:
                return True
        return False

    # -- clients ------------------------------------------------------------------------------

    def _reap(self) -> None:
        while self._children:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self._children.clear()
                break
            if pid == 0:
                break
            self._children.discard(pid)
            self._last_active = time.monotonic()

    def _accept(self) -> None:
        assert self._sock is not None
        try:
            conn, _ = self._sock.accept()
        except OSError:
            return
        self._last_active = time.monotonic()
        fds: list[int] = []
        try:
            conn.settimeout(HANDSHAKE_TIMEOUT_S)
            pid, uid, _gid = struct.unpack(
                "3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            )
            if uid != os.getuid():
                log.warning("refused a connection from uid %d", uid)
                return
            confined = sandboxed_peer(pid)
            if confined is not None:
                log.warning("refused a connection from a sandboxed process (%s)", confined)
                return
            request, fds = _receive(conn)
            if not request.args or request.args[0] not in COMMANDS:
                log.warning("refused a launcher asking for %r", request.args[:1])
                return
            if request.identity != self.identity:
                log.warning("refused a launcher of another installation")
                return
            if self._changed():
                log.info("the package changed on disk; leaving")
                self._stale = True
                conn.sendall(b"stale\n")
                return
            pid = os.fork()
            if pid == 0:
                _serve_child(conn, fds, request, self._sock, self.entry.run)
            self._children.add(pid)
            log.debug("session %d for %s", pid, request.cwd)
        except _Gone:
            log.debug("a peer connected and left without a request")
        except (OSError, ValueError) as err:
            log.warning("a launcher's request failed: %s", err)
        finally:
            for fd in fds:
                os.close(fd)
            conn.close()


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


class _Gone(Exception):
    """The peer closed the connection without sending anything (a liveness probe)."""


def _receive(conn: socket.socket) -> tuple[Request, list[int]]:
    """The launcher's request and its three descriptors (see `attach._request`)."""
    data, fds, _, _ = socket.recv_fds(conn, 65536, 3)
    if not data and not fds:
        raise _Gone()
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
        if size > _MAX_REQUEST:
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


def _serve_child(
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


def _source_stamps() -> dict[str, int]:
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stamps: dict[str, int] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.startswith(package):
            with contextlib.suppress(OSError):
                stamps[path] = os.stat(path).st_mtime_ns
    return stamps


def _ms_since(started: float) -> float:
    return (time.monotonic() - started) * 1000

