"""auth.json: API-key sign-in, 0600 mode, logout, env fallback, redaction; rate-limit snapshots."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path

import pytest

from codex_lsp.protocol.core.providers import ModelProviderInfo
from codex_lsp.store.auth import AuthError, AuthStore, parse_jwt_claims
from codex_lsp.store.providers import built_in_providers
from codex_lsp.store.ratelimits import RateLimitTracker, parse_rate_limit_headers

SECRET = "sk-test-0123456789abcdefSECRET"


def jwt(claims: dict) -> str:
    def segment(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{segment({'alg': 'none'})}.{segment(claims)}.sig"


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_api_key_login_writes_0600_and_reads_back(tmp_path: Path) -> None:
    old_umask = os.umask(0)  # even a permissive umask must not loosen the file
    try:
        store = AuthStore(tmp_path / "home")
        info = store.login_api_key(f"  {SECRET}\n")
    finally:
        os.umask(old_umask)
    assert mode_of(store.path) == 0o600
    assert json.loads(store.path.read_text())["OPENAI_API_KEY"] == SECRET
    assert info.mode == "apiKey" and info.api_key == SECRET
    assert store.read().api_key == SECRET
    assert store.account() == {"type": "apiKey"}
    assert [p.name for p in store.path.parent.iterdir()] == ["auth.json"]  # no temp files left


def test_replacing_a_loose_file_makes_it_0600(tmp_path: Path) -> None:
    store = AuthStore(tmp_path)
    store.path.write_text("{}")
    store.path.chmod(0o644)
    store.login_api_key(SECRET)
    assert mode_of(store.path) == 0o600


def test_logout(tmp_path: Path) -> None:
    store = AuthStore(tmp_path)
    store.login_api_key(SECRET)
    assert store.logout() is True
    assert not store.path.exists()
    assert store.read() is None and store.account() is None
    assert store.logout() is False


def test_api_key_for_prefers_auth_json_then_env(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OTHER_KEY", "other-from-env")
    openai = built_in_providers()["openai"]
    other = ModelProviderInfo(name="Other", base_url="http://127.0.0.1:1/v1", env_key="OTHER_KEY")
    keyless = ModelProviderInfo(name="Local", base_url="http://127.0.0.1:1/v1")
    store = AuthStore(tmp_path)
    assert store.api_key_for(openai) == "sk-from-env"
    store.login_api_key(SECRET)
    assert store.api_key_for(openai) == SECRET
    assert store.api_key_for(other) == "other-from-env"  # not an OpenAI-auth provider
    assert store.api_key_for(keyless) is None
    store.logout()
    monkeypatch.delenv("OPENAI_API_KEY")
    assert store.api_key_for(openai) is None


def test_secrets_never_show_in_repr_str_or_errors(tmp_path: Path) -> None:
    store = AuthStore(tmp_path)
    info = store.login_api_key(SECRET)
    for text in (repr(info), str(info), f"{info}", repr(store)):
        assert SECRET not in text
    assert "<redacted>" in repr(info)
    chat = store.login_tokens(
        id_token=jwt({"email": "a@b.c"}), access_token="access-SECRET", refresh_token="r-SECRET"
    )
    for text in (repr(chat), str(chat), repr(chat.tokens)):
        assert "SECRET" not in text
    # A damaged file: the error says where, never what.
    store.path.write_text('{"OPENAI_API_KEY": "' + SECRET + '", broken')
    with pytest.raises(AuthError) as error:
        store.read()
    assert SECRET not in str(error.value) and str(store.path) in str(error.value)
    with pytest.raises(AuthError, match="empty"):
        store.login_api_key("   ")


def test_chatgpt_tokens_and_account(tmp_path: Path) -> None:
    store = AuthStore(tmp_path)
    id_token = jwt(
        {
            "email": "dev@example.com",
            "https://api.openai.com/auth": {
                "chatgpt_plan_type": "pro",
                "chatgpt_account_id": "acct-1",
            },
        }
    )
    info = store.login_tokens(id_token=id_token, access_token="at", refresh_token="rt")
    assert info.mode == "chatgpt"
    assert (info.email, info.plan_type, info.account_id) == ("dev@example.com", "pro", "acct-1")
    assert info.bearer_token == "at"
    assert store.account() == {"type": "chatgpt", "email": "dev@example.com", "planType": "pro"}
    assert mode_of(store.path) == 0o600
    stored = json.loads(store.path.read_text())
    assert stored["auth_mode"] == "chatgpt" and stored["tokens"]["refresh_token"] == "rt"
    assert parse_jwt_claims("not-a-jwt") == {}


def test_reads_a_codex_style_auth_file(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_text(
        json.dumps({"OPENAI_API_KEY": SECRET, "tokens": None, "last_refresh": None})
    )
    assert AuthStore(tmp_path).read().mode == "apiKey"


def test_rate_limit_headers_and_tracker() -> None:
    headers = {
        "X-Codex-Primary-Used-Percent": "42.5",
        "x-codex-primary-window-minutes": "300",
        "x-codex-primary-reset-at": "1700000500",
        "x-codex-secondary-used-percent": "7",
        "x-codex-secondary-window-minutes": "10080",
        "x-codex-secondary-reset-after-seconds": "60",
        "x-codex-credits-has-credits": "true",
        "x-codex-credits-unlimited": "false",
        "x-codex-credits-balance": "12.5",
    }
    snapshot = parse_rate_limit_headers(headers, now=1_700_000_000)
    assert snapshot.primary.used_percent == 42.5
    assert (snapshot.primary.window_minutes, snapshot.primary.resets_at) == (300, 1_700_000_500)
    assert snapshot.secondary.resets_at == 1_700_000_060
    assert snapshot.to_core()["primary"] == {
        "used_percent": 42.5,
        "window_minutes": 300,
        "resets_at": 1_700_000_500,
    }
    v2 = snapshot.to_v2()
    assert v2["secondary"] == {
        "usedPercent": 7,
        "windowDurationMins": 10080,
        "resetsAt": 1_700_000_060,
    }
    assert v2["credits"] == {"hasCredits": True, "unlimited": False, "balance": "12.5"}
    assert parse_rate_limit_headers({"content-type": "text/event-stream"}) is None

    tracker = RateLimitTracker()
    assert tracker.latest() is None
    tracker.update_from_headers(headers)
    tracker.update_from_headers({"content-type": "x"})  # no rate-limit headers: keep the last
    assert tracker.latest().primary.used_percent == 42.5
