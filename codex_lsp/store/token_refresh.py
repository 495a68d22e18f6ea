"""Keeping a ChatGPT sign-in's tokens fresh, as codex does.

The access token in `auth.json` expires; the refresh token buys a new one from the issuer's
token endpoint (`{login_issuer}/oauth/token`, `https://auth.openai.com` by default, or the URL
in `CODEX_REFRESH_TOKEN_URL_OVERRIDE`): a JSON POST of `client_id`, `grant_type:
"refresh_token"` and `refresh_token`, answered with `id_token`, `access_token` and
`refresh_token`, each optional; what comes back replaces what was stored.

A refresh happens before a model request when the access token has expired or expires within
`EXPIRY_MARGIN_S` (by its `exp` claim; a token without one, when the last refresh is older than
`REFRESH_INTERVAL_S`), once when the model answers 401 (then the request is sent again), and
when a client asks (`account/read {refreshToken: true}`). A refresh token may be used once only,
so refreshes are made one at a time, and one that finds the stored token already replaced (by
another request or process) does not spend it again.
"""

from __future__ import annotations

import json
import logging
import os
import time
from datetime import datetime

import anyio
import httpx

from codex_lsp.store.auth import AuthError, AuthInfo, AuthStore, parse_jwt_claims

DEFAULT_ISSUER = "https://auth.openai.com"
CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
URL_OVERRIDE_ENV = "CODEX_REFRESH_TOKEN_URL_OVERRIDE"
REFRESH_INTERVAL_S = 8 * 24 * 3600
EXPIRY_MARGIN_S = 60.0
TIMEOUT_S = 30.0
_MAX_ANSWER_BYTES = 1024 * 1024

log = logging.getLogger(__name__)

# What the issuer's error code means for the user; each asks them to sign in again.
_FAILURES = {
    "refresh_token_expired": "because your refresh token has expired",
    "refresh_token_reused": "because your refresh token was already used",
    "refresh_token_invalidated": "because your refresh token was revoked",
}


class RefreshFailed(Exception):
    """The tokens could not be refreshed; the message says why and never holds a secret.

    `permanent`: the refresh token is no good any more (sign in again); otherwise the issuer
    could not be reached or answered oddly, and a later try may work.
    """

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


def refresh_url(issuer: str | None) -> str:
    override = os.environ.get(URL_OVERRIDE_ENV, "").strip()
    if override:
        return override
    return f"{(issuer or DEFAULT_ISSUER).rstrip('/')}/oauth/token"


def can_refresh(info: AuthInfo | None) -> bool:
    return (
        info is not None
        and info.mode == "chatgpt"
        and info.tokens is not None
        and bool(info.tokens.refresh_token)
    )


def is_stale(info: AuthInfo, now: float | None = None) -> bool:
    """Whether the sign-in's access token must be refreshed before it is sent."""
    if not can_refresh(info) or info.tokens is None:
        return False
    now = time.time() if now is None else now
    expires = parse_jwt_claims(info.tokens.access_token).get("exp")
    if isinstance(expires, int | float) and not isinstance(expires, bool):
        return float(expires) <= now + EXPIRY_MARGIN_S
    if info.last_refresh is None:
        return False
    try:
        last = datetime.fromisoformat(info.last_refresh.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return False
    return last < now - REFRESH_INTERVAL_S


def _failure(status: int, body: bytes) -> RefreshFailed:
    code = ""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            error = error.get("code")
        code = error.lower() if isinstance(error, str) else ""
        if not code and isinstance(data.get("code"), str):
            code = data["code"].lower()
    why = _FAILURES.get(code)
    if why is not None or status == 401:
        reason = f" {why}" if why else ""
        return RefreshFailed(
            f"Your access token could not be refreshed{reason}. Please log out and sign in again.",
            permanent=True,
        )
    return RefreshFailed(f"Failed to refresh the access token: HTTP {status}.", permanent=False)


class TokenRefresher:
    """Refreshes the ChatGPT sign-in stored under one `$CODEX_HOME`, one refresh at a time."""

    def __init__(self, store: AuthStore, *, issuer: str | None = None) -> None:
        self.store = store
        self.url = refresh_url(issuer)
        self._lock = anyio.Lock()

    def stale_token(self) -> str | None:
        """The stored access token if it has expired or is about to, else None."""
        try:
            info = self.store.read()
        except AuthError:
            return None
        if info is None or info.tokens is None or not is_stale(info):
            return None
        return info.tokens.access_token

    async def refresh_if_stale(self, http: httpx.AsyncClient) -> bool:
        """Refresh when the stored access token has expired or is about to; True if it did."""
        stale = self.stale_token()
        if stale is None:
            return False
        return await self.refresh(http, replacing=stale)

    async def refresh(self, http: httpx.AsyncClient, *, replacing: str | None = None) -> bool:
        """Get new tokens for the stored sign-in and store them. With `replacing` (the access
        token found stale or refused), a stored token that is already another one counts as
        refreshed. False when there is nothing to refresh (no ChatGPT sign-in, no refresh
        token); raises `RefreshFailed`."""
        async with self._lock:
            try:
                info = self.store.read()
            except AuthError as err:
                raise RefreshFailed(str(err), permanent=True) from None
            if not can_refresh(info) or info is None or info.tokens is None:
                return False
            if replacing is not None and info.tokens.access_token != replacing:
                return True
            body = {
                "client_id": CLIENT_ID,
                "grant_type": "refresh_token",
                "refresh_token": info.tokens.refresh_token,
            }
            try:
                response = await http.post(
                    self.url,
                    json=body,
                    headers={"content-type": "application/json"},
                    timeout=TIMEOUT_S,
                )
            except httpx.HTTPError as err:
                raise RefreshFailed(
                    f"Failed to refresh the access token: {type(err).__name__} contacting "
                    f"{httpx.URL(self.url).host}.",
                    permanent=False,
                ) from None
            answer = response.content[:_MAX_ANSWER_BYTES]
            if not response.is_success:
                failed = _failure(response.status_code, answer)
                log.warning("token refresh refused: HTTP %s", response.status_code)
                raise failed
            try:
                tokens = json.loads(answer)
            except ValueError:
                tokens = None
            if not isinstance(tokens, dict):
                raise RefreshFailed(
                    "Failed to refresh the access token: the issuer's answer is not JSON.",
                    permanent=False,
                )

            def text(name: str) -> str | None:
                value = tokens.get(name)
                return value if isinstance(value, str) and value else None

            try:
                self.store.update_tokens(
                    id_token=text("id_token"),
                    access_token=text("access_token"),
                    refresh_token=text("refresh_token"),
                )
            except (AuthError, OSError) as err:
                raise RefreshFailed(str(err), permanent=False) from None
            log.info("refreshed the ChatGPT sign-in's tokens")
            return True
