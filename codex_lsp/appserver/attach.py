"""The warm start of `codex-lsp serve` and `codex-lsp app-server`: a launcher for a per-user server.

Starting Python and importing the engine takes a few hundred milliseconds; an editor that
spawns `codex-lsp serve` (or `app-server`) pays it on every start. The launcher here connects
to a long-lived per-user server (`daemon.py`) over a unix socket and hands it its stdin,
stdout and stderr (SCM_RIGHTS) with its argv, cwd, umask and environment. The server forks a
child that is already warm, gives it those descriptors and that context, and the child runs
exactly `codex-lsp serve ARGS` (or `app-server ARGS`): one connection is one client session
with its own handshake state and its own threads, in its own process. Messages never pass
through the launcher, which only waits to exit with the session's exit status; if the launcher
is killed, the session ends as if its input had.

    python -I -S <site-packages>/codex_lsp/appserver/attach.py serve [OPTIONS]
    python -I -S <site-packages>/codex_lsp/appserver/attach.py app-server [OPTIONS]

(`codex-lsp serve --attach` and `codex-lsp app-server --attach` do the same after importing
the command line; `codex-lsp serve --print-launcher` prints the first form for this install.)

The first launcher finds no server: it starts one in the background and serves its own client
in-process (exec'ing the ordinary command), so the first start is not slower than a cold one.
The same happens whenever the server cannot be reached or refuses (a different Python or
package, code changed since it started, a runtime directory that is not private): the launcher
never gives up on its client. The server exits after being idle for a while
(`CODEX_LSP_ATTACH_IDLE_S`, default 600 s).

The socket lives in `$XDG_RUNTIME_DIR/codex-lsp/`, or else `$CODEX_HOME/run/`, in a directory
of mode 0700 that must belong to the user; the socket itself is mode 0600, and the server also
checks each peer's uid. Both commands share this one server and this one place (`socket_path`).

This file must stay importable, and runnable, with nothing but the standard library, so the
launcher can be as cheap as `python -I -S path/to/attach.py serve` (a few ms): nothing heavy is
imported before the session is forked.
"""

from __future__ import annotations

import os
import sys

# Not `typing.TYPE_CHECKING`: the launcher imports nothing it does not need, typing included.
TYPE_CHECKING = False
if TYPE_CHECKING:  # the launcher imports `_socket` itself, the leanest way in
    import _socket

PROTOCOL = b"codex-lsp-attach/2"
# The commands a session can run; a launcher given only options runs the first.
COMMANDS = ("app-server", "serve")
# How long either side waits for the other's next handshake line.
HANDSHAKE_TIMEOUT_S = 10.0
_MAX_SUN_PATH = 107
_FDS = (0, 1, 2)


def package_dir() -> str:
    """The `codex_lsp` package this file belongs to."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def identity(environ: os._Environ[str] | dict[str, str]) -> str:
    """What a server must share with a launcher to serve it: the interpreter, the package,
    and the variables that decide which code that interpreter imports."""
    return "\n".join(
        (
            sys.executable,
            package_dir(),
            environ.get("PYTHONPATH", ""),
            environ.get("PYTHONHOME", ""),
        )
    )


def runtime_dir(environ: os._Environ[str] | dict[str, str]) -> str:
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        return os.path.join(runtime, "codex-lsp")
    home = environ.get("CODEX_HOME", "").strip() or os.path.join(
        os.path.expanduser("~"), ".codex-lsp"
    )
    return os.path.join(os.path.abspath(home), "run")


def socket_path(environ: os._Environ[str] | dict[str, str]) -> str:
    import zlib

    key = zlib.crc32(identity(environ).encode("utf-8", "surrogateescape"))
    return os.path.join(runtime_dir(environ), f"app-server-{key:08x}.sock")


def private_dir(path: str) -> bool:
    """Create `path` (mode 0700) if needed; whether it is ours and private."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
    except OSError:
        return False
    return info.st_uid == os.getuid() and info.st_mode & 0o077 == 0


# -- the launcher -----------------------------------------------------------------------------


def launcher(args: list[str]) -> list[str]:
    """The leanest command line that serves `codex-lsp ARGS` (`serve ...` or `app-server ...`)
    from the per-user server: this interpreter, isolated and without site-packages."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), *args]


def session_args(argv: list[str]) -> list[str]:
    """`[COMMAND, *OPTIONS]`: the command the session runs, `app-server` when none is named."""
    if argv and argv[0] in COMMANDS:
        return list(argv)
    return [COMMANDS[0], *argv]


def main(argv: list[str] | None = None) -> int:
    """Serve this process's stdio from the per-user server, or in-process if that fails."""
    args = session_args(list(sys.argv[1:] if argv is None else argv))
    path = socket_path(os.environ)
    if len(os.fsencode(path)) <= _MAX_SUN_PATH and private_dir(os.path.dirname(path)):
        try:
            status = _attach(path, args)
        except KeyboardInterrupt:
            return 130  # as `codex-lsp app-server` does on Ctrl-C
        if status is not None:
            return status
    _exec_in_process(args)
    return 1  # not reached


def _attach(path: str, args: list[str]) -> int | None:
    """The session's exit status, or None when this client must be served in-process."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        _start_server(path)
        return None
    committed = False
    try:
        sock.settimeout(HANDSHAKE_TIMEOUT_S)
        request = _request(args)
        fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in _FDS)
        sent = sock.sendmsg([request], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        sock.sendall(request[sent:])
        lines = _Lines(sock)
        answer = lines.next()
        if answer == b"stale":
            # The server runs older code than this launcher: it is leaving; start a fresh one.
            _start_server(path)
            return None
        if answer != b"ready":
            return None
        # The session's process waits for this before it reads stdin: until then, nothing
        # has been taken from the client and it can still be served here.
        sock.sendall(b"go\n")
        committed = True
        sock.settimeout(None)
        answer = lines.next()
    except OSError:
        if not committed:
            return None
        answer = b""
    finally:
        sock.close()
    if answer.startswith(b"exit "):
        try:
            return int(answer[5:])
        except ValueError:
            pass
    return 1  # the session's process died without saying how


class _Lines:
    def __init__(self, sock: _socket.socket) -> None:
        self._sock = sock
        self._buf = b""

    def next(self) -> bytes:
        while b"\n" not in self._buf:
            data = self._sock.recv(256)
            if not data:
                return b""
            self._buf += data
        line, _, self._buf = self._buf.partition(b"\n")
        return line


def _request(args: list[str]) -> bytes:
    """PROTOCOL, identity, cwd, umask, argc, args..., then `NAME=value` per variable, each
    NUL-terminated (none of them can contain a NUL), after the length of the whole."""
    umask = os.umask(0o077)
    os.umask(umask)
    fields = [
        PROTOCOL,
        os.fsencode(identity(os.environ)),
        os.fsencode(os.getcwd()),
        b"%d" % umask,
        b"%d" % len(args),
        *(os.fsencode(arg) for arg in args),
        *(key + b"=" + value for key, value in os.environb.items()),
    ]
    body = b"".join(field + b"\0" for field in fields)
    return b"%d\n" % len(body) + body


def _start_server(path: str) -> None:
    """Start the per-user server in the background, in a session of its own."""
    log = os.path.join(os.path.dirname(path), os.path.basename(path)[: -len(".sock")] + ".log")
    root = os.path.dirname(package_dir())
    code = (
        "import sys; sys.path.insert(0, sys.argv.pop(1)); "
        "from codex_lsp.cli.attach_server import main; sys.exit(main())"
    )
    try:
        null = os.open(os.devnull, os.O_RDWR)
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.posix_spawn(
                sys.executable,
                [sys.executable, "-c", code, root, "--socket", path],
                os.environ,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, null, 0),
                    (os.POSIX_SPAWN_DUP2, null, 1),
                    (os.POSIX_SPAWN_DUP2, out, 2),
                ],
                setsid=True,
            )
        finally:
            os.close(null)
            os.close(out)
    except OSError:
        pass  # no server this time; the client is served in-process all the same


def _exec_in_process(args: list[str]) -> None:
    """Become `python -m codex_lsp COMMAND ARGS` (the same stdio, nothing read from it)."""
    root = os.path.dirname(package_dir())
    code = "import sys; sys.path.insert(0, sys.argv.pop(1)); from codex_lsp.cli.main import main; "
    code += "sys.exit(main(sys.argv[1:]))"
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-c", code, root, *args])


if __name__ == "__main__":
    sys.exit(main())
