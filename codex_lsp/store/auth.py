"""Credentials in `$CODEX_HOME/auth.json` (mode 0600): an API key or ChatGPT sign-in tokens.

The file has Codex's shape (`auth_mode`, `OPENAI_API_KEY`, `tokens`, `last_refresh`), so a
Codex user's sign-in works here. Secrets never appear in a repr, a log line or an exception
message: `AuthInfo` and `TokenData` redact themselves and errors name the file, not its content.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import secrets
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from codex_lsp.protocol.core.providers import ModelProviderInfo

AUTH_FILENAME = "auth.json"
AuthMode = Literal["apiKey", "chatgpt"]
_AUTH_CLAIM = "https://api.openai.com/auth"
_PROFILE_CLAIM = "https://api.openai.com/profile"


class AuthError(Exception):
    """auth.json cannot be read or written; the message never contains a secret."""


def _redacted(value: str | None) -> str:
    return "None" if value is None else "'<redacted>'"


@dataclass(frozen=True, slots=True, repr=False)
class TokenData:
    id_token: str
    access_token: str
    refresh_token: str | None = None
    account_id: str | None = None

    def __repr__(self) -> str:
        return (
            f"TokenData(id_token={_redacted(self.id_token)}, "
            f"access_token={_redacted(self.access_token)}, "
            f"refresh_token={_redacted(self.refresh_token)}, account_id={self.account_id!r})"
        )


@dataclass(frozen=True, slots=True, repr=False)
class AuthInfo:
    """Who is signed in. `api_key` and `tokens` are secrets and are never shown."""

    mode: AuthMode
    api_key: str | None = None
    tokens: TokenData | None = None
    email: str | None = None
    plan_type: str | None = None
    account_id: str | None = None
    last_refresh: str | None = None
    claims: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"AuthInfo(mode={self.mode!r}, api_key={_redacted(self.api_key)}, "
            f"tokens={'<redacted>' if self.tokens else None}, email={self.email!r}, "
            f"plan_type={self.plan_type!r}, account_id={self.account_id!r})"
        )

    __str__ = __repr__

    @property
    def bearer_token(self) -> str | None:
        """What goes in `Authorization: Bearer`: the API key, else the ChatGPT access token."""
        if self.api_key:
            return self.api_key
        return self.tokens.access_token if self.tokens else None


def parse_jwt_claims(token: str) -> dict[str, Any]:
    """The payload of a JWT, unverified (it only labels the account; the server checks it)."""
    parts = token.split(".")
    if len(parts) < 2:
        return {}
    segment = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(segment))
    except (binascii.Error, ValueError):
        return {}
    return claims if isinstance(claims, dict) else {}


def _claim_details(claims: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    auth = claims.get(_AUTH_CLAIM)
    auth = auth if isinstance(auth, dict) else {}
    profile = claims.get(_PROFILE_CLAIM)
    profile = profile if isinstance(profile, dict) else {}
    email = claims.get("email") or profile.get("email")
    return (
        email if isinstance(email, str) else None,
        auth.get("chatgpt_plan_type") if isinstance(auth.get("chatgpt_plan_type"), str) else None,
        auth.get("chatgpt_account_id") if isinstance(auth.get("chatgpt_account_id"), str) else None,
    )


def _now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class AuthStore:
    """Reads and writes `auth.json` under one `$CODEX_HOME`."""

    def __init__(self, codex_home: Path | str) -> None:
        self._home = Path(codex_home)
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self._home / AUTH_FILENAME

    def __repr__(self) -> str:
        return f"AuthStore(path={str(self.path)!r})"

    # -- writing ---------------------------------------------------------------------------

    def login_api_key(self, api_key: str) -> AuthInfo:
        """Store an API key, replacing any previous sign-in."""
        key = api_key.strip()
        if not key:
            raise AuthError("the API key is empty")
        self._write({"auth_mode": "apikey", "OPENAI_API_KEY": key, "tokens": None})
        info = self.read()
        assert info is not None
        return info

    def login_tokens(
        self,
        *,
        id_token: str,
        access_token: str,
        refresh_token: str | None = None,
        account_id: str | None = None,
        api_key: str | None = None,
    ) -> AuthInfo:
        """Store ChatGPT sign-in tokens (from the browser flow), replacing any previous one."""
        if account_id is None:
            account_id = _claim_details(parse_jwt_claims(id_token))[2]
        tokens = {
            "id_token": id_token,
            "access_token": access_token,
            "refresh_token": refresh_token,
            "account_id": account_id,
        }
        self._write({"auth_mode": "chatgpt", "OPENAI_API_KEY": api_key, "tokens": tokens})
        info = self.read()
        assert info is not None
        return info

    def update_tokens(
        self,
        *,
        id_token: str | None = None,
        access_token: str | None = None,
        refresh_token: str | None = None,
    ) -> AuthInfo:
        """Put refreshed tokens in place of the stored ones (each only if given), keeping the
        rest of the sign-in; `last_refresh` becomes now."""
        current = self.read()
        if current is None or current.tokens is None:
            raise AuthError("there is no ChatGPT sign-in to refresh; sign in again")
        old = current.tokens
        new_id = id_token or old.id_token
        account = _claim_details(parse_jwt_claims(new_id))[2] if id_token else None
        return self.login_tokens(
            id_token=new_id,
            access_token=access_token or old.access_token,
            refresh_token=refresh_token or old.refresh_token,
            account_id=account or old.account_id,
            api_key=current.api_key,
        )

    def logout(self) -> bool:
        """Forget the stored credentials; True if there were any."""
        with self._lock:
            try:
                self.path.unlink()
            except FileNotFoundError:
                return False
            return True

    def _write(self, data: dict[str, Any]) -> None:
        data = {**data, "last_refresh": _now_iso()}
        payload = json.dumps(data, indent=2).encode()
        with self._lock:
            self._home.mkdir(parents=True, exist_ok=True)
            tmp = self._home / f".{AUTH_FILENAME}.{secrets.token_hex(6)}.tmp"
            # Created 0600 from the first byte: the secret is never readable by others, even
            # briefly, and the rename makes the switch atomic for concurrent readers.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.fchmod(fd, 0o600)  # the umask may only remove bits; make it exact
                view = memoryview(payload)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except BaseException:
                os.close(fd)
                tmp.unlink(missing_ok=True)
                raise
            os.close(fd)
            os.replace(tmp, self.path)

    # -- reading ---------------------------------------------------------------------------

    def read(self) -> AuthInfo | None:
        """The stored sign-in, or None. Raises `AuthError` for an unreadable file."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as err:
            raise AuthError(f"cannot read {self.path}: {err.strerror}") from None
        try:
            data = json.loads(raw)
        except ValueError:
            raise AuthError(
                f"{self.path} is not valid JSON; sign in again or delete the file"
            ) from None
        if not isinstance(data, dict):
            raise AuthError(f"{self.path} does not hold a JSON object; sign in again")
        return _auth_info(data)

    def api_key_for(self, provider: ModelProviderInfo) -> str | None:
        """The credential to send to `provider`.

        Providers that require OpenAI auth use the stored sign-in first (an API key, else the
        ChatGPT access token); every provider falls back to its `env_key` variable.
        """
        if provider.requires_openai_auth:
            info = self.read()
            if info is not None and info.bearer_token:
                return info.bearer_token
        return provider.env_api_key()

    def account(self) -> dict[str, Any] | None:
        """`account/read`'s `account`: `{"type": "apiKey"}`, a ChatGPT account, or None."""
        info = self.read()
        if info is None:
            return None
        if info.mode == "chatgpt":
            return {"type": "chatgpt", "email": info.email, "planType": info.plan_type}
        return {"type": "apiKey"}


def _auth_info(data: dict[str, Any]) -> AuthInfo | None:
    api_key = data.get("OPENAI_API_KEY")
    api_key = api_key if isinstance(api_key, str) and api_key else None
    raw_tokens = data.get("tokens")
    tokens = None
    if isinstance(raw_tokens, dict):
        id_token = raw_tokens.get("id_token")
        access = raw_tokens.get("access_token")
        if isinstance(id_token, dict):  # some writers store the parsed token
            id_token = id_token.get("raw_jwt")
        if isinstance(id_token, str) and isinstance(access, str):
            refresh = raw_tokens.get("refresh_token")
            account = raw_tokens.get("account_id")
            tokens = TokenData(
                id_token,
                access,
                refresh if isinstance(refresh, str) else None,
                account if isinstance(account, str) else None,
            )
    last_refresh = data.get("last_refresh")
    last_refresh = last_refresh if isinstance(last_refresh, str) else None
    mode = str(data.get("auth_mode") or "").lower()
    if tokens is not None and mode != "apikey":
        claims = parse_jwt_claims(tokens.id_token)
        email, plan, account_id = _claim_details(claims)
        return AuthInfo(
            mode="chatgpt",
            api_key=api_key,
            tokens=tokens,
            email=email,
            plan_type=plan,
            account_id=tokens.account_id or account_id,
            last_refresh=last_refresh,
            claims=claims,
        )
    if api_key is not None:
        return AuthInfo(mode="apiKey", api_key=api_key, last_refresh=last_refresh)
    return None
