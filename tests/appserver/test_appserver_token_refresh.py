"""A ChatGPT sign-in's tokens are refreshed as codex does: when a client asks
(`account/read {refreshToken: true}`), before a request when the access token has expired, and
once when the model answers 401, after which the turn goes on.

The issuer is a real HTTP server on 127.0.0.1 (`tests/support/oauth_issuer.py`, reached through
`login_issuer`), the model the scripted server; both record what they were sent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.store.auth import AuthStore
from codex_lsp.store.token_refresh import CLIENT_ID
from tests.support.appserver import app_server, make_home
from tests.support.oauth_issuer import FakeIssuer, jwt
from tests.support.scripted_builders import http_error, text_response

OLD_ACCESS = "access-OLD"


@pytest.fixture
def issuer() -> Iterator[FakeIssuer]:
    server = FakeIssuer(CLIENT_ID)
    yield server
    server.close()


def _signed_in(tmp_path: Path, base_url: str, issuer: FakeIssuer, *, expires_in: float) -> Path:
    """A home signed in with ChatGPT tokens whose access token expires in `expires_in` s."""
    home, ws = make_home(tmp_path, base_url, extra=f'login_issuer = "{issuer.url}"')
    with (home / "config.toml").open("a") as f:
        f.write("requires_openai_auth = true\n")
    access = jwt({"exp": int(time.time() + expires_in), "tag": OLD_ACCESS})
    AuthStore(home).login_tokens(
        id_token=jwt({"email": "before@example.com"}),
        access_token=access,
        refresh_token="refresh-SECRET",
    )
    return ws


def _stored(home: Path) -> dict:
    return dict(json.loads((home / "auth.json").read_text())["tokens"])


def _assert_codex_refresh_request(
    issuer: FakeIssuer, refresh_token: str = "refresh-SECRET"
) -> None:
    sent = issuer.refresh_requests[0]
    assert sent["content_type"].startswith("application/json")
    assert sent["body"] == {
        "client_id": CLIENT_ID,
        "grant_type": "refresh_token",
        "refresh_token": refresh_token,
    }


def test_account_read_with_refresh_token_refreshes_the_sign_in(
    scripted_model, tmp_path: Path, issuer: FakeIssuer
) -> None:
    ws = _signed_in(tmp_path, scripted_model.base_url, issuer, expires_in=3600)
    home = tmp_path / "home"
    with app_server(home, ws) as client:
        before = client.result("account/read", {})
        assert before["account"]["email"] == "before@example.com"
        assert issuer.refresh_requests == []  # a plain read refreshes nothing
        after = client.result("account/read", {"refreshToken": True})
        logged = client.stderr()
    _assert_codex_refresh_request(issuer)
    assert after["account"]["email"] == "renewed-1@example.com"
    assert after["account"]["planType"] == "pro"
    tokens = _stored(home)
    assert tokens["access_token"] == "access-SECRET-1"
    assert tokens["refresh_token"] == "refresh-SECRET-1"
    assert "SECRET" not in logged


def test_an_expired_access_token_is_refreshed_before_the_request(
    scripted_model, tmp_path: Path, issuer: FakeIssuer
) -> None:
    ws = _signed_in(tmp_path, scripted_model.base_url, issuer, expires_in=-30)
    scripted_model.enqueue(text_response("answered with a fresh token"))
    with app_server(tmp_path / "home", ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], "hello")
    assert done["params"]["turn"]["status"] == "completed", done
    _assert_codex_refresh_request(issuer)
    assert [r.headers["authorization"] for r in scripted_model.requests] == [
        "Bearer access-SECRET-1"
    ]


def test_a_401_refreshes_once_and_the_turn_goes_on(
    scripted_model, tmp_path: Path, issuer: FakeIssuer
) -> None:
    ws = _signed_in(tmp_path, scripted_model.base_url, issuer, expires_in=3600)
    old = _stored(tmp_path / "home")["access_token"]
    scripted_model.enqueue(http_error(401, {"error": {"message": "token revoked"}}))
    scripted_model.enqueue(text_response("answered after the refresh"))
    with app_server(tmp_path / "home", ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], "hello")
        items = client.notifications("item/completed", threadId=thread["id"])
    assert done["params"]["turn"]["status"] == "completed", done
    texts = [m["params"]["item"].get("text") for m in items]
    assert "answered after the refresh" in texts
    assert len(issuer.refresh_requests) == 1
    _assert_codex_refresh_request(issuer)
    assert [r.headers["authorization"] for r in scripted_model.requests] == [
        f"Bearer {old}",
        "Bearer access-SECRET-1",
    ]


def test_a_second_401_after_the_refresh_ends_the_turn_without_another_refresh(
    scripted_model, tmp_path: Path, issuer: FakeIssuer
) -> None:
    ws = _signed_in(tmp_path, scripted_model.base_url, issuer, expires_in=3600)
    scripted_model.enqueue(http_error(401, {"error": {"message": "no"}}))
    scripted_model.enqueue(http_error(401, {"error": {"message": "still no"}}))
    with app_server(tmp_path / "home", ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], "hello")
    assert done["params"]["turn"]["status"] == "failed", done
    assert "HTTP 401" in json.dumps(done["params"]["turn"]["error"])
    assert len(issuer.refresh_requests) == 1
    assert len(scripted_model.requests) == 2


def test_a_refresh_token_already_used_says_to_sign_in_again(
    scripted_model, tmp_path: Path, issuer: FakeIssuer
) -> None:
    ws = _signed_in(tmp_path, scripted_model.base_url, issuer, expires_in=3600)
    issuer.refresh_fails_with = (401, {"error": {"code": "refresh_token_reused"}})
    scripted_model.enqueue(http_error(401, {"error": {"message": "expired"}}))
    with app_server(tmp_path / "home", ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], "hello")
    error = json.dumps(done["params"]["turn"]["error"])
    assert done["params"]["turn"]["status"] == "failed", done
    assert "already used" in error and "sign in again" in error
    assert "SECRET" not in error
    assert len(scripted_model.requests) == 1
