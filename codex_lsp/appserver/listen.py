"""Where `codex-lsp app-server` listens (`--listen`) and who may connect over WebSocket.

`stdio://` (the default) serves one client on stdin/stdout. `unix:///PATH` serves this user's
clients on a private unix socket (`unix_socket.py`). `ws://HOST:PORT` serves any number
of WebSocket clients, one JSON-RPC message per text frame, each connection with its own
`initialize` and threads. A WebSocket client proves it may connect by presenting a capability
token as `Authorization: Bearer <token>` in the handshake, always: by default the token in
`$CODEX_HOME/listen-token` (made on first use, see `wire/door_token.py`), or one from a file
(`--ws-token-file`) or known by its SHA-256 (`--ws-token-sha256`). Every local user, and a
sandboxed command allowed the network, can reach a loopback address, so it gets no exception.
A non-loopback address must be asked for with an explicit `--ws-auth capability-token` (or a
token of its own): anybody on the network could otherwise try the door.
"""

from __future__ import annotations

import asyncio
import hashlib
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import anyio

from codex_lsp.wire.door_token import TokenAuth, TokenError, door_auth, is_loopback

STDIO = "stdio://"


class ListenError(ValueError):
    """A `--listen` or `--ws-*` setting the server cannot use; the message says what to do."""


@dataclass(frozen=True)
class WebSocketTarget:
    host: str
    port: int

    @property
    def is_loopback(self) -> bool:
        return is_loopback(self.host)

    def url(self, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ws://{host}:{self.port if port is None else port}"


def parse_unix_listen(value: str | None) -> Path | None:
    """The socket path of `--listen unix://PATH`, or None for another transport."""
    if value is None or not value.startswith("unix://"):
        return None
    path = value[len("unix://") :]
    if not path.startswith("/"):
        raise ListenError(f"--listen {value!r}: give an absolute path, unix:///dir/socket")
    return Path(path)


def parse_listen(value: str | None) -> WebSocketTarget | None:
    """The WebSocket address of `--listen`, or None for stdio."""
    if value is None or value == STDIO:
        return None
    parts = urlsplit(value)
    if parts.scheme != "ws":
        raise ListenError(
            f"--listen {value!r} is not supported: use stdio:// (the default), "
            "unix:///PATH or ws://HOST:PORT"
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ListenError(f"--listen {value!r}: give only ws://HOST:PORT")
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None:
        raise ListenError(f"--listen {value!r}: a WebSocket address needs a host and a port")
    return WebSocketTarget(parts.hostname, port)


def websocket_auth(
    target: WebSocketTarget,
    *,
    codex_home: Path,
    mode: str | None,
    token_file: str | None,
    token_sha256: str | None,
) -> tuple[TokenAuth, str]:
    """The token a WebSocket listener requires, and where it is (for the user), or a
    `ListenError`."""
    if mode not in (None, "capability-token"):
        raise ListenError(f"--ws-auth {mode}: only capability-token is supported")
    if token_file and token_sha256:
        raise ListenError("give the token once: --ws-token-file or --ws-token-sha256")
    chosen = mode is not None or token_file or token_sha256
    if not chosen and not target.is_loopback:
        raise ListenError(
            f"refusing to listen on {target.url()} without a token: anyone who can reach it "
            "could run commands here. Pass --ws-auth capability-token (the token in "
            f"{codex_home / 'listen-token'}) or --ws-token-file PATH, or listen on 127.0.0.1"
        )
    if token_sha256:
        try:
            digest = bytes.fromhex(token_sha256)
        except ValueError:
            digest = b""
        if len(digest) != hashlib.sha256().digest_size:
            raise ListenError("--ws-token-sha256 must be 64 hexadecimal digits")
        return TokenAuth(digest), "the token whose SHA-256 was given"
    if token_file is not None and not Path(token_file).is_absolute():
        raise ListenError(f"--ws-token-file must be an absolute path, got {token_file!r}")
    try:
        auth, path = door_auth(codex_home, token_file or None)
    except (TokenError, OSError) as err:
        raise ListenError(str(err)) from None
    return auth, f"the token in {path}"


def serve_until_signalled(serve: Callable[[anyio.Event], Awaitable[None]]) -> None:
    """Run `serve(stop)` in a new event loop; SIGINT or SIGTERM sets `stop`."""

    async def main() -> None:
        stop = anyio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(stop)

    anyio.run(main)
