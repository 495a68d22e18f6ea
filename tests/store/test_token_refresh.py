"""When a stored ChatGPT sign-in counts as stale, as codex decides it: by the access token's
`exp` claim, else by a last refresh older than eight days; an API key never is."""

from __future__ import annotations

import time

from codex_lsp.store.auth import AuthInfo, TokenData
from codex_lsp.store.token_refresh import EXPIRY_MARGIN_S, is_stale
from tests.support.oauth_issuer import jwt


def _signed_in(access: str, last_refresh: str | None = None) -> AuthInfo:
    tokens = TokenData(id_token=jwt({}), access_token=access, refresh_token="refresh-SECRET")
    return AuthInfo(mode="chatgpt", tokens=tokens, last_refresh=last_refresh)


def test_the_access_tokens_expiry_decides_first() -> None:
    now = time.time()
    assert is_stale(_signed_in(jwt({"exp": int(now - 5)})), now)
    assert is_stale(_signed_in(jwt({"exp": int(now + EXPIRY_MARGIN_S / 2)})), now)
    # A recent expiry claim wins over an old last refresh.
    fresh = _signed_in(jwt({"exp": int(now + 3600)}), "2020-01-01T00:00:00.000000Z")
    assert not is_stale(fresh, now)


def test_without_an_expiry_a_refresh_older_than_eight_days_is_stale() -> None:
    now = time.time()
    nine_days_ago = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(now - 9 * 86400))
    one_day_ago = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(now - 86400))
    assert is_stale(_signed_in("opaque-token", nine_days_ago), now)
    assert not is_stale(_signed_in("opaque-token", one_day_ago), now)
    assert not is_stale(_signed_in("opaque-token", None), now)


def test_an_api_key_or_a_sign_in_without_a_refresh_token_is_never_stale() -> None:
    now = time.time()
    assert not is_stale(AuthInfo(mode="apiKey", api_key="sk-SECRET"), now)
    expired = jwt({"exp": int(now - 5)})
    without = TokenData(id_token=jwt({}), access_token=expired, refresh_token=None)
    assert not is_stale(AuthInfo(mode="chatgpt", tokens=without), now)
