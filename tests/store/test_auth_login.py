"""Browser sign-in with PKCE against an issuer the test runs on 127.0.0.1.

The test plays the browser: it reads the authorize URL, then calls the local callback the issuer
would redirect to, with the code and state.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from codex_lsp.store.auth import AuthStore
from codex_lsp.store.login_server import CALLBACK_PATH, BrowserLogin, LoginResult
from tests.support.oauth_issuer import CODE, FakeIssuer


@pytest.fixture
def issuer() -> Iterator[FakeIssuer]:
    fake = FakeIssuer(client_id="test-client")
    yield fake
    fake.close()


def begin(issuer: FakeIssuer, store: AuthStore, **options) -> tuple[BrowserLogin, dict]:
    login = BrowserLogin(store, issuer=issuer.url + "/", client_id="test-client", **options)
    login_id, auth_url = login.start()
    assert login_id == login.login_id
    parts = urlsplit(auth_url)
    assert f"{parts.scheme}://{parts.netloc}" == issuer.url and parts.path == "/oauth/authorize"
    query = {key: values[0] for key, values in parse_qs(parts.query).items()}
    issuer.challenge = query["code_challenge"]
    return login, query


def browser_callback(query: dict, **params: str) -> httpx.Response:
    return httpx.get(query["redirect_uri"], params=params, timeout=10)


def test_authorize_url_carries_pkce_and_callback(issuer: FakeIssuer, tmp_path: Path) -> None:
    login, query = begin(issuer, AuthStore(tmp_path))
    try:
        assert query["response_type"] == "code"
        assert query["client_id"] == "test-client"
        assert query["scope"] == "openid profile email offline_access"
        assert query["code_challenge_method"] == "S256"
        assert len(query["state"]) >= 32
        redirect = urlsplit(query["redirect_uri"])
        assert redirect.hostname in ("localhost", "127.0.0.1") and redirect.path == CALLBACK_PATH
        assert redirect.port and redirect.port > 0
    finally:
        login.cancel()


def test_successful_sign_in_stores_tokens(issuer: FakeIssuer, tmp_path: Path, capsys) -> None:
    store = AuthStore(tmp_path)
    completed: list[tuple] = []
    login, query = begin(issuer, store, on_complete=lambda *args: completed.append(args))
    response = browser_callback(query, code=CODE, state=query["state"])
    assert response.status_code == 200 and "Signed in" in response.text
    assert login.wait(10) == LoginResult(True, None)
    assert completed == [(login.login_id, True, None)]
    assert issuer.token_requests[0]["redirect_uri"] == query["redirect_uri"]
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.account() == {"type": "chatgpt", "email": "dev@example.com", "planType": "plus"}
    assert store.read().tokens.refresh_token == "refresh-SECRET"
    output = capsys.readouterr()
    assert CODE not in output.out + output.err  # the callback request is not logged
    assert "SECRET" not in repr(login)


def test_state_mismatch_fails_and_stores_nothing(issuer: FakeIssuer, tmp_path: Path) -> None:
    store = AuthStore(tmp_path)
    login, query = begin(issuer, store)
    response = browser_callback(query, code=CODE, state="forged-state")
    assert response.status_code == 400
    result = login.wait(10)
    assert not result.success and "state mismatch" in result.error
    assert issuer.token_requests == []
    assert not store.path.exists()


def test_token_endpoint_error_is_reported_without_secrets(
    issuer: FakeIssuer, tmp_path: Path
) -> None:
    issuer.fail_with = (400, {"error": "invalid_grant", "error_description": "bad code"})
    login, query = begin(issuer, AuthStore(tmp_path))
    assert browser_callback(query, code=CODE, state=query["state"]).status_code == 500
    result = login.wait(10)
    assert result == LoginResult(False, "token exchange failed: HTTP 400 (invalid_grant)")
    assert CODE not in result.error


def test_issuer_error_redirect(issuer: FakeIssuer, tmp_path: Path) -> None:
    login, query = begin(issuer, AuthStore(tmp_path))
    browser_callback(query, error="access_denied", state=query["state"])
    result = login.wait(10)
    assert not result.success and "access_denied" in result.error


def test_cancel(issuer: FakeIssuer, tmp_path: Path) -> None:
    completed: list[tuple] = []
    login, query = begin(issuer, AuthStore(tmp_path), on_complete=lambda *a: completed.append(a))
    assert login.cancel() is True
    assert login.cancel() is False  # already finished
    assert login.wait(10) == LoginResult(False, "sign-in canceled")
    assert len(completed) == 1
    # The callback server goes away; a late browser redirect cannot complete anything.
    for _ in range(100):
        try:
            late = browser_callback(query, code=CODE, state=query["state"])
        except httpx.TransportError:
            break
        assert late.status_code == 410
    assert not (tmp_path / "auth.json").exists()


def test_timeout(issuer: FakeIssuer, tmp_path: Path) -> None:
    login, _ = begin(issuer, AuthStore(tmp_path), timeout=0.2)
    result = login.wait(10)
    assert not result.success and "timed out" in result.error
