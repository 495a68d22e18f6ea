"""The capability token a listening door asks its clients for.

Whoever can connect to a listening door (`serve --tcp`, `app-server --listen ws://`) can run
commands as this user, outside the sandbox. A loopback address is not private enough: every
local user, and a sandboxed command allowed the network, can reach it. So every listening door
asks for a token, by default the one in `$CODEX_HOME/listen-token`: generated on first use,
mode 0600, in a directory the sandbox cannot read. A client presents it as `Authorization:
Bearer <token>` (a WebSocket handshake's header; for LSP over TCP, a header of the first
message). The file must belong to this user and be private to them, or it is not used.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

TOKEN_FILE = "listen-token"
# What a header line of the first message may hold before the token is checked.
MAX_TOKEN_CHARS = 1024


class TokenError(ValueError):
    """A token file that cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class TokenAuth:
    """A capability token, kept as its SHA-256 so the secret itself is not held longer."""

    sha256: bytes

    @classmethod
    def from_token(cls, token: str) -> TokenAuth:
        return cls(hashlib.sha256(token.encode("utf-8")).digest())

    def accepts(self, authorization: str | None) -> bool:
        """Whether an `Authorization` header value carries the token."""
        if authorization is None or len(authorization) > MAX_TOKEN_CHARS:
            return False
        scheme, _, presented = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not presented.strip():
            return False
        digest = hashlib.sha256(presented.strip().encode("utf-8")).digest()
        return hmac.compare_digest(digest, self.sha256)


def default_token_path(codex_home: Path) -> Path:
    return codex_home / TOKEN_FILE


def read_token(path: Path) -> str:
    """The token in `path`, a file of this user's that nobody else may read or write."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as err:
        raise TokenError(f"cannot read the token file {path}: {err.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TokenError(f"the token file {path} is not a regular file")
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise TokenError(
                f"the token file {path} must belong to you and be private (chmod 600 {path})"
            )
        data = os.read(fd, MAX_TOKEN_CHARS + 1)
    finally:
        os.close(fd)
    token = data.decode("utf-8", "replace").strip()
    if not token or len(data) > MAX_TOKEN_CHARS:
        raise TokenError(f"the token file {path} is empty or too long")
    return token


def load_or_create_token(codex_home: Path) -> Path:
    """The path of `$CODEX_HOME/listen-token`, made (0600, random) if it does not exist yet."""
    path = default_token_path(codex_home)
    codex_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not os.path.lexists(path):
        # Written whole under another name, then linked into place: a door starting at the
        # same time sees either no file or the whole token, and only one token wins.
        temporary = codex_home / f".{TOKEN_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, (secrets.token_urlsafe(32) + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return path


def door_auth(codex_home: Path, token_file: str | None) -> tuple[TokenAuth, Path]:
    """The token a door asks for, from `token_file` (absolute) or the default one; and the
    file it came from (to tell the user where it is, never what it is)."""
    if token_file is not None and not os.path.isabs(token_file):
        raise TokenError(f"the token file must be an absolute path, got {token_file!r}")
    path = Path(token_file) if token_file is not None else load_or_create_token(codex_home)
    return TokenAuth.from_token(read_token(path)), path


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine's loopback interface only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
