"""Where `codex-lsp app-server` listens (`--listen`) and who may connect over WebSocket.

`stdio://` (the default) serves one client on stdin/stdout. `ws://HOST:PORT` serves any number
of WebSocket clients, one JSON-RPC message per text frame, each connection with its own
`initialize` and threads. A WebSocket client proves it may connect by presenting a capability
token as `Authorization: Bearer <token>` in the handshake; the server knows the token from a
file (`--ws-token-file`) or by its SHA-256 (`--ws-token-sha256`). A listener on a loopback
address may run without a token (the machine's own users can reach it, as they can its stdio);
any other address must have one, since anybody on the network could otherwise drive the agent.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

STDIO = "stdio://"


class ListenError(ValueError):
    """A `--listen` or `--ws-*` setting the server cannot use; the message says what to do."""


@dataclass(frozen=True)
class WebSocketTarget:
    host: str
    port: int

    @property
    def is_loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def url(self, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ws://{host}:{self.port if port is None else port}"


def parse_listen(value: str | None) -> WebSocketTarget | None:
    """The WebSocket address of `--listen`, or None for stdio."""
    if value is None or value == STDIO:
        return None
    parts = urlsplit(value)
    if parts.scheme != "ws":
        raise ListenError(
            f"--listen {value!r} is not supported: use stdio:// (the default) or ws://HOST:PORT"
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


@dataclass(frozen=True)
class TokenAuth:
    """A capability token, kept as its SHA-256 so the secret itself is not held longer."""

    sha256: bytes

    @classmethod
    def from_token(cls, token: str) -> TokenAuth:
        return cls(hashlib.sha256(token.encode("utf-8")).digest())

    def accepts(self, authorization: str | None) -> bool:
        """Whether an `Authorization` header value carries the token."""
        if authorization is None:
            return False
        scheme, _, presented = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not presented.strip():
            return False
        digest = hashlib.sha256(presented.strip().encode("utf-8")).digest()
        return hmac.compare_digest(digest, self.sha256)


def websocket_auth(
    target: WebSocketTarget,
    *,
    mode: str | None,
    token_file: str | None,
    token_sha256: str | None,
) -> TokenAuth | None:
    """The token a WebSocket listener requires (None: open), or a `ListenError`."""
    if mode not in (None, "capability-token"):
        raise ListenError(f"--ws-auth {mode}: only capability-token is supported")
    if token_file and token_sha256:
        raise ListenError("give the token once: --ws-token-file or --ws-token-sha256")
    auth: TokenAuth | None = None
    if token_file:
        path = Path(token_file)
        if not path.is_absolute():
            raise ListenError(f"--ws-token-file must be an absolute path, got {token_file!r}")
        try:
            token = path.read_text(encoding="utf-8").strip()
        except OSError as err:
            raise ListenError(f"cannot read --ws-token-file {token_file}: {err.strerror}") from None
        if not token:
            raise ListenError(f"--ws-token-file {token_file} is empty")
        auth = TokenAuth.from_token(token)
    elif token_sha256:
        try:
            digest = bytes.fromhex(token_sha256)
        except ValueError:
            digest = b""
        if len(digest) != hashlib.sha256().digest_size:
            raise ListenError("--ws-token-sha256 must be 64 hexadecimal digits")
        auth = TokenAuth(digest)
    elif mode == "capability-token":
        raise ListenError("--ws-auth capability-token needs --ws-token-file or --ws-token-sha256")
    if auth is None and not target.is_loopback:
        raise ListenError(
            f"refusing to listen on {target.url()} without a token: anyone who can reach it "
            "could run commands here. Pass --ws-auth capability-token --ws-token-file PATH, "
            "or listen on 127.0.0.1"
        )
    return auth
