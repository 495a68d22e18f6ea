"""The per-user server behind the warm starts of `codex-lsp serve` and `app-server`.

A warm parent: it imports everything a session of either command needs once, then waits on
its unix socket. For each launcher that connects it checks the peer's uid, receives the
launcher's stdio descriptors and context, and forks. The child takes on the launcher's stdin,
stdout, stderr, environment, cwd and umask, and runs `codex-lsp serve ARGS` (or `app-server
ARGS`) as if the client had spawned it (see `attach.py`, and `daemon_session.py` for the
child's side); the launcher's connection stays open as the session's hang-up line and carries
its exit status back. Forking, rather than serving every client on one event loop, keeps each
client's environment and threads to itself and lets a crash end one session only; the fork
costs milliseconds because the imports are already done (and frozen out of the garbage
collector's way, so children do not copy the parent's pages just by collecting), and so is the
work libraries do on first use (`REHEARSALS`).

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
import socket
import struct
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from codex_lsp.appserver.attach import (
    COMMANDS,
    HANDSHAKE_TIMEOUT_S,
    identity,
    private_dir,
)
from codex_lsp.appserver.daemon_session import Gone, receive_request, sandboxed_peer, serve_child

log = logging.getLogger("codex_lsp.appserver.daemon")

IDLE_ENV = "CODEX_LSP_ATTACH_IDLE_S"
DEFAULT_IDLE_S = 600.0
# How often the parent reaps exited children and checks that its socket is still its own.
_TICK_S = 2.0

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
            request, fds = receive_request(conn)
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
                serve_child(conn, fds, request, self._sock, self.entry.run)
            self._children.add(pid)
            log.debug("session %d for %s", pid, request.cwd)
        except Gone:
            log.debug("a peer connected and left without a request")
        except (OSError, ValueError) as err:
            log.warning("a launcher's request failed: %s", err)
        finally:
            for fd in fds:
                os.close(fd)
            conn.close()


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
